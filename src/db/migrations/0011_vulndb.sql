CREATE TABLE "sbom_match_runs" (
	"sbom_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"matched_at" timestamp (3) with time zone NOT NULL,
	"components" integer NOT NULL,
	"matchable" integer NOT NULL,
	"unmatched" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vuln_matches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"vuln_key" text NOT NULL,
	"vuln_ids" text[] NOT NULL,
	"record_ids" text[] NOT NULL,
	"package_key" text NOT NULL,
	"component_name" text NOT NULL,
	"component_version" text NOT NULL,
	"component_purl" text NOT NULL,
	"fixed_version" text,
	"summary" text,
	"cvss_score" double precision,
	"cvss_vector" text,
	"sbom_id" uuid,
	"first_seen_at" timestamp (3) with time zone NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL,
	"resolved_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "vulndb_affected" (
	"record_id" text NOT NULL,
	"ordinal" integer NOT NULL,
	"package_key" text NOT NULL,
	"type" text NOT NULL,
	"release" text,
	"ranges" jsonb NOT NULL,
	"versions" text[] NOT NULL,
	CONSTRAINT "vulndb_affected_record_id_ordinal_pk" PRIMARY KEY("record_id","ordinal")
);
--> statement-breakpoint
CREATE TABLE "vulndb_epss" (
	"cve_id" text PRIMARY KEY NOT NULL,
	"score" double precision NOT NULL,
	"percentile" double precision NOT NULL,
	"score_date" date NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vulndb_kev" (
	"cve_id" text PRIMARY KEY NOT NULL,
	"vendor_project" text NOT NULL,
	"product" text NOT NULL,
	"name" text NOT NULL,
	"date_added" date NOT NULL,
	"due_date" date,
	"required_action" text NOT NULL,
	"known_ransomware" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vulndb_records" (
	"id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"modified" timestamp (3) with time zone NOT NULL,
	"published" timestamp (3) with time zone,
	"withdrawn" timestamp (3) with time zone,
	"aliases" text[] NOT NULL,
	"summary" text,
	"details" text,
	"severity" jsonb NOT NULL,
	"references" jsonb NOT NULL,
	"cwes" text[] NOT NULL,
	"sha256" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vulndb_sources" (
	"source" text PRIMARY KEY NOT NULL,
	"etag" text,
	"last_modified" text,
	"sha256" text NOT NULL,
	"records" integer NOT NULL,
	"imported_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sbom_components" ADD COLUMN "package_key" text;--> statement-breakpoint
ALTER TABLE "sbom_match_runs" ADD CONSTRAINT "sbom_match_runs_sbom_id_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."sboms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sbom_match_runs" ADD CONSTRAINT "sbom_match_runs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD CONSTRAINT "vuln_matches_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD CONSTRAINT "vuln_matches_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD CONSTRAINT "vuln_matches_sbom_id_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."sboms"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vulndb_affected" ADD CONSTRAINT "vulndb_affected_record_id_vulndb_records_id_fk" FOREIGN KEY ("record_id") REFERENCES "public"."vulndb_records"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "vuln_matches_identity_key" ON "vuln_matches" USING btree ("product_id","vuln_key","package_key","component_version");--> statement-breakpoint
CREATE INDEX "vuln_matches_company_vuln_idx" ON "vuln_matches" USING btree ("company_id","vuln_key");--> statement-breakpoint
CREATE INDEX "vulndb_affected_package_idx" ON "vulndb_affected" USING btree ("package_key");--> statement-breakpoint
CREATE INDEX "sbom_components_package_idx" ON "sbom_components" USING btree ("package_key");--> statement-breakpoint
-- hand-written SQL below (keep at merge)
alter table "vuln_matches" enable row level security;--> statement-breakpoint
alter table "vuln_matches" force row level security;--> statement-breakpoint
create policy "vuln_matches_tenant" on "vuln_matches" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "sbom_match_runs" enable row level security;--> statement-breakpoint
alter table "sbom_match_runs" force row level security;--> statement-breakpoint
create policy "sbom_match_runs_tenant" on "sbom_match_runs" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
-- The advisory store is public data every company reads and only Cradle's own import code writes.
create function cradle_system_scope() returns boolean language sql stable parallel safe
  as $$ select current_setting('cradle.system', true) = 'on' $$;--> statement-breakpoint
alter table "vulndb_records" enable row level security;--> statement-breakpoint
alter table "vulndb_records" force row level security;--> statement-breakpoint
create policy "vulndb_records_read" on "vulndb_records" for select using (true);--> statement-breakpoint
create policy "vulndb_records_write" on "vulndb_records" using (cradle_system_scope()) with check (cradle_system_scope());--> statement-breakpoint
alter table "vulndb_affected" enable row level security;--> statement-breakpoint
alter table "vulndb_affected" force row level security;--> statement-breakpoint
create policy "vulndb_affected_read" on "vulndb_affected" for select using (true);--> statement-breakpoint
create policy "vulndb_affected_write" on "vulndb_affected" using (cradle_system_scope()) with check (cradle_system_scope());--> statement-breakpoint
alter table "vulndb_kev" enable row level security;--> statement-breakpoint
alter table "vulndb_kev" force row level security;--> statement-breakpoint
create policy "vulndb_kev_read" on "vulndb_kev" for select using (true);--> statement-breakpoint
create policy "vulndb_kev_write" on "vulndb_kev" using (cradle_system_scope()) with check (cradle_system_scope());--> statement-breakpoint
alter table "vulndb_epss" enable row level security;--> statement-breakpoint
alter table "vulndb_epss" force row level security;--> statement-breakpoint
create policy "vulndb_epss_read" on "vulndb_epss" for select using (true);--> statement-breakpoint
create policy "vulndb_epss_write" on "vulndb_epss" using (cradle_system_scope()) with check (cradle_system_scope());--> statement-breakpoint
alter table "vulndb_sources" enable row level security;--> statement-breakpoint
alter table "vulndb_sources" force row level security;--> statement-breakpoint
create policy "vulndb_sources_read" on "vulndb_sources" for select using (true);--> statement-breakpoint
create policy "vulndb_sources_write" on "vulndb_sources" using (cradle_system_scope()) with check (cradle_system_scope());
