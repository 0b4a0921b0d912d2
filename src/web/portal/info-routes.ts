import type { FastifyInstance } from 'fastify';
import { portalUrl, siteUrl } from '../../config.js';
import { notFound } from '../../kernel/errors.js';
import { hasReleasedDocuments } from '../../modules/advisories/released-documents.js';
import { landingPage, policyPage } from './landing-page.js';
import { securityTxt } from './security-txt.js';

const HTML = 'text/html; charset=utf-8';

/** The portal's read-only pages: landing, security.txt, the OpenPGP key. */
export async function portalInfoRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;

  app.get('/', async (req, reply) => {
    const c = req.portalCompany;
    const urls = { portal: portalUrl(config, c.slug), bulk: `${siteUrl(config)}/api/portal/batch` };
    return reply.type(HTML).send(landingPage(c, urls));
  });

  // The written policy on a page of its own; without one, the landing page's policy section says so.
  app.get('/policy', async (req, reply) => {
    const c = req.portalCompany;
    if (!c.policyText && !c.safeHarbour) return reply.redirect(c.policyUrl ?? '/#policy', 303);
    return reply.type(HTML).send(policyPage(c));
  });

  // GET and HEAD (Fastify answers HEAD for every GET route).
  app.get('/.well-known/security.txt', async (req, reply) => {
    const c = req.portalCompany;
    return reply
      .header('cache-control', 'public, max-age=3600')
      .type('text/plain; charset=utf-8')
      .send(securityTxt(c, portalUrl(config, c.slug), new Date(), { csaf: await hasReleasedDocuments(database.db, c.id) }));
  });
  // RFC 9116 section 3: the legacy top-level location may redirect to the canonical one.
  app.get('/security.txt', async (_req, reply) => reply.redirect('/.well-known/security.txt', 301));

  app.get('/pgp-key.txt', async (req, reply) => {
    const key = req.portalCompany.pgpPublicKey;
    if (!key) throw notFound('OpenPGP key');
    return reply.header('cache-control', 'public, max-age=3600').type('text/plain; charset=utf-8').send(`${key.trim()}\n`);
  });
}
