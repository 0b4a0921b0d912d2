import type { FastifyInstance } from 'fastify';
import { requestContext } from '../../http/request-context.js';
import { confirmResearcherMail, stopResearcherMail } from '../../modules/reports/stop-researcher-mail.js';
import { html } from '../html.js';
import { page } from '../layout.js';

type Params = { Params: { reportId: string; token: string } };

/**
 * `{portal_url}/mail/stop/{report}/{token}`: the researcher's unsubscribe link. GET asks (a link
 * scanner must not unsubscribe anyone), POST stops the mails; mail providers' one-click
 * unsubscribe (RFC 8058) posts to the same URL. `{portal_url}/mail/confirm/{report}/{token}`: the
 * link of the first mail, the same way (GET asks, POST confirms). Neither page shows report text
 * or the status link (docs/intake.md "E-mail updates").
 */
export async function portalMailStopRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const shell = (brand: string, title: string, body: ReturnType<typeof html>) => page({ title, brand, body });
  /** The GET of a mail link: says what the POST would do and offers its button (a link scanner changes nothing). */
  const ask = (what: 'stop' | 'confirm', title: string, text: (company: string, reportId: string) => ReturnType<typeof html>, button: string) =>
    app.get<Params>(`/mail/${what}/:reportId/:token`, async (req, reply) => {
      const c = req.portalCompany;
      reply.header('x-robots-tag', 'noindex, nofollow').type('text/html; charset=utf-8');
      return shell(
        c.name,
        title,
        html`<h1>${title}</h1><p>${text(c.name, req.params.reportId)}</p>
<form method="post" action="/mail/${what}/${req.params.reportId}/${req.params.token}"><button type="submit">${button}</button></form>`,
      );
    });
  ask(
    'stop',
    'Stop e-mail about your report',
    (company, id) => html`${company} will send no more e-mail about report <code>${id}</code>. Your private status link keeps working.`,
    'Stop these e-mails',
  );
  app.post<Params>('/mail/stop/:reportId/:token', { bodyLimit: 1024 }, async (req, reply) => {
    const c = req.portalCompany;
    await stopResearcherMail(db, requestContext(req, { type: 'public' }), c.id, req.params.reportId, req.params.token);
    reply.type('text/html; charset=utf-8');
    return shell(c.name, 'E-mail stopped', html`<h1>E-mail stopped</h1><p>${c.name} will send no more e-mail about this report.</p>`);
  });
  ask(
    'confirm',
    'Confirm e-mail about your report',
    (company, id) =>
      html`Confirm only if you filed report <code>${id}</code> with ${company} and asked for e-mail updates at this address. If you did not, close this page: nothing more is sent.`,
    'Confirm this address',
  );
  app.post<Params>('/mail/confirm/:reportId/:token', { bodyLimit: 1024 }, async (req, reply) => {
    const c = req.portalCompany;
    const wanted = await confirmResearcherMail(db, requestContext(req, { type: 'public' }), c.id, req.params.reportId, req.params.token);
    reply.type('text/html; charset=utf-8');
    return wanted
      ? shell(
          c.name,
          'Address confirmed',
          html`<h1 id="mail-confirmed">Address confirmed</h1><p>${c.name} will e-mail you when the status of your report changes or the team writes. Read and answer at the private status link you were shown when you filed the report.</p>`,
        )
      : shell(c.name, 'E-mail stopped', html`<h1>E-mail stopped</h1><p>E-mail about this report was stopped; there is nothing to confirm.</p>`);
  });
}
