ALTER TABLE "case_notices" ADD COLUMN "failure" text;--> statement-breakpoint
ALTER TABLE "case_notices" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "case_notices" ADD COLUMN "next_attempt_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "case_notices" ADD COLUMN "lease_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "case_participants" ADD COLUMN "advisory_id" text;--> statement-breakpoint
ALTER TABLE "case_participants" ADD COLUMN "advisory_url" text;--> statement-breakpoint
CREATE INDEX "case_notices_queued_idx" ON "case_notices" USING btree ("next_attempt_at") WHERE "case_notices"."state" = 'queued';