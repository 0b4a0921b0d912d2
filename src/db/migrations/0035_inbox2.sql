CREATE TABLE "saved_filters" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"user_id" uuid,
	"name" text NOT NULL,
	"criteria" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "saved_filters_user_name" ON "saved_filters" USING btree ("user_id",lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "saved_filters_keys_name" ON "saved_filters" USING btree ("company_id",lower("name")) WHERE "saved_filters"."user_id" is null;--> statement-breakpoint
CREATE INDEX "saved_filters_company_idx" ON "saved_filters" USING btree ("company_id");--> statement-breakpoint
-- hand-written SQL below (keep at merge): row-level security of the new company-scoped table (ADR 0009)
alter table "saved_filters" enable row level security;--> statement-breakpoint
alter table "saved_filters" force row level security;--> statement-breakpoint
create policy "saved_filters_tenant" on "saved_filters" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
