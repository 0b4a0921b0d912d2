import type { FastifyInstance } from 'fastify';
import { requestContext } from '../../http/request-context.js';
import { stopResearcherMail } from '../../modules/reports/stop-researcher-mail.js';
import { html } from '../html.js';
import { page } from '../layout.js';

type Params = { Params: { reportId: string; token: string } };

/**
 * `{portal_url}/mail/stop/{report}/{token}`: the researcher's unsubscribe link. GET asks (a link
 * scanner must not unsubscribe anyone), POST stops the mails; mail providers' one-click
 * unsubscribe (RFC 8058) posts to the same URL.
 */
export async function portalMailStopRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const shell = (brand: string, title: string, body: ReturnType<typeof html>) => page({ title, brand, body });
  app.get<Params>('/mail/stop/:reportId/:token', async (req, reply) => {
    const c = req.portalCompany;
    reply.header('x-robots-tag', 'noindex, nofollow').type('text/html; charset=utf-8');
    return shell(
      c.name,
      'Stop e-mail about your report',
      html`<h1>Stop e-mail about your report</h1><p>${c.name} will send no more e-mail about report <code>${req.params.reportId}</code>. Your private status link keeps working.</p>
<form method="post" action="/mail/stop/${req.params.reportId}/${req.params.token}"><button type="submit">Stop these e-mails</button></form>`,
    );
  });
  app.post<Params>('/mail/stop/:reportId/:token', { bodyLimit: 1024 }, async (req, reply) => {
    const c = req.portalCompany;
    await stopResearcherMail(db, requestContext(req, { type: 'public' }), c.id, req.params.reportId, req.params.token);
    reply.type('text/html; charset=utf-8');
    return shell(c.name, 'E-mail stopped', html`<h1>E-mail stopped</h1><p>${c.name} will send no more e-mail about this report.</p>`);
  });
}
