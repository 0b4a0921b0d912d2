import { z } from 'zod';
import { WEBHOOK_URL_MAX } from './url-guard.js';

/** Event types a registration may name in `event` (none = every event). */
export const EVENT_TYPES = [
  'vulnerability.reported',
  'vulnerability.status_changed',
  'article14.deadline_approaching',
  'article14.stage_filed',
  'sbom.ingested',
  'sarif.ingested',
  'advisory.published',
  'webhook.delivery_dead_lettered',
  'webhook.test',
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
    url: z.string().max(WEBHOOK_URL_MAX).meta({ description: 'The http(s) endpoint that receives signed POSTs.', example: 'https://tickets.example.com/hooks/cradle' }),
    event: z.enum(EVENT_TYPES).optional().meta({ description: 'Only this event type; omit to receive every event.' }),
    secret: Secret.optional().meta({
      description: 'Signing secret. `whsec_<base64>` is used as its decoded bytes, anything else as UTF-8. Omit to have one generated and returned once.',
    }),
  })
  .strict()
  .meta({ id: 'RegisterWebhookInput' });
export type RegisterWebhookInput = z.infer<typeof RegisterWebhookInput>;

export type WebhookView = {
  id: string;
  url: string;
  event: string | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
};

export const toWebhookView = (r: {
  id: string; url: string; event: string | null; enabled: boolean; disabledReason: string | null; createdAt: Date; updatedAt: Date;
}): WebhookView => ({
  id: r.id,
  url: r.url,
  event: r.event,
  enabled: r.enabled,
  disabledReason: r.disabledReason,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});
