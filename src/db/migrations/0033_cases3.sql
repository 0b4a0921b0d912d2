CREATE TABLE "case_attachments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"participant_id" uuid NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "case_attachments" ADD CONSTRAINT "case_attachments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_attachments" ADD CONSTRAINT "case_attachments_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_attachments" ADD CONSTRAINT "case_attachments_message_id_case_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."case_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_attachments" ADD CONSTRAINT "case_attachments_participant_id_case_participants_id_fk" FOREIGN KEY ("participant_id") REFERENCES "public"."case_participants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "case_attachments_message_idx" ON "case_attachments" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "case_attachments_case_idx" ON "case_attachments" USING btree ("case_id");--> statement-breakpoint
CREATE INDEX "case_attachments_company_idx" ON "case_attachments" USING btree ("company_id");--> statement-breakpoint
-- hand-written SQL below (keep at merge): row-level security of the new company-scoped table (ADR 0009)
alter table "case_attachments" enable row level security;--> statement-breakpoint
alter table "case_attachments" force row level security;--> statement-breakpoint
create policy "case_attachments_tenant" on "case_attachments" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
