ALTER TABLE "company_data_versions" DROP CONSTRAINT "company_data_versions_domain_check";--> statement-breakpoint
ALTER TABLE "company_data_versions" ADD CONSTRAINT "company_data_versions_domain_check" CHECK ("company_data_versions"."domain" in ('company', 'products', 'compliance'));--> statement-breakpoint
-- hand-written SQL below (keep at merge)
-- Version domains (src/db/version-domains.ts, ADR 0017): the `products` domain for the product list,
-- the `company` domain for a company's own row (the portal company cache, no longer a 5-second
-- expiry). test/db/version-domains.test.ts compares the triggers with the registry.
-- A company's row changed: note it for a company domain (TG_ARGV[0]), at the commit raised by
-- cradle_data_version_raise (0007, 0008). Row triggers: companies change rarely, one at a time.
CREATE FUNCTION "cradle_company_row_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "company_data_pending" ("company_id", "domain")
    VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD."id" ELSE NEW."id" END, TG_ARGV[0]) ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER "companies_compliance_update" ON "companies";--> statement-breakpoint
DROP FUNCTION "cradle_company_compliance_changed"();--> statement-breakpoint
CREATE TRIGGER "companies_compliance_update" AFTER UPDATE ON "companies" FOR EACH ROW
  WHEN (OLD."plan" IS DISTINCT FROM NEW."plan" OR OLD."security_email" IS DISTINCT FROM NEW."security_email"
    OR OLD."policy_text" IS DISTINCT FROM NEW."policy_text" OR OLD."policy_url" IS DISTINCT FROM NEW."policy_url")
  EXECUTE FUNCTION "cradle_company_row_changed"('compliance');--> statement-breakpoint
-- The company domain starts at 1 with the company (its insert raises it), so a deleted company, whose
-- versions go with it (read as 0), never matches a label kept while it existed.
CREATE TRIGGER "companies_company_insert" AFTER INSERT ON "companies" FOR EACH ROW EXECUTE FUNCTION "cradle_company_row_changed"('company');--> statement-breakpoint
CREATE TRIGGER "companies_company_update" AFTER UPDATE ON "companies" FOR EACH ROW
  WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION "cradle_company_row_changed"('company');--> statement-breakpoint
-- Deleted: nothing is raised (the company's versions are deleted with it), but the embedded database's
-- count moves with the notification cradle_data_version_raise sends all the same.
CREATE TRIGGER "companies_company_delete" AFTER DELETE ON "companies" FOR EACH ROW EXECUTE FUNCTION "cradle_company_row_changed"('company');--> statement-breakpoint
select set_config('cradle.system', 'on', true);--> statement-breakpoint
INSERT INTO "company_data_versions" ("company_id", "domain", "version") SELECT "id", 'company', 1 FROM "companies" ON CONFLICT DO NOTHING;--> statement-breakpoint
CREATE TRIGGER "products_products_insert" AFTER INSERT ON "products" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('products');--> statement-breakpoint
CREATE TRIGGER "products_products_update" AFTER UPDATE ON "products" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('products');--> statement-breakpoint
CREATE TRIGGER "products_products_delete" AFTER DELETE ON "products" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('products');--> statement-breakpoint
CREATE TRIGGER "products_products_truncate" AFTER TRUNCATE ON "products" FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('products');
