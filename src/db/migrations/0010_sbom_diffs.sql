CREATE TABLE "sbom_diffs" (
	"sbom_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"diff" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sbom_diffs" ADD CONSTRAINT "sbom_diffs_sbom_id_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."sboms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sbom_diffs" ADD CONSTRAINT "sbom_diffs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- hand-written SQL below (keep at merge)
alter table "sbom_diffs" enable row level security;--> statement-breakpoint
alter table "sbom_diffs" force row level security;--> statement-breakpoint
create policy "sbom_diffs_tenant" on "sbom_diffs" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
