ALTER TABLE "company_data_versions" DROP CONSTRAINT "company_data_versions_domain_check";--> statement-breakpoint
ALTER TABLE "company_data_versions" ADD CONSTRAINT "company_data_versions_domain_check" CHECK ("company_data_versions"."domain" in ('company', 'products', 'reports', 'compliance'));--> statement-breakpoint
-- hand-written SQL below (keep at merge)
-- The `reports` version domain (src/db/version-domains.ts, ADR 0017) for the report export pages
-- (ADR 0021): raised at the commit of every transaction that changes a company's reports, by any
-- writer. Expand-only: the previous release neither reads nor writes this domain; its triggers stay.
CREATE TRIGGER "reports_reports_insert" AFTER INSERT ON "reports" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('reports');--> statement-breakpoint
CREATE TRIGGER "reports_reports_update" AFTER UPDATE ON "reports" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('reports');--> statement-breakpoint
CREATE TRIGGER "reports_reports_delete" AFTER DELETE ON "reports" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('reports');--> statement-breakpoint
CREATE TRIGGER "reports_reports_truncate" AFTER TRUNCATE ON "reports" FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('reports');
