ALTER TABLE "api_keys" ADD COLUMN "expiry_notice_for" timestamp (3) with time zone;--> statement-breakpoint
-- The expiry notice is Cradle's own bookkeeping, not something authentication reads: like the
-- last-use fields it does not move the key cache's version (ADR 0011).
DROP TRIGGER "api_keys_state_update" ON "api_keys";--> statement-breakpoint
CREATE TRIGGER "api_keys_state_update" AFTER UPDATE ON "api_keys" FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_used_at' - 'last_used_ip' - 'expiry_notice_for') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at' - 'last_used_ip' - 'expiry_notice_for'))
  EXECUTE FUNCTION "cradle_key_state_changed"();
