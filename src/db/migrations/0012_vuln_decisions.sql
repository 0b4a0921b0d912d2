CREATE TABLE "vuln_decisions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"match_id" uuid NOT NULL,
	"state" text NOT NULL,
	"justification" text,
	"response" text[],
	"detail" text NOT NULL,
	"actor" text NOT NULL,
	"decided_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD COLUMN "in_kev" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD COLUMN "analysis_state" text;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD COLUMN "analysis_justification" text;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD COLUMN "analysis_response" text[];--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD COLUMN "analysis_detail" text;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD COLUMN "decided_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD COLUMN "decided_by" text;--> statement-breakpoint
ALTER TABLE "vuln_decisions" ADD CONSTRAINT "vuln_decisions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vuln_decisions" ADD CONSTRAINT "vuln_decisions_match_id_vuln_matches_id_fk" FOREIGN KEY ("match_id") REFERENCES "public"."vuln_matches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vuln_decisions_match_idx" ON "vuln_decisions" USING btree ("match_id","decided_at");--> statement-breakpoint
-- hand-written SQL below (keep at merge)
alter table "vuln_decisions" enable row level security;--> statement-breakpoint
alter table "vuln_decisions" force row level security;--> statement-breakpoint
create policy "vuln_decisions_tenant" on "vuln_decisions" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
-- Compliance reads the matches (Annex I Part I (2)(a)): they join the compliance domain (0007).
CREATE TRIGGER "vuln_matches_compliance_insert" AFTER INSERT ON "vuln_matches" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "vuln_matches_compliance_update" AFTER UPDATE ON "vuln_matches" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "vuln_matches_compliance_delete" AFTER DELETE ON "vuln_matches" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "vuln_matches_compliance_truncate" AFTER TRUNCATE ON "vuln_matches" FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');
