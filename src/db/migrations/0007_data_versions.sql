CREATE TABLE "company_data_pending" (
	"xact" bigint DEFAULT txid_current() NOT NULL,
	"company_id" uuid NOT NULL,
	"domain" text NOT NULL,
	CONSTRAINT "company_data_pending_xact_company_id_domain_pk" PRIMARY KEY("xact","company_id","domain")
);
--> statement-breakpoint
CREATE TABLE "company_data_versions" (
	"company_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "company_data_versions_company_id_domain_pk" PRIMARY KEY("company_id","domain"),
	CONSTRAINT "company_data_versions_domain_check" CHECK ("company_data_versions"."domain" in ('compliance'))
);
--> statement-breakpoint
ALTER TABLE "company_data_versions" ADD CONSTRAINT "company_data_versions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Data versions (ADR 0012). The pending rows never outlive their transaction: no WAL for them.
ALTER TABLE "company_data_pending" SET UNLOGGED;--> statement-breakpoint
alter table "company_data_pending" enable row level security;--> statement-breakpoint
alter table "company_data_pending" force row level security;--> statement-breakpoint
create policy "company_data_pending_tenant" on "company_data_pending" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "company_data_versions" enable row level security;--> statement-breakpoint
alter table "company_data_versions" force row level security;--> statement-breakpoint
create policy "company_data_versions_tenant" on "company_data_versions" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
-- A statement changed rows of a domain (TG_ARGV[0]): note each company it touched, once per
-- transaction. Whole-statement triggers with transition tables: a 50,000-finding push costs one call.
CREATE FUNCTION "cradle_data_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "company_data_pending" ("company_id", "domain")
      SELECT DISTINCT "company_id", TG_ARGV[0] FROM new_rows ORDER BY 1 ON CONFLICT DO NOTHING;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "company_data_pending" ("company_id", "domain")
      SELECT DISTINCT "company_id", TG_ARGV[0] FROM old_rows ORDER BY 1 ON CONFLICT DO NOTHING;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO "company_data_pending" ("company_id", "domain")
      SELECT "company_id", TG_ARGV[0] FROM (SELECT "company_id" FROM old_rows UNION SELECT "company_id" FROM new_rows) c ORDER BY 1 ON CONFLICT DO NOTHING;
  ELSE
    -- TRUNCATE names no rows: every company (that this connection may see) has changed.
    INSERT INTO "company_data_pending" ("company_id", "domain")
      SELECT "id", TG_ARGV[0] FROM "companies" ORDER BY 1 ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- At the commit (deferred), raise each noted company's counter by one. The counter's row lock is
-- taken only then, so writers of one company queue for a moment, not for each other's whole work;
-- noted companies are raised in company-id order, so two transactions cannot deadlock on them.
-- A company deleted in the same transaction gets no counter.
CREATE FUNCTION "cradle_data_version_raise"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "company_data_pending" WHERE "xact" = NEW."xact" AND "company_id" = NEW."company_id" AND "domain" = NEW."domain";
  INSERT INTO "company_data_versions" ("company_id", "domain", "version")
    SELECT NEW."company_id", NEW."domain", 1 WHERE EXISTS (SELECT 1 FROM "companies" WHERE "id" = NEW."company_id")
    ON CONFLICT ("company_id", "domain") DO UPDATE SET "version" = "company_data_versions"."version" + 1;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "company_data_pending_raise" AFTER INSERT ON "company_data_pending"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "cradle_data_version_raise"();--> statement-breakpoint
-- The compliance domain: every table the compliance evaluation reads (src/modules/compliance/
-- gather-evidence.ts).
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['products', 'product_cra_facts', 'sboms', 'sbom_components', 'sarif_scans', 'findings', 'reports', 'article14_filings', 'attestations', 'advisories'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed(''compliance'')', t || '_compliance_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed(''compliance'')', t || '_compliance_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed(''compliance'')', t || '_compliance_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed(''compliance'')', t || '_compliance_truncate', t);
  END LOOP;
END
$$;--> statement-breakpoint
-- A company's own columns the evaluation reads: plan, security contact, disclosure policy.
CREATE FUNCTION "cradle_company_compliance_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "company_data_pending" ("company_id", "domain") VALUES (NEW."id", 'compliance') ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "companies_compliance_update" AFTER UPDATE ON "companies" FOR EACH ROW
  WHEN (OLD."plan" IS DISTINCT FROM NEW."plan" OR OLD."security_email" IS DISTINCT FROM NEW."security_email"
    OR OLD."policy_text" IS DISTINCT FROM NEW."policy_text" OR OLD."policy_url" IS DISTINCT FROM NEW."policy_url")
  EXECUTE FUNCTION "cradle_company_compliance_changed"();
