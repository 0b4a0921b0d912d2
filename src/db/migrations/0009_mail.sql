CREATE TABLE "mail_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"user_id" uuid,
	"report_id" uuid,
	"data" jsonb,
	"dedupe_key" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"encrypted" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "mail_preferences" (
	"user_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"enabled" boolean NOT NULL,
	CONSTRAINT "mail_preferences_user_id_kind_pk" PRIMARY KEY("user_id","kind")
);
--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "researcher_updates" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "researcher_mail_token" text;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_preferences" ADD CONSTRAINT "mail_preferences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_preferences" ADD CONSTRAINT "mail_preferences_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_messages_due_idx" ON "mail_messages" USING btree ("next_attempt_at") WHERE "mail_messages"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "mail_messages_recipient_sent_idx" ON "mail_messages" USING btree (lower("recipient"),"finished_at") WHERE "mail_messages"."state" = 'sent';--> statement-breakpoint
CREATE INDEX "mail_messages_company_idx" ON "mail_messages" USING btree ("company_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_messages_dedupe_key" ON "mail_messages" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "mail_preferences_company_idx" ON "mail_preferences" USING btree ("company_id");--> statement-breakpoint
-- hand-written SQL below (keep at merge)
alter table "mail_messages" enable row level security;--> statement-breakpoint
alter table "mail_messages" force row level security;--> statement-breakpoint
create policy "mail_messages_tenant" on "mail_messages" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "mail_preferences" enable row level security;--> statement-breakpoint
alter table "mail_preferences" force row level security;--> statement-breakpoint
create policy "mail_preferences_tenant" on "mail_preferences" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
