CREATE TABLE "sbom_components" (
	"sbom_id" uuid NOT NULL,
	"ordinal" integer NOT NULL,
	"company_id" uuid NOT NULL,
	"ref" text,
	"type" text,
	"group" text,
	"name" text NOT NULL,
	"version" text,
	"purl" text,
	"cpe" text,
	"licenses" text[] DEFAULT '{}'::text[] NOT NULL,
	"hashes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"supplier" text,
	"relationship" text NOT NULL,
	CONSTRAINT "sbom_components_sbom_id_ordinal_pk" PRIMARY KEY("sbom_id","ordinal")
);
--> statement-breakpoint
CREATE TABLE "sbom_dependencies" (
	"sbom_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"from_ref" text NOT NULL,
	"to_ref" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sbom_documents" (
	"sbom_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"encoding" text NOT NULL,
	"content" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sboms" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"format" text NOT NULL,
	"spec_version" text NOT NULL,
	"serial_number" text,
	"subject_name" text,
	"subject_version" text,
	"component_count" integer NOT NULL,
	"dependency_count" integer NOT NULL,
	"previous_id" uuid,
	"added" integer NOT NULL,
	"removed" integer NOT NULL,
	"changed" integer NOT NULL,
	"sha256" text NOT NULL,
	"byte_size" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "findings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"tool" text NOT NULL,
	"rule_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"severity" text NOT NULL,
	"level" text NOT NULL,
	"security_severity" text,
	"message" text NOT NULL,
	"artifact_uri" text,
	"start_line" integer,
	"first_seen_scan_id" uuid NOT NULL,
	"first_seen_at" timestamp (3) with time zone NOT NULL,
	"fixed_scan_id" uuid,
	"fixed_at" timestamp (3) with time zone,
	"reopen_count" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sarif_scans" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"tools" text[] NOT NULL,
	"result_count" integer NOT NULL,
	"finding_count" integer NOT NULL,
	"new_count" integer NOT NULL,
	"fixed_count" integer NOT NULL,
	"reopened_count" integer NOT NULL,
	"unchanged_count" integer NOT NULL,
	"sha256" text NOT NULL,
	"byte_size" integer NOT NULL,
	"document" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sbom_components" ADD CONSTRAINT "sbom_components_sbom_id_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."sboms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sbom_dependencies" ADD CONSTRAINT "sbom_dependencies_sbom_id_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."sboms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sbom_documents" ADD CONSTRAINT "sbom_documents_sbom_id_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."sboms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sboms" ADD CONSTRAINT "sboms_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sboms" ADD CONSTRAINT "sboms_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sarif_scans" ADD CONSTRAINT "sarif_scans_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sarif_scans" ADD CONSTRAINT "sarif_scans_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sbom_components_company_purl_idx" ON "sbom_components" USING btree ("company_id","purl");--> statement-breakpoint
CREATE INDEX "sbom_dependencies_sbom_idx" ON "sbom_dependencies" USING btree ("sbom_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sboms_product_version_key" ON "sboms" USING btree ("product_id","version");--> statement-breakpoint
CREATE INDEX "sboms_company_created_idx" ON "sboms" USING btree ("company_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "findings_product_tool_fingerprint_key" ON "findings" USING btree ("product_id","tool","fingerprint");--> statement-breakpoint
CREATE INDEX "findings_company_state_severity_idx" ON "findings" USING btree ("company_id","state","severity");--> statement-breakpoint
CREATE INDEX "sarif_scans_company_created_idx" ON "sarif_scans" USING btree ("company_id","created_at");