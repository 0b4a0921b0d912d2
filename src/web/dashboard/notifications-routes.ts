import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { mailOverview, setTeamMailChoices, teamMailChoices } from '../../modules/mail/mail-preferences.js';
import { NOTIFICATIONS_PATH, notificationsPage } from './notifications-page.js';
import { listField } from '../form-fields.js';

/** `/settings/notifications`: each member's own e-mail choices and the company's mail status. */
export function notificationDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const render = async (req: FastifyRequest, notice?: string) => {
    const s = req.session;
    const [choices, overview] = await Promise.all([teamMailChoices(db, s.company.id, s.user.id), mailOverview(db, s.company.id)]);
    return notificationsPage({ session: s, config: app.deps.config, choices, overview, notice });
  };
  app.get(NOTIFICATIONS_PATH, async (req, reply) =>
    reply.type('text/html; charset=utf-8').send(await render(req, (req.query as { saved?: string }).saved ? 'Your choices were saved.' : undefined)),
  );
  app.post(NOTIFICATIONS_PATH, async (req, reply) => {
    const chosen = new Set(listField((req.body as Record<string, unknown> | undefined)?.kind));
    await setTeamMailChoices(db, ctxOf(req), req.session.company.id, req.session.user.id, chosen);
    return reply.redirect(`${NOTIFICATIONS_PATH}?saved=1`, 303);
  });
}
