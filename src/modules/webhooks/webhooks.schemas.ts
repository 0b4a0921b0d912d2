import { z } from 'zod';
import { WEBHOOK_URL_MAX } from './url-guard.js';

/** Event types a registration may name in `event` (none = every event). */
export const EVENT_TYPES = [
  'vulnerability.reported',
  'vulnerability.status_changed',
  'vulnerability.message',
  'vulnerability.assigned',
  'vulnerability.response_overdue',
  'article14.deadline_approaching',
  'article14.overdue',
  'article14.stage_filed',
  'sbom.ingested',
  'sbom.matched',
  'sarif.ingested',
  'advisory.published',
  'advisory.withdrawn',
  'vulnerability.matched',
  'vulnerability.kev_added',
  'webhook.delivery_dead_lettered',
  'api_key.expiring',
  'webhook.test',
  'case.opened',
  'case.participant_added',
  'case.notified',
  'case.participant_updated',
  'case.embargo_changed',
  'case.message',
  'case.fix_added',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const Secret = z
  .string()
  .min(16, 'secret must be at least 16 characters')
  .max(512, 'secret must be at most 512 characters')
  .refine((s) => {
    if (!s.startsWith('whsec_')) return true;
    const b64 = s.slice('whsec_'.length);
    const bytes = Buffer.from(b64, 'base64');
    return /^[A-Za-z0-9+/]+={0,2}$/.test(b64) && bytes.length >= 24 && bytes.length <= 64;
  }, 'a whsec_ secret must be base64 of 24 to 64 bytes');

export const RegisterWebhookInput = z
  .object({
    url: z
      .string()
      .max(WEBHOOK_URL_MAX)
      .meta({ description: 'The http(s) endpoint that receives signed POSTs.', example: 'https://tickets.example.com/hooks/cradle' }),
    event: z.enum(EVENT_TYPES).optional().meta({ description: 'Only this event type; omit to receive every event.' }),
    secret: Secret.optional().meta({
      description: 'Signing secret. `whsec_<base64>` is used as its decoded bytes, anything else as UTF-8. Omit to have one generated and returned once.',
    }),
  })
  .strict()
  .meta({ id: 'RegisterWebhookInput' });
export type RegisterWebhookInput = z.infer<typeof RegisterWebhookInput>;

const Instant = z.iso.datetime();

/** An endpoint as the company sees it: never its secret. */
export const WebhookView = z
  .object({
    id: z.uuid(),
    url: z.string().meta({
      description:
        "The endpoint. In the list answered to a key without `webhooks:write`, only its origin followed by `/…`: the path is often the endpoint's own credential.",
    }),
    event: z.string().nullable().meta({ description: 'The one event type it receives; null = every event.' }),
    enabled: z.boolean(),
    disabledReason: z.string().nullable(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Webhook' });
export type WebhookView = z.infer<typeof WebhookView>;

export const RegisteredWebhook = WebhookView.extend({
  secret: z.string().optional().meta({ description: 'The generated `whsec_` secret: present only when none was given, and only in this response.' }),
}).meta({ id: 'RegisteredWebhook' });

export const WebhookSecret = z.object({ secret: z.string().meta({ description: 'The new `whsec_` secret, shown once.' }) }).meta({ id: 'WebhookSecret' });

export const Delivery = z
  .object({
    id: z.uuid().meta({ description: 'Also the `webhook-id` header of every attempt.' }),
    webhookId: z.uuid(),
    eventType: z.string(),
    state: z.enum(['pending', 'succeeded', 'dead', 'cancelled']),
    attempts: z.number().int(),
    nextAttemptAt: Instant.nullable(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    lastLatencyMs: z.number().int().nullable(),
    createdAt: Instant,
    finishedAt: Instant.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export type DeliveryView = z.infer<typeof Delivery>;

export const DeliveriesQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(200).optional().meta({ description: 'At most this many deliveries (default 50, at most 200).' }) })
  .strict();

export const TestEventQueued = z.object({ eventId: z.uuid() }).meta({ id: 'WebhookTestQueued' });
export const Redelivered = z.object({ redelivered: z.literal(true) }).meta({ id: 'WebhookRedelivered' });

export const toWebhookView = (r: {
  id: string;
  url: string;
  event: string | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}): WebhookView => ({
  id: r.id,
  url: r.url,
  event: r.event,
  enabled: r.enabled,
  disabledReason: r.disabledReason,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});
