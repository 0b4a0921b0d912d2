CREATE TABLE "report_notes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"author_id" uuid,
	"body" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "response_alerts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"clock" text NOT NULL,
	"due_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "assignee_id" uuid;--> statement-breakpoint
ALTER TABLE "report_notes" ADD CONSTRAINT "report_notes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_notes" ADD CONSTRAINT "report_notes_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_notes" ADD CONSTRAINT "report_notes_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "response_alerts" ADD CONSTRAINT "response_alerts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "response_alerts" ADD CONSTRAINT "response_alerts_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "report_notes_report_idx" ON "report_notes" USING btree ("report_id","created_at");--> statement-breakpoint
CREATE INDEX "report_notes_company_idx" ON "report_notes" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "response_alerts_key" ON "response_alerts" USING btree ("report_id","clock");--> statement-breakpoint
CREATE INDEX "response_alerts_company_idx" ON "response_alerts" USING btree ("company_id");--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_assignee_id_users_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reports_company_assignee_idx" ON "reports" USING btree ("company_id","assignee_id");--> statement-breakpoint
-- hand-written SQL below (keep at merge): row-level security of the new company-scoped tables (ADR 0009)
alter table "report_notes" enable row level security;--> statement-breakpoint
alter table "report_notes" force row level security;--> statement-breakpoint
create policy "report_notes_tenant" on "report_notes" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "response_alerts" enable row level security;--> statement-breakpoint
alter table "response_alerts" force row level security;--> statement-breakpoint
create policy "response_alerts_tenant" on "response_alerts" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
