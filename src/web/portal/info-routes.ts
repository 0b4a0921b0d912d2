import type { FastifyInstance } from 'fastify';
import { portalUrl, siteUrl } from '../../config.js';
import { notFound } from '../../kernel/errors.js';
import { publicCredits } from '../../modules/advisories/public-credits.js';
import { hasReleasedDocuments } from '../../modules/advisories/released-documents.js';
import { acknowledgmentsPage } from './acknowledgments-page.js';
import { landingPage, policyPage } from './landing-page.js';
import { securityTxt, SIGNING_KEY_PATH } from './security-txt.js';

const HTML = 'text/html; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
/** Public, slow-changing texts (security.txt, keys): an hour in shared caches. */
const CACHE_TEXT = 'public, max-age=3600';
/** Pages derived from released advisories: as the advisory pages (src/web/portal/csaf-routes.ts). */
const CACHE_ADVISORY_PAGES = 'public, max-age=300';

/** The portal's read-only pages: landing, policy, acknowledgments, security.txt, the OpenPGP keys. */
export async function portalInfoRoutes(app: FastifyInstance): Promise<void> {
  const { config, database, securityTxtSigner: signer } = app.deps;
  const signing = signer ? { fingerprint: signer.fingerprint, keyPath: SIGNING_KEY_PATH } : undefined;

  app.get('/', async (req, reply) => {
    const c = req.portalCompany;
    const urls = { portal: portalUrl(config, c.slug), bulk: `${siteUrl(config)}/api/portal/batch` };
    return reply.type(HTML).send(landingPage(c, urls, { signing }));
  });

  // The written policy on a page of its own; without one, the landing page's policy section says so.
  app.get('/policy', async (req, reply) => {
    const c = req.portalCompany;
    if (!c.policyText && !c.safeHarbour) return reply.redirect(c.policyUrl ?? '/#policy', 303);
    return reply.type(HTML).send(policyPage(c));
  });

  app.get('/acknowledgments', async (req, reply) => {
    const c = req.portalCompany;
    return reply
      .header('cache-control', CACHE_ADVISORY_PAGES)
      .type(HTML)
      .send(acknowledgmentsPage(c, await publicCredits(database.db, c.id)));
  });

  // GET and HEAD (Fastify answers HEAD for every GET route).
  app.get('/.well-known/security.txt', async (req, reply) => {
    const c = req.portalCompany;
    const [csaf, credits] = await Promise.all([hasReleasedDocuments(database.db, c.id), publicCredits(database.db, c.id)]);
    const text = securityTxt(c, portalUrl(config, c.slug), new Date(), {
      csaf,
      acknowledgments: credits.length > 0 || !!c.acknowledgmentsText,
      ...(signer ? { signedBy: signer } : {}),
    });
    let body = text;
    if (signer) {
      const signed = await signer.sign(text);
      if (signed) body = signed;
      else req.log.error({ fingerprint: signer.fingerprint }, 'the security.txt signing key can no longer sign (expired?): security.txt goes out unsigned');
    }
    return reply.header('cache-control', CACHE_TEXT).type(TEXT).send(body);
  });
  // RFC 9116 section 3: the legacy top-level location may redirect to the canonical one.
  app.get('/security.txt', async (_req, reply) => reply.redirect('/.well-known/security.txt', 301));

  app.get('/pgp-key.txt', async (req, reply) => {
    const key = req.portalCompany.pgpPublicKey;
    if (!key) throw notFound('OpenPGP key');
    return reply.header('cache-control', CACHE_TEXT).type(TEXT).send(`${key.trim()}\n`);
  });

  // The public half of the operator's key that signs security.txt (the same on every portal).
  app.get(SIGNING_KEY_PATH, async (_req, reply) => {
    if (!signer) throw notFound('security.txt signing key');
    return reply.header('cache-control', CACHE_TEXT).type(TEXT).send(`${signer.publicKey.trim()}\n`);
  });
}
