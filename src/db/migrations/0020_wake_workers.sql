-- Work queued for a background worker wakes it when the writing transaction commits, whoever wrote
-- it (REST, MCP, dashboard, portal, a worker, the CLI, another instance): NOTIFY is delivered at
-- commit, and each worker listens on its channel (src/db/wake-channels.ts). Nothing calls a worker
-- by hand. Statement-level with a transition table: one notification per statement that added rows,
-- however many (a batch of filings), none for a statement that added none. Notifications of one
-- transaction with the same channel and payload are folded into one by PostgreSQL.
CREATE OR REPLACE FUNCTION "cradle_wake_on_added"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "added") THEN
    PERFORM pg_notify(TG_ARGV[0], '');
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- A row-level wake for a row that became due again (a dead or delivered webhook delivery sent again).
CREATE OR REPLACE FUNCTION "cradle_wake_on_row"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_ARGV[0], '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "cradle_wake_outbox_events" AFTER INSERT ON "outbox_events" REFERENCING NEW TABLE AS "added"
  FOR EACH STATEMENT EXECUTE FUNCTION "cradle_wake_on_added"('cradle_wake_webhooks');
--> statement-breakpoint
CREATE TRIGGER "cradle_wake_webhook_deliveries" AFTER UPDATE OF "state" ON "webhook_deliveries"
  FOR EACH ROW WHEN (NEW."state" = 'pending' AND OLD."state" IS DISTINCT FROM 'pending')
  EXECUTE FUNCTION "cradle_wake_on_row"('cradle_wake_webhooks');
--> statement-breakpoint
CREATE TRIGGER "cradle_wake_mail_messages" AFTER INSERT ON "mail_messages" REFERENCING NEW TABLE AS "added"
  FOR EACH STATEMENT EXECUTE FUNCTION "cradle_wake_on_added"('cradle_wake_mail');
--> statement-breakpoint
CREATE TRIGGER "cradle_wake_triage_jobs" AFTER INSERT ON "triage_jobs" REFERENCING NEW TABLE AS "added"
  FOR EACH STATEMENT EXECUTE FUNCTION "cradle_wake_on_added"('cradle_wake_triage');
