CREATE TABLE "article14_filings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"stage" text NOT NULL,
	"filed_at" timestamp (3) with time zone NOT NULL,
	"filed_by" text,
	"reference" text,
	"recorded_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"from_status" text,
	"to_status" text,
	"changes" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "severity" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "cvss_vector" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "cvss_score" real;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "cwe" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "duplicate_of" uuid;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "actively_exploited" boolean;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "exploitation_evidence" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "aware_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "severe_incident" boolean;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "fix_available_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "member_states" text[] DEFAULT ARRAY[]::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "article14_filings" ADD CONSTRAINT "article14_filings_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article14_filings" ADD CONSTRAINT "article14_filings_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_events" ADD CONSTRAINT "report_events_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_events" ADD CONSTRAINT "report_events_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "article14_filings_stage_key" ON "article14_filings" USING btree ("report_id","stage");--> statement-breakpoint
CREATE INDEX "report_events_report_idx" ON "report_events" USING btree ("report_id","at");