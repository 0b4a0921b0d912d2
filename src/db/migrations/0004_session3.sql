CREATE TABLE "attestations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"product_id" uuid,
	"requirement_id" text NOT NULL,
	"verdict" text NOT NULL,
	"justification" text NOT NULL,
	"evidence_url" text,
	"author" text NOT NULL,
	"actor" text NOT NULL,
	"attested_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"withdrawn_at" timestamp (3) with time zone,
	"withdrawn_by" text,
	CONSTRAINT "attestations_verdict_check" CHECK ("attestations"."verdict" in ('met', 'not_applicable')),
	CONSTRAINT "attestations_justification_check" CHECK (length(btrim("attestations"."justification")) > 0)
);
--> statement-breakpoint
CREATE TABLE "product_cra_facts" (
	"product_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"category" text DEFAULT 'default' NOT NULL,
	"placed_on_market_at" timestamp (3) with time zone,
	"support_ends_at" timestamp (3) with time zone,
	"support_justification" text,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "article14_alerts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"stage" text NOT NULL,
	"kind" text NOT NULL,
	"due_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"author" text NOT NULL,
	"author_id" text,
	"body" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "triage_suggestions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"source" text NOT NULL,
	"suggestion" jsonb NOT NULL,
	"decision" text DEFAULT 'pending' NOT NULL,
	"decided_by" text,
	"decided_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
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
ALTER TABLE "triage_jobs" ADD COLUMN "locked_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "attestations" ADD CONSTRAINT "attestations_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attestations" ADD CONSTRAINT "attestations_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_cra_facts" ADD CONSTRAINT "product_cra_facts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_cra_facts" ADD CONSTRAINT "product_cra_facts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article14_alerts" ADD CONSTRAINT "article14_alerts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article14_alerts" ADD CONSTRAINT "article14_alerts_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_messages" ADD CONSTRAINT "report_messages_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_messages" ADD CONSTRAINT "report_messages_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triage_suggestions" ADD CONSTRAINT "triage_suggestions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triage_suggestions" ADD CONSTRAINT "triage_suggestions_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisories" ADD CONSTRAINT "advisories_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisories" ADD CONSTRAINT "advisories_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisory_documents" ADD CONSTRAINT "advisory_documents_advisory_id_advisories_id_fk" FOREIGN KEY ("advisory_id") REFERENCES "public"."advisories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisory_documents" ADD CONSTRAINT "advisory_documents_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attestations_company_requirement_idx" ON "attestations" USING btree ("company_id","requirement_id");--> statement-breakpoint
CREATE INDEX "product_cra_facts_company_idx" ON "product_cra_facts" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "article14_alerts_key" ON "article14_alerts" USING btree ("report_id","stage","kind","due_at");--> statement-breakpoint
CREATE INDEX "article14_alerts_company_idx" ON "article14_alerts" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "report_messages_report_idx" ON "report_messages" USING btree ("report_id","created_at");--> statement-breakpoint
CREATE INDEX "report_messages_company_idx" ON "report_messages" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "triage_suggestions_report_key" ON "triage_suggestions" USING btree ("report_id");--> statement-breakpoint
CREATE INDEX "triage_suggestions_company_idx" ON "triage_suggestions" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "advisories_company_tracking_key" ON "advisories" USING btree ("company_id","tracking_id");--> statement-breakpoint
CREATE INDEX "advisories_company_created_idx" ON "advisories" USING btree ("company_id","created_at");--> statement-breakpoint
CREATE INDEX "advisories_report_idx" ON "advisories" USING btree ("report_id");--> statement-breakpoint
CREATE INDEX "advisory_documents_company_idx" ON "advisory_documents" USING btree ("company_id","current_release_at");--> statement-breakpoint
CREATE INDEX "triage_jobs_open_idx" ON "triage_jobs" USING btree ("locked_until") WHERE "triage_jobs"."state" in ('pending', 'running');--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_due_idx" ON "webhook_deliveries" USING btree ("webhook_id","next_attempt_at") WHERE "webhook_deliveries"."state" = 'pending';