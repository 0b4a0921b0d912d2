import type { FastifyInstance } from 'fastify';
import { portalUrl, siteUrl } from '../config.js';
import { asSystem } from '../db/tenant-scope.js';
import { requestContext } from '../http/request-context.js';
import { isAppError } from '../kernel/errors.js';
import { completeSetup, needsSetup } from '../modules/instance/setup.js';
import { html } from './html.js';
import { page } from './layout.js';
import { setupPage, type SetupValues } from './pages/setup-page.js';
import { addressBucket } from '../http/client-address.js';
import { setSessionCookie } from '../http/session-auth.js';
import { optionalField } from './form-fields.js';
import { fieldSentences } from './issue-sentences.js';

/** Site pages (zone `site`): the home page and first-run set-up. */
export async function siteRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;

  app.get('/', async (_req, reply) => {
    if (await asSystem(() => needsSetup(database.db))) return reply.redirect('/setup', 303);
    return reply.type('text/html; charset=utf-8').send(
      page({
        title: 'Cradle',
        brand: 'Cradle',
        nav: [{ href: '/login', label: 'Sign in' }],
        body: html`<h1>Cradle</h1>
<p class="lead">Coordinated vulnerability disclosure and EU Cyber Resilience Act compliance for manufacturers
of products with digital elements.</p>
<p>Security researchers: report to a manufacturer through its portal at
<code>${portalUrl(config, 'slug')}</code>, or to several at once through
<code>${siteUrl(config)}/api/portal/batch</code>.</p>`,
      }),
    );
  });

  app.get('/setup', async (_req, reply) => {
    if (!(await asSystem(() => needsSetup(database.db)))) return reply.redirect('/', 303);
    return reply.type('text/html; charset=utf-8').send(setupPage({}, {}));
  });

  app.post('/setup', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values: SetupValues = {
      token: optionalField(body.token),
      companyName: optionalField(body.companyName),
      slug: optionalField(body.slug)?.trim().toLowerCase(),
      email: optionalField(body.email),
      plan: optionalField(body.plan),
    };
    try {
      // Instance set-up comes before any company: Cradle's own work, not a tenant's.
      const ctx = requestContext(req, { type: 'public' });
      const origin = { address: addressBucket(req.ip ?? 'unknown'), userAgent: ctx.userAgent };
      const { company, session } = await asSystem(() => completeSetup(database.db, ctx, { ...values, password: optionalField(body.password) }, origin));
      req.log.info({ companyId: company.id, slug: company.slug }, 'first-run set-up completed');
      // Signed in by the set-up itself: the overview's getting-started checklist takes it from here.
      setSessionCookie(reply, config, session.token);
      return reply.redirect('/dashboard?welcome=1', 303);
    } catch (e) {
      if (!isAppError(e)) throw e;
      if (e.code === 'CONFLICT' && !(await asSystem(() => needsSetup(database.db)))) return reply.redirect('/', 303);
      const errors = fieldSentences(e.extra.issues ?? []);
      const status = e.code === 'FORBIDDEN' ? 403 : e.code === 'CONFLICT' ? 409 : 400;
      return reply
        .code(status)
        .type('text/html; charset=utf-8')
        .send(setupPage(values, errors, Object.keys(errors).length ? 'Please correct the marked fields.' : e.message));
    }
  });
}
