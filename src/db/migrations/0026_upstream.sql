CREATE TABLE "upstream_settings" (
	"company_id" uuid PRIMARY KEY NOT NULL,
	"github_token" text,
	"github_token_set_at" timestamp (3) with time zone,
	"maintained_purl_prefixes" text[] DEFAULT '{}'::text[] NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "upstream_settings_github_token_sealed" CHECK ("upstream_settings"."github_token" is null or "upstream_settings"."github_token" like 'sb1.%')
);
--> statement-breakpoint
ALTER TABLE "sbom_components" ADD COLUMN "vcs_url" text;--> statement-breakpoint
ALTER TABLE "sbom_components" ADD COLUMN "website_url" text;--> statement-breakpoint
ALTER TABLE "upstream_settings" ADD CONSTRAINT "upstream_settings_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- hand-written SQL below (keep at merge): row-level security of the new company-scoped table (ADR 0009)
alter table "upstream_settings" enable row level security;--> statement-breakpoint
alter table "upstream_settings" force row level security;--> statement-breakpoint
create policy "upstream_settings_tenant" on "upstream_settings" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
