CREATE TABLE "sbom_match_jobs" (
	"sbom_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"locked_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sbom_match_jobs" ADD CONSTRAINT "sbom_match_jobs_sbom_id_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."sboms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sbom_match_jobs" ADD CONSTRAINT "sbom_match_jobs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sbom_match_jobs_company_idx" ON "sbom_match_jobs" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "sbom_match_jobs_due_idx" ON "sbom_match_jobs" USING btree ("locked_until","created_at");--> statement-breakpoint
alter table "sbom_match_jobs" enable row level security;--> statement-breakpoint
alter table "sbom_match_jobs" force row level security;--> statement-breakpoint
create policy "sbom_match_jobs_tenant" on "sbom_match_jobs" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
-- A queued match wakes the `known-vulns.match` job at the push's commit (as migration 0020 does for
-- the other queues).
CREATE TRIGGER "cradle_wake_sbom_match_jobs" AFTER INSERT ON "sbom_match_jobs" REFERENCING NEW TABLE AS "added"
  FOR EACH STATEMENT EXECUTE FUNCTION "cradle_wake_on_added"('cradle_wake_sbom_match');
