ALTER TABLE "companies" ADD COLUMN "safe_harbour" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "response_acknowledge_days" integer;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "response_assess_days" integer;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "response_resolve_days" integer;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "archived_at" timestamp (3) with time zone;