CREATE TABLE "case_fixes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"body" text NOT NULL,
	"osv_draft" jsonb,
	"created_by" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "case_fixes" ADD CONSTRAINT "case_fixes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_fixes" ADD CONSTRAINT "case_fixes_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "case_fixes_case_idx" ON "case_fixes" USING btree ("case_id","created_at");--> statement-breakpoint
CREATE INDEX "case_fixes_company_idx" ON "case_fixes" USING btree ("company_id");--> statement-breakpoint
-- hand-written SQL below (keep at merge): row-level security of the new company-scoped table (ADR 0009)
alter table "case_fixes" enable row level security;--> statement-breakpoint
alter table "case_fixes" force row level security;--> statement-breakpoint
create policy "case_fixes_tenant" on "case_fixes" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
