ALTER TABLE "reports" ADD COLUMN "component_purl" text;--> statement-breakpoint
ALTER TABLE "upstream_settings" ADD COLUMN "case_reminder_days" integer;--> statement-breakpoint
ALTER TABLE "case_participants" ADD COLUMN "reminded_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "cases" ADD COLUMN "coordinator_suggested_at" timestamp (3) with time zone;--> statement-breakpoint
-- hand-written SQL below (keep at merge)
-- Compliance reads which reports a case holds and whom it notified (Article 13(6), docs/compliance.md):
-- both tables join the `compliance` version domain (src/db/version-domains.ts, ADR 0017).
CREATE TRIGGER "case_reports_compliance_insert" AFTER INSERT ON "case_reports" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "case_reports_compliance_update" AFTER UPDATE ON "case_reports" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "case_reports_compliance_delete" AFTER DELETE ON "case_reports" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "case_reports_compliance_truncate" AFTER TRUNCATE ON "case_reports" FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "case_participants_compliance_insert" AFTER INSERT ON "case_participants" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "case_participants_compliance_update" AFTER UPDATE ON "case_participants" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "case_participants_compliance_delete" AFTER DELETE ON "case_participants" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "case_participants_compliance_truncate" AFTER TRUNCATE ON "case_participants" FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');
--> statement-breakpoint
-- A coordination notice queued for GitHub wakes the `cases.github-deliver` worker at the commit of the
-- confirmation (src/db/notifications.ts), instead of a 10-second poll while no GitHub participant exists.
CREATE TRIGGER "cradle_wake_case_notices" AFTER UPDATE OF "state" ON "case_notices"
  FOR EACH ROW WHEN (NEW."state" = 'queued' AND OLD."state" IS DISTINCT FROM 'queued')
  EXECUTE FUNCTION "cradle_wake_on_row"('cradle_wake_github');
