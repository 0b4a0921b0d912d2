CREATE TABLE "case_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"participant_id" uuid,
	"actor" text NOT NULL,
	"kind" text NOT NULL,
	"details" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "case_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"participant_id" uuid NOT NULL,
	"author" text NOT NULL,
	"author_id" text,
	"body" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "case_notices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"participant_id" uuid NOT NULL,
	"case_version" integer NOT NULL,
	"channel" text NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"shared_body" text,
	"encrypted" text NOT NULL,
	"state" text NOT NULL,
	"prepared_by" text NOT NULL,
	"prepared_at" timestamp (3) with time zone NOT NULL,
	"sent_by" text,
	"sent_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "case_participants" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"role" text NOT NULL,
	"name" text NOT NULL,
	"channel" text NOT NULL,
	"address" text,
	"pgp_key" text,
	"status" text NOT NULL,
	"notified_at" timestamp (3) with time zone,
	"acknowledged_at" timestamp (3) with time zone,
	"fix_available_at" timestamp (3) with time zone,
	"embargo_response" text NOT NULL,
	"embargo_counter_until" date,
	"link_token_digest" text,
	"peer_company_id" uuid,
	"peer_report_id" uuid,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "case_reports" (
	"company_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"added_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "case_reports_case_id_report_id_pk" PRIMARY KEY("case_id","report_id")
);
--> statement-breakpoint
CREATE TABLE "cases" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"title" text NOT NULL,
	"summary" text,
	"origin" text NOT NULL,
	"origin_ref" text,
	"state" text NOT NULL,
	"embargo_state" text NOT NULL,
	"embargo_until" date,
	"embargo_ended_at" timestamp (3) with time zone,
	"embargo_end_reason" text,
	"version" integer NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "case_events" ADD CONSTRAINT "case_events_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_events" ADD CONSTRAINT "case_events_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_messages" ADD CONSTRAINT "case_messages_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_messages" ADD CONSTRAINT "case_messages_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_messages" ADD CONSTRAINT "case_messages_participant_id_case_participants_id_fk" FOREIGN KEY ("participant_id") REFERENCES "public"."case_participants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_notices" ADD CONSTRAINT "case_notices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_notices" ADD CONSTRAINT "case_notices_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_notices" ADD CONSTRAINT "case_notices_participant_id_case_participants_id_fk" FOREIGN KEY ("participant_id") REFERENCES "public"."case_participants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_participants" ADD CONSTRAINT "case_participants_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_participants" ADD CONSTRAINT "case_participants_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_reports" ADD CONSTRAINT "case_reports_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_reports" ADD CONSTRAINT "case_reports_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_reports" ADD CONSTRAINT "case_reports_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "case_events_case_idx" ON "case_events" USING btree ("case_id","created_at");--> statement-breakpoint
CREATE INDEX "case_events_company_idx" ON "case_events" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "case_messages_case_idx" ON "case_messages" USING btree ("case_id","created_at");--> statement-breakpoint
CREATE INDEX "case_messages_company_idx" ON "case_messages" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "case_notices_case_idx" ON "case_notices" USING btree ("case_id");--> statement-breakpoint
CREATE INDEX "case_notices_company_idx" ON "case_notices" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "case_participants_case_idx" ON "case_participants" USING btree ("case_id");--> statement-breakpoint
CREATE INDEX "case_participants_company_idx" ON "case_participants" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "case_participants_peer_idx" ON "case_participants" USING btree ("peer_company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "case_participants_link_key" ON "case_participants" USING btree ("link_token_digest");--> statement-breakpoint
CREATE INDEX "case_reports_report_idx" ON "case_reports" USING btree ("report_id");--> statement-breakpoint
CREATE INDEX "case_reports_company_idx" ON "case_reports" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "cases_company_updated_idx" ON "cases" USING btree ("company_id","updated_at");--> statement-breakpoint
-- hand-written SQL below (keep at merge)
-- Row-level security on every company-scoped table of the case model (ADR 0009).
alter table "cases" enable row level security;--> statement-breakpoint
alter table "cases" force row level security;--> statement-breakpoint
create policy "cases_tenant" on "cases" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "case_reports" enable row level security;--> statement-breakpoint
alter table "case_reports" force row level security;--> statement-breakpoint
create policy "case_reports_tenant" on "case_reports" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "case_participants" enable row level security;--> statement-breakpoint
alter table "case_participants" force row level security;--> statement-breakpoint
create policy "case_participants_tenant" on "case_participants" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "case_notices" enable row level security;--> statement-breakpoint
alter table "case_notices" force row level security;--> statement-breakpoint
create policy "case_notices_tenant" on "case_notices" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "case_messages" enable row level security;--> statement-breakpoint
alter table "case_messages" force row level security;--> statement-breakpoint
create policy "case_messages_tenant" on "case_messages" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "case_events" enable row level security;--> statement-breakpoint
alter table "case_events" force row level security;--> statement-breakpoint
create policy "case_events_tenant" on "case_events" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
