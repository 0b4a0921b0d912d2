ALTER TABLE "companies" ADD COLUMN "acknowledgments_text" text;--> statement-breakpoint
-- hand-written SQL below (keep at merge)
-- The portal's acknowledgments read released documents (src/modules/advisories/public-credits.ts,
-- a company read cache): they join the compliance domain (0007) so the cache sees every release.
CREATE TRIGGER "advisory_documents_compliance_insert" AFTER INSERT ON "advisory_documents" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "advisory_documents_compliance_update" AFTER UPDATE ON "advisory_documents" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "advisory_documents_compliance_delete" AFTER DELETE ON "advisory_documents" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "advisory_documents_compliance_truncate" AFTER TRUNCATE ON "advisory_documents" FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');
