import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../../http/request-context.js';
import { isAppError } from '../../kernel/errors.js';
import { recordAttestation, withdrawAttestation } from '../../modules/compliance/attestations.js';
import { complianceView } from '../../modules/compliance/compliance-dashboard.js';
import { setProductCraFacts } from '../../modules/compliance/product-cra-facts.js';
import { craFloors } from '../../modules/retention/cra-floor.js';
import { compliancePage } from './compliance-page.js';
import { bodyText, bodyTrimmed } from '../form-fields.js';
import { fieldSentences, issuesSentences } from '../issue-sentences.js';

const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);
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
    const product = bodyTrimmed(req.body, 'product');
    const input = {
      requirementId: bodyTrimmed(req.body, 'requirementId'),
      verdict: bodyTrimmed(req.body, 'verdict'),
      justification: bodyTrimmed(req.body, 'justification'),
      ...(product && !bodyTrimmed(req.body, 'allProducts') ? { product } : {}),
      ...(bodyTrimmed(req.body, 'evidenceUrl') ? { evidenceUrl: bodyTrimmed(req.body, 'evidenceUrl') } : {}),
      ...(bodyTrimmed(req.body, 'expiresAt') ? { expiresAt: instant(bodyTrimmed(req.body, 'expiresAt')) } : {}),
    };
    try {
      await recordAttestation(db, ctxOf(req), req.session.company.id, input, req.session.user.email);
      return reply.redirect(back(product, 'attested'), 303);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      const view = await complianceView(db, req.session.company.id, product || undefined);
      view.formErrors = fieldSentences(e.extra.issues ?? [], {}, '');
      view.formValues = Object.fromEntries(
        ['requirementId', 'verdict', 'allProducts', 'justification', 'evidenceUrl', 'expiresAt'].map((k) => [k, bodyText(req.body, k)]),
      );
      return sendHtml(
        reply,
        compliancePage(req.session, view, product || undefined, {
          kind: 'bad',
          text: `The attestation was not recorded: ${issuesSentences(e.extra.issues ?? []) || e.message}`,
        }),
        400,
      );
    }
  });

  app.post<{ Params: { id: string } }>('/compliance/attestations/:id/withdraw', async (req, reply) => {
    await withdrawAttestation(db, ctxOf(req), req.session.company.id, req.params.id);
    return reply.redirect(back(bodyTrimmed(req.body, 'product'), 'withdrawn'), 303);
  });

  app.post<{ Params: { identifier: string } }>('/compliance/products/:identifier', async (req, reply) => {
    const date = (k: string) => instant(bodyTrimmed(req.body, k)) ?? null;
    await setProductCraFacts(db, ctxOf(req), req.session.company.id, req.params.identifier, {
      category: bodyTrimmed(req.body, 'category') || undefined,
      placedOnMarketAt: date('placedOnMarketAt'),
      supportEndsAt: date('supportEndsAt'),
      supportJustification: bodyTrimmed(req.body, 'supportJustification') || null,
    });
    return reply.redirect(back(req.params.identifier, 'facts'), 303);
  });
}
