import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { decideAcrossProducts, decideKnownVuln, getKnownVuln } from '../../modules/known-vulns/decide-known-vuln.js';
import { ListKnownVulnsFilter } from '../../modules/known-vulns/known-vulns.schemas.js';
import { confirmAwareness, dismissAwareness, listAwareness } from '../../modules/known-vulns/awareness.js';
import { listKnownVulns } from '../../modules/known-vulns/list-known-vulns.js';
import { listProducts } from '../../modules/products/list-products.js';
import { listFeedStatus } from '../../modules/vulndb/feed-status.js';
import { sessionMay } from './dashboard-layout.js';
import { type DecisionFormValues, knownVulnPage } from './known-vuln-page.js';
import { filled, Offset } from './evidence-routes.js';
import { KNOWN_VULNS_PATH, knownVulnsPage } from './known-vulns-page.js';
import { listField, optionalField } from '../form-fields.js';
import { fieldSentences, issuesSentences } from '../issue-sentences.js';

const ROWS_PER_PAGE = 50;
const DONE: Record<string, string> = { dismissed: 'The awareness decision was dismissed; the reason is kept.' };

/**
 * The known-vulnerability pages (issue 25), inside the dashboard plugin (sign-in, same-origin and
 * CSRF checks run first). The decision form calls the same verbs as the REST API and MCP.
 */
export function knownVulnDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

  app.get(KNOWN_VULNS_PATH, async (req, reply) => {
    const companyId = req.session.company.id;
    const { offset: rawOffset, done: _done, ...raw } = filled(req.query);
    const parsed = ListKnownVulnsFilter.safeParse(raw);
    const filter: ListKnownVulnsFilter = parsed.success ? parsed.data : {};
    const offset = Offset.parse(rawOffset ?? 0);
    const products = await listProducts(db, companyId);
    // An unknown product in the filter is a bad filter here, not a missing page.
    const known = filter.product === undefined || products.some((p) => p.identifier === filter.product);
    const effective = known ? filter : { ...filter, product: undefined };
    const page = await listKnownVulns(db, companyId, effective, { limit: ROWS_PER_PAGE, offset });
    const ok = parsed.success && known;
    const awareness = await listAwareness(db, companyId);
    const feeds = sessionMay(req.session, 'admin') ? await listFeedStatus(db) : undefined;
    const done = DONE[optionalField((req.query as { done?: unknown }).done) ?? ''];
    const notice = !ok ? { kind: 'bad' as const, text: 'Some filters were invalid and were ignored.' } : done ? { kind: 'ok' as const, text: done } : undefined;
    return sendHtml(
      reply,
      knownVulnsPage(req.session, { filter: effective, products, page, offset, limit: ROWS_PER_PAGE, awareness, feeds, notice }),
      ok ? 200 : 400,
    );
  });

  const awarenessError = async (req: FastifyRequest, reply: FastifyReply, e: unknown) => {
    if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'CONFLICT')) throw e;
    const companyId = req.session.company.id;
    const [products, page, awareness] = await Promise.all([
      listProducts(db, companyId),
      listKnownVulns(db, companyId, {}, { limit: ROWS_PER_PAGE }),
      listAwareness(db, companyId),
    ]);
    const text = e.code === 'CONFLICT' ? e.message : `Not recorded: ${issuesSentences(e.extra.issues ?? []) || e.message}`;
    return sendHtml(
      reply,
      knownVulnsPage(req.session, { filter: {}, products, page, offset: 0, limit: ROWS_PER_PAGE, awareness, notice: { kind: 'bad', text } }),
      e.code === 'CONFLICT' ? 409 : 400,
    );
  };

  app.post<{ Params: { id: string } }>(`${KNOWN_VULNS_PATH}/awareness/:id/confirm`, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const awareAt = optionalField(body.awareAt)?.trim();
    const note = optionalField(body.note)?.trim();
    // A datetime-local field has no zone: the form says UTC.
    const input = {
      ...(awareAt ? { awareAt: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(awareAt) ? `${awareAt}:00.000Z` : awareAt } : {}),
      ...(note ? { note } : {}),
    };
    try {
      const a = await confirmAwareness(db, ctxOf(req), req.session.company.id, req.params.id, input, 'dashboard');
      return reply.redirect(`/reports/${a.reportId}`, 303);
    } catch (e) {
      return awarenessError(req, reply, e);
    }
  });

  app.post<{ Params: { id: string } }>(`${KNOWN_VULNS_PATH}/awareness/:id/dismiss`, async (req, reply) => {
    try {
      await dismissAwareness(db, ctxOf(req), req.session.company.id, req.params.id, {
        reason: optionalField((req.body as Record<string, unknown> | undefined)?.reason) ?? '',
      });
      return reply.redirect(`${KNOWN_VULNS_PATH}?done=dismissed`, 303);
    } catch (e) {
      return awarenessError(req, reply, e);
    }
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(`${KNOWN_VULNS_PATH}/:id`, async (req, reply) => {
    const m = await getKnownVuln(db, req.session.company.id, req.params.id);
    const done = Number(req.query.done);
    const notice =
      Number.isInteger(done) && done > 0
        ? { kind: 'ok' as const, text: done === 1 ? 'The decision was recorded.' : `The decision was recorded for ${done} products.` }
        : undefined;
    return sendHtml(reply, knownVulnPage(req.session, m, { notice }));
  });

  app.post<{ Params: { id: string } }>(`${KNOWN_VULNS_PATH}/:id/decision`, async (req, reply) => {
    const companyId = req.session.company.id;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values: DecisionFormValues = {
      state: optionalField(body.state),
      justification: optionalField(body.justification) || undefined,
      response: listField(body.response),
      detail: optionalField(body.detail),
      everywhere: optionalField(body.everywhere) === '1',
    };
    const input = {
      state: values.state,
      ...(values.justification ? { justification: values.justification } : {}),
      ...(values.response?.length ? { response: values.response } : {}),
      detail: values.detail ?? '',
    };
    // The match must be the company's before anything else (another company's id: not found).
    const m = await getKnownVuln(db, companyId, req.params.id);
    try {
      let updated = 1;
      if (values.everywhere) updated = (await decideAcrossProducts(db, ctxOf(req), companyId, { vulnerability: m.vulnerability, ...input })).updated;
      else await decideKnownVuln(db, ctxOf(req), companyId, m.id, input);
      return reply.redirect(`${KNOWN_VULNS_PATH}/${m.id}?done=${updated}`, 303);
    } catch (e) {
      if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'NOT_FOUND')) throw e;
      const errors = fieldSentences(e.extra.issues ?? [], {}, 'detail');
      if (Object.keys(errors).length === 0) errors.detail = e.message;
      return sendHtml(reply, knownVulnPage(req.session, m, { values, errors, notice: { kind: 'bad', text: 'Please correct the marked fields.' } }), 400);
    }
  });
}
