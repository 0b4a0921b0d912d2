CREATE TABLE "sbom_stages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sbom_components" DROP CONSTRAINT "sbom_components_sbom_id_sboms_id_fk";
--> statement-breakpoint
ALTER TABLE "sbom_dependencies" DROP CONSTRAINT "sbom_dependencies_sbom_id_sboms_id_fk";
--> statement-breakpoint
ALTER TABLE "sbom_stages" ADD CONSTRAINT "sbom_stages_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sbom_stages_company_created_idx" ON "sbom_stages" USING btree ("company_id","created_at");--> statement-breakpoint
alter table "sbom_stages" enable row level security;--> statement-breakpoint
alter table "sbom_stages" force row level security;--> statement-breakpoint
create policy "sbom_stages_tenant" on "sbom_stages" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
-- Issue 33: a push writes its components and graph before the SBOM row exists (staged), so the
-- foreign keys above are gone; this trigger removes a version's rows with it, as their cascade did
-- (retention, a product or a company removed). Old code that inserts the row first is unaffected.
CREATE FUNCTION "cradle_sbom_rows_cascade"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "sbom_components" c USING "gone" g WHERE c."sbom_id" = g."id";
  DELETE FROM "sbom_dependencies" d USING "gone" g WHERE d."sbom_id" = g."id";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "cradle_sbom_rows_cascade" AFTER DELETE ON "sboms" REFERENCING OLD TABLE AS "gone"
  FOR EACH STATEMENT EXECUTE FUNCTION "cradle_sbom_rows_cascade"();
