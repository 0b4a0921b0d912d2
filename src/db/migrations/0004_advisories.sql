CREATE TABLE "advisories" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"tracking_id" text NOT NULL,
	"status" text NOT NULL,
	"title" text NOT NULL,
	"summary" text NOT NULL,
	"description" text NOT NULL,
	"cve" text,
	"ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"cvss_vector" text,
	"cwe" text,
	"cwe_name" text,
	"products" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"remediation" jsonb,
	"acknowledgments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tlp" text DEFAULT 'CLEAR' NOT NULL,
	"revisions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"initial_release_at" timestamp (3) with time zone,
	"current_release_at" timestamp (3) with time zone,
	"withdrawn_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "advisory_documents" (
	"advisory_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"version" integer NOT NULL,
	"tracking_id" text NOT NULL,
	"content" text NOT NULL,
	"sha256" text NOT NULL,
	"sha512" text NOT NULL,
	"initial_release_at" timestamp (3) with time zone NOT NULL,
	"current_release_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "advisory_documents_advisory_id_kind_version_pk" PRIMARY KEY("advisory_id","kind","version")
);
--> statement-breakpoint
ALTER TABLE "advisories" ADD CONSTRAINT "advisories_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisories" ADD CONSTRAINT "advisories_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisory_documents" ADD CONSTRAINT "advisory_documents_advisory_id_advisories_id_fk" FOREIGN KEY ("advisory_id") REFERENCES "public"."advisories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisory_documents" ADD CONSTRAINT "advisory_documents_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "advisories_company_tracking_key" ON "advisories" USING btree ("company_id","tracking_id");--> statement-breakpoint
CREATE INDEX "advisories_company_created_idx" ON "advisories" USING btree ("company_id","created_at");--> statement-breakpoint
CREATE INDEX "advisories_report_idx" ON "advisories" USING btree ("report_id");--> statement-breakpoint
CREATE INDEX "advisory_documents_company_idx" ON "advisory_documents" USING btree ("company_id","current_release_at");