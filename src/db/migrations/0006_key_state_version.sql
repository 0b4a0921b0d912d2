CREATE TABLE "key_state_version" (
	"one" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "key_state_version_one_row" CHECK ("key_state_version"."one")
);
--> statement-breakpoint
INSERT INTO "key_state_version" ("one", "version") VALUES (true, 0);--> statement-breakpoint
-- Raised in the same transaction as the change, so a reader that sees the new version sees the
-- change (ADR 0011). Whole-statement triggers for deletions and truncations (a company deleted with
-- many keys raises it once per statement); row triggers for updates of what the key cache holds:
-- every api_keys column but the last-use fields (the audit writer's, once a minute per key), and a
-- company's plan. Caching another company column means widening the companies trigger.
CREATE FUNCTION "cradle_key_state_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "key_state_version" SET "version" = "version" + 1;
  PERFORM pg_notify('cradle_key_state', '');
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "api_keys_state_update" AFTER UPDATE ON "api_keys" FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_used_at' - 'last_used_ip') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at' - 'last_used_ip'))
  EXECUTE FUNCTION "cradle_key_state_changed"();--> statement-breakpoint
CREATE TRIGGER "api_keys_state_delete" AFTER DELETE OR TRUNCATE ON "api_keys" FOR EACH STATEMENT EXECUTE FUNCTION "cradle_key_state_changed"();--> statement-breakpoint
CREATE TRIGGER "companies_state_update" AFTER UPDATE ON "companies" FOR EACH ROW
  WHEN (OLD."plan" IS DISTINCT FROM NEW."plan" OR OLD."id" IS DISTINCT FROM NEW."id")
  EXECUTE FUNCTION "cradle_key_state_changed"();--> statement-breakpoint
CREATE TRIGGER "companies_state_delete" AFTER DELETE OR TRUNCATE ON "companies" FOR EACH STATEMENT EXECUTE FUNCTION "cradle_key_state_changed"();
