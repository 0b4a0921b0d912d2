import { z } from 'zod';
import { type Operation, defineOperation } from '../operations/operation.js';
import { parseInput } from '../../kernel/validate.js';
import { listDeliveries, redeliver, sendTestEvent } from './delivery-log.js';
import { deleteWebhook, listWebhooks, MAX_WEBHOOKS_PER_COMPANY, registerWebhook, rotateWebhookSecret, setWebhookEnabled } from './webhook-endpoints.js';
import { maskWebhookUrl } from './url-guard.js';
import {
  DeliveriesQuery,
  Delivery,
  RegisteredWebhook,
  Redelivered,
  RegisterWebhookInput,
  TestEventQueued,
  WebhookSecret,
  WebhookView,
} from './webhooks.schemas.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const Enabled = z.object({ enabled: z.boolean() }).strict().meta({ id: 'SetWebhookEnabledInput' });

/** `POST {base_url}/webhooks/register` (docs/architecture.md "Events and webhooks"), plus listing, deletion and the delivery log. */
export const webhookOperations: Operation[] = [
  defineOperation({
    name: 'webhooks.register',
    statuses: [201],
    summary: 'Register a webhook endpoint (a secret is generated and returned once when none is given)',
    scope: 'webhooks:write',
    method: 'POST',
    path: '/webhooks/register',
    mcpTool: 'register_webhook',
    // The server will post the company's events to the given URL, outside Cradle.
    mcpAnnotations: { openWorldHint: true },
    input: RegisterWebhookInput,
    output: RegisteredWebhook,
    errors: { 409: `The company already has ${MAX_WEBHOOKS_PER_COMPANY} endpoints, the most it may register.` },
    example: { body: { url: 'https://tickets.example.com/hooks/cradle', event: 'vulnerability.reported' } },
    handler: async ({ db, ctx, companyId, config }, body) => ({
      status: 201,
      body: await registerWebhook(db, ctx, companyId, body, { allowPrivate: config.webhookAllowPrivateNetworks }),
    }),
  }),
  defineOperation({
    name: 'webhooks.list',
    access: 'read-admin',
    summary: "The company's webhook endpoints (never their secrets; a key without `webhooks:write` sees each URL without its path and query)",
    scope: 'read',
    method: 'GET',
    path: '/webhooks',
    output: z.array(WebhookView).meta({ id: 'WebhookList' }),
    example: {},
    handler: async ({ db, companyId, keyHas }) => {
      const hooks = await listWebhooks(db, companyId);
      // An endpoint's path often is its own credential (chat and ticketing webhooks): a read-only
      // key sees where events go, not how to post there (issue 24).
      return { status: 200, body: keyHas?.('webhooks:write') === false ? hooks.map((h) => ({ ...h, url: maskWebhookUrl(h.url) })) : hooks };
    },
  }),
  defineOperation({
    name: 'webhooks.update',
    summary: 'Enable or disable an endpoint (disabling cancels its pending deliveries)',
    scope: 'webhooks:write',
    method: 'PATCH',
    path: '/webhooks/:id',
    input: Enabled,
    output: WebhookView,
    example: { params: { id: EXAMPLE_ID }, body: { enabled: false } },
    handler: async ({ db, ctx, companyId, params }, body) => ({
      status: 200,
      body: await setWebhookEnabled(db, ctx, { companyId, id: params.id, enabled: parseInput(Enabled, body).enabled }),
    }),
  }),
  defineOperation({
    name: 'webhooks.delete',
    statuses: [204],
    summary: 'Delete an endpoint and its delivery log',
    scope: 'webhooks:write',
    method: 'DELETE',
    path: '/webhooks/:id',
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, ctx, companyId, params }) => {
      await deleteWebhook(db, ctx, companyId, params.id);
      return { status: 204, body: undefined };
    },
  }),
  defineOperation({
    name: 'webhooks.rotate_secret',
    summary: 'Issue a new signing secret; the old one keeps signing beside it for 24 hours',
    scope: 'webhooks:write',
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
    output: WebhookSecret,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, ctx, companyId, params }) => ({ status: 200, body: await rotateWebhookSecret(db, ctx, { companyId, id: params.id }) }),
  }),
  defineOperation({
    name: 'webhooks.deliveries',
    access: 'read-admin',
    summary: "An endpoint's deliveries, newest first: state, attempts, last status, latency and error",
    scope: 'read',
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    query: DeliveriesQuery,
    output: z.array(Delivery).meta({ id: 'WebhookDeliveryList' }),
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params, query }) => ({
      status: 200,
      body: await listDeliveries(db, companyId, params.id, parseInput(DeliveriesQuery, query)),
    }),
  }),
  defineOperation({
    name: 'webhooks.test',
    statuses: [202],
    summary: 'Send a webhook.test event to this endpoint only',
    scope: 'webhooks:write',
    method: 'POST',
    path: '/webhooks/:id/test',
    output: TestEventQueued,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, ctx, companyId, params }) => {
      const r = await sendTestEvent(db, ctx, companyId, params.id);
      return { status: 202, body: r };
    },
  }),
  defineOperation({
    name: 'webhooks.redeliver',
    statuses: [202],
    summary: 'Send a finished delivery again, with its original webhook-id',
    scope: 'webhooks:write',
    method: 'POST',
    path: '/webhooks/deliveries/:id/redeliver',
    output: Redelivered,
    errors: { 409: 'The endpoint is disabled, or the delivery is still pending.' },
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, ctx, companyId, params }) => {
      await redeliver(db, ctx, companyId, params.id);
      return { status: 202, body: { redelivered: true } };
    },
  }),
];
