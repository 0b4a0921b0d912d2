CREATE TABLE "erasure_requests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"pseudonym" text NOT NULL,
	"state" text NOT NULL,
	"report_count" integer NOT NULL,
	"recorded_by" text NOT NULL,
	"requested_at" timestamp (3) with time zone NOT NULL,
	"applied_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "legal_holds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"target_id" uuid,
	"reason" text NOT NULL,
	"placed_by" text NOT NULL,
	"placed_at" timestamp (3) with time zone NOT NULL,
	"released_by" text,
	"released_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "retention_policies" (
	"company_id" uuid PRIMARY KEY NOT NULL,
	"reporter_data_days" integer,
	"rejected_body_days" integer,
	"access_record_days" integer,
	"pseudonym_salt" text NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"last_run_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "researcher_pseudonym" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "pseudonymised_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "body_removed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "erasure_requests" ADD CONSTRAINT "erasure_requests_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "legal_holds" ADD CONSTRAINT "legal_holds_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "retention_policies" ADD CONSTRAINT "retention_policies_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "erasure_requests_company_idx" ON "erasure_requests" USING btree ("company_id","requested_at");--> statement-breakpoint
CREATE INDEX "erasure_requests_report_idx" ON "erasure_requests" USING btree ("report_id");--> statement-breakpoint
CREATE INDEX "legal_holds_company_idx" ON "legal_holds" USING btree ("company_id","released_at");--> statement-breakpoint
-- hand-written SQL below (keep at merge): row-level security as every tenant table (ADR 0009)
alter table "retention_policies" enable row level security;--> statement-breakpoint
alter table "retention_policies" force row level security;--> statement-breakpoint
create policy "retention_policies_tenant" on "retention_policies" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "legal_holds" enable row level security;--> statement-breakpoint
alter table "legal_holds" force row level security;--> statement-breakpoint
create policy "legal_holds_tenant" on "legal_holds" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "erasure_requests" enable row level security;--> statement-breakpoint
alter table "erasure_requests" force row level security;--> statement-breakpoint
create policy "erasure_requests_tenant" on "erasure_requests" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
