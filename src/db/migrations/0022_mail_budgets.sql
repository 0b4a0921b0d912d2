ALTER TABLE "reports" ADD COLUMN "researcher_confirmed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD COLUMN "digest_id" uuid;--> statement-breakpoint
CREATE INDEX "mail_messages_digest_idx" ON "mail_messages" USING btree ("digest_id") WHERE "mail_messages"."digest_id" is not null;--> statement-breakpoint
-- hand-written SQL below (keep at merge)
-- Issue 32, finding 4: mail about a report now waits until the researcher confirms the address from
-- the first mail. Opt-ins stored before this rule already got the acknowledgement under the old one;
-- they count as confirmed, so their status and message mails go on. Cradle's own cross-company
-- work: the table's policy binds its owner too (0005).
select set_config('cradle.system', 'on', true);--> statement-breakpoint
update "reports" set "researcher_confirmed_at" = "created_at" where "researcher_updates" and "researcher_confirmed_at" is null;
