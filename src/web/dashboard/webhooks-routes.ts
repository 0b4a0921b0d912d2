import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { endpointHealth, listDeliveries, redeliver, sendTestEvent } from '../../modules/webhooks/delivery-log.js';
import { deleteWebhook, getWebhook, listWebhooks, registerWebhook, rotateWebhookSecret, setWebhookEnabled } from '../../modules/webhooks/webhook-endpoints.js';
import { WEBHOOKS_PATH, type WebhookFormValues, webhookPage, webhooksPage } from './webhooks-page.js';
import { optionalField } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';

const NOTICES: Record<string, string> = {
  test: 'A test event was queued; it appears below within a few seconds.',
  redelivered: 'The delivery was queued to be sent again.',
  enabled: 'The endpoint is enabled.',
  disabled: 'The endpoint is disabled; its pending deliveries were cancelled.',
  deleted: 'The endpoint and its delivery log were deleted.',
};

/**
 * The webhooks pages of the dashboard (issue 9 "Observability"): registered inside the dashboard
 * plugin, so its sign-in, same-origin and CSRF checks run first. Every action calls the same verb
 * as the REST API and answers with a redirect (post/redirect/get), except those that show a secret.
 */
export function webhookDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const allowPrivate = app.deps.config.webhookAllowPrivateNetworks;
  const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);
  const notice = (q: unknown) => {
    const text = NOTICES[optionalField((q as { done?: unknown } | undefined)?.done) ?? ''];
    return text ? { kind: 'ok' as const, text } : undefined;
  };
  const listPage = async (req: FastifyRequest, extra: Partial<Parameters<typeof webhooksPage>[0]> = {}) =>
    webhooksPage({
      session: req.session,
      hooks: await listWebhooks(db, req.session.company.id),
      health: await endpointHealth(db, req.session.company.id),
      ...extra,
    });

  app.get(WEBHOOKS_PATH, async (req, reply) => sendHtml(reply, await listPage(req, { notice: notice(req.query) })));

  app.post(WEBHOOKS_PATH, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values: WebhookFormValues = { url: optionalField(body.url)?.trim(), event: optionalField(body.event), secret: optionalField(body.secret) };
    const input = { url: values.url ?? '', ...(values.event ? { event: values.event } : {}), ...(values.secret ? { secret: values.secret } : {}) };
    try {
      const hook = await registerWebhook(db, ctxOf(req), req.session.company.id, input, { allowPrivate });
      return sendHtml(reply, await listPage(req, { issuedSecret: hook.secret, notice: { kind: 'ok', text: 'The endpoint was added.' } }), 201);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      const errors = fieldSentences(e.extra.issues ?? [], {}, 'url');
      if (Object.keys(errors).length === 0) errors.url = e.message;
      return sendHtml(reply, await listPage(req, { values, errors, notice: { kind: 'bad', text: 'Please correct the marked fields.' } }), 400);
    }
  });

  const detail = async (
    req: FastifyRequest<{ Params: { id: string } }>,
    extra: { rotatedSecret?: string; notice?: { kind: 'ok' | 'bad'; text: string } } = {},
  ) => {
    const hook = await getWebhook(db, req.session.company.id, req.params.id);
    const deliveries = await listDeliveries(db, req.session.company.id, hook.id, { limit: 100 });
    return webhookPage({ session: req.session, hook, deliveries, ...extra });
  };
  const back = (reply: FastifyReply, id: string, done: string) => reply.redirect(`${WEBHOOKS_PATH}/${id}?done=${done}`, 303);

  app.get<{ Params: { id: string } }>(`${WEBHOOKS_PATH}/:id`, async (req, reply) => sendHtml(reply, await detail(req, { notice: notice(req.query) })));

  app.post<{ Params: { id: string } }>(`${WEBHOOKS_PATH}/:id/test`, async (req, reply) => {
    await sendTestEvent(db, ctxOf(req), req.session.company.id, req.params.id);
    return back(reply, req.params.id, 'test');
  });

  app.post<{ Params: { id: string } }>(`${WEBHOOKS_PATH}/:id/enabled`, async (req, reply) => {
    const enabled = optionalField((req.body as Record<string, unknown> | undefined)?.enabled) === 'true';
    await setWebhookEnabled(db, ctxOf(req), { companyId: req.session.company.id, id: req.params.id, enabled });
    return back(reply, req.params.id, enabled ? 'enabled' : 'disabled');
  });

  app.post<{ Params: { id: string } }>(`${WEBHOOKS_PATH}/:id/rotate`, async (req, reply) => {
    const { secret } = await rotateWebhookSecret(db, ctxOf(req), { companyId: req.session.company.id, id: req.params.id });
    return sendHtml(reply, await detail(req, { rotatedSecret: secret, notice: { kind: 'ok', text: 'The secret was rotated.' } }));
  });

  app.post<{ Params: { id: string } }>(`${WEBHOOKS_PATH}/:id/delete`, async (req, reply) => {
    await deleteWebhook(db, ctxOf(req), req.session.company.id, req.params.id);
    return reply.redirect(`${WEBHOOKS_PATH}?done=deleted`, 303);
  });

  app.post<{ Params: { id: string; deliveryId: string } }>(`${WEBHOOKS_PATH}/:id/deliveries/:deliveryId/redeliver`, async (req, reply) => {
    // The endpoint must be the company's, and the delivery the company's (the verb checks it).
    await getWebhook(db, req.session.company.id, req.params.id);
    await redeliver(db, ctxOf(req), req.session.company.id, req.params.deliveryId);
    return back(reply, req.params.id, 'redelivered');
  });
}
