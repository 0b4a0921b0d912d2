-- Webhook signing secrets are stored sealed under the operator key (ADR 0016). Rows stored before
-- are tagged `plain:` here; the server seals them at its next start (src/modules/webhooks/
-- seal-webhook-secrets.ts), and reading opens only sealed values. The update runs as Cradle's own
-- cross-company code: the tables' policies bind their owner too (0005).
select set_config('cradle.system', 'on', true);--> statement-breakpoint
update "webhooks" set "secret" = 'plain:' || "secret" where "secret" not like 'sb1.%' and "secret" not like 'plain:%';--> statement-breakpoint
update "webhooks" set "previous_secret" = 'plain:' || "previous_secret" where "previous_secret" is not null and "previous_secret" not like 'sb1.%' and "previous_secret" not like 'plain:%';--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_secret_sealed_check" CHECK ("webhooks"."secret" like 'sb1.%' or "webhooks"."secret" like 'plain:%');--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_previous_secret_sealed_check" CHECK ("webhooks"."previous_secret" is null or "webhooks"."previous_secret" like 'sb1.%' or "webhooks"."previous_secret" like 'plain:%');