import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../../http/request-context.js';
import { isAppError } from '../../kernel/errors.js';
import { recordAttestation, withdrawAttestation } from '../../modules/compliance/attestations.js';
import { complianceView } from '../../modules/compliance/compliance-dashboard.js';
import { setProductCraFacts } from '../../modules/compliance/product-cra-facts.js';
import { craFloors } from '../../modules/retention/cra-floor.js';
import { compliancePage } from './compliance-page.js';

const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);
const field = (body: unknown, k: string): string => {
  const v = (body as Record<string, unknown> | undefined)?.[k];
  return typeof v === 'string' ? v.trim() : '';
};
/** A date input (YYYY-MM-DD) as the verbs' ISO instant; empty stays unset. */
const instant = (v: string): string | undefined => (v ? `${v}T00:00:00Z` : undefined);
const back = (identifier: string, done: string) => `/compliance?${new URLSearchParams({ ...(identifier ? { product: identifier } : {}), done })}`;
const DONE: Record<string, string> = {
  attested: 'The attestation was recorded.',
  withdrawn: 'The attestation was withdrawn.',
  facts: 'The product facts were saved.',
};

/**
 * The dashboard's compliance page (inside dashboardRoutes: its hook has checked the session, the
 * origin and the CSRF token of every POST). Forms post, then redirect back (no script needed).
 */
export function complianceDashboardRoutes(app: FastifyInstance): void {
  const db = app.deps.database.db;
  const ctxOf = (req: FastifyRequest) => requestContext(req, { type: 'user', id: req.session.user.id });

  app.get<{ Querystring: { product?: string; done?: string } }>('/compliance', async (req, reply) => {
    const product = req.query.product || undefined;
    const done = req.query.done ? DONE[req.query.done] : undefined;
    return sendHtml(
      reply,
      compliancePage(
        req.session,
        await complianceView(db, req.session.company.id, product),
        product,
        done ? { kind: 'ok', text: done } : undefined,
        product ? [] : await craFloors(db, req.session.company.id, { activeOnly: true }),
      ),
    );
  });

  app.post('/compliance/attestations', async (req, reply) => {
    const product = field(req.body, 'product');
    const input = {
      requirementId: field(req.body, 'requirementId'),
      verdict: field(req.body, 'verdict'),
      justification: field(req.body, 'justification'),
      ...(product && !field(req.body, 'allProducts') ? { product } : {}),
      ...(field(req.body, 'evidenceUrl') ? { evidenceUrl: field(req.body, 'evidenceUrl') } : {}),
      ...(field(req.body, 'expiresAt') ? { expiresAt: instant(field(req.body, 'expiresAt')) } : {}),
    };
    try {
      await recordAttestation(db, ctxOf(req), req.session.company.id, input, req.session.user.email);
      return reply.redirect(back(product, 'attested'), 303);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      const view = await complianceView(db, req.session.company.id, product || undefined);
      view.formErrors = Object.fromEntries((e.extra.issues ?? []).map((i) => [i.path.split('.')[0] ?? '', i.message]));
      return sendHtml(
        reply,
        compliancePage(req.session, view, product || undefined, { kind: 'bad', text: `The attestation was not recorded: ${e.message}` }),
        400,
      );
    }
  });

  app.post<{ Params: { id: string } }>('/compliance/attestations/:id/withdraw', async (req, reply) => {
    await withdrawAttestation(db, ctxOf(req), req.session.company.id, req.params.id);
    return reply.redirect(back(field(req.body, 'product'), 'withdrawn'), 303);
  });

  app.post<{ Params: { identifier: string } }>('/compliance/products/:identifier', async (req, reply) => {
    const date = (k: string) => instant(field(req.body, k)) ?? null;
    await setProductCraFacts(db, ctxOf(req), req.session.company.id, req.params.identifier, {
      category: field(req.body, 'category') || undefined,
      placedOnMarketAt: date('placedOnMarketAt'),
      supportEndsAt: date('supportEndsAt'),
      supportJustification: field(req.body, 'supportJustification') || null,
    });
    return reply.redirect(back(req.params.identifier, 'facts'), 303);
  });
}
