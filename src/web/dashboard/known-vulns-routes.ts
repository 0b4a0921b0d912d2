import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { decideAcrossProducts, decideKnownVuln, getKnownVuln } from '../../modules/known-vulns/decide-known-vuln.js';
import { ListKnownVulnsFilter } from '../../modules/known-vulns/known-vulns.schemas.js';
import { listAwarenessGroups } from '../../modules/known-vulns/awareness-groups.js';
import { bulkDecideAwareness } from '../../modules/known-vulns/awareness-bulk.js';
import { AWARENESS_BULK_PATH, type AwarenessTyped } from './awareness-groups-panel.js';
import { listKnownVulns } from '../../modules/known-vulns/list-known-vulns.js';
import { listProducts } from '../../modules/products/list-products.js';
import { listFeedStatus } from '../../modules/vulndb/feed-status.js';
import { sessionMay } from './dashboard-layout.js';
import { type DecisionFormValues, knownVulnPage } from './known-vuln-page.js';
import { filled, Offset } from './evidence-routes.js';
import { KNOWN_VULNS_PATH, knownVulnsPage } from './known-vulns-page.js';
import { listField, optionalField, trimmedField } from '../form-fields.js';
import { fieldSentences, issuesSentences } from '../issue-sentences.js';

const ROWS_PER_PAGE = 50;
const DONE: Record<string, (n: number) => string> = {
  confirmed: (n) => `${n} awareness decisions confirmed: their Article 14 cases are open in Reports (Article 14 deadlines).`,
  dismissed: (n) => `${n === 1 ? 'The awareness decision was' : `${n} awareness decisions were`} dismissed; the reason is kept with each.`,
  unchanged: () => 'Those decisions were already taken: nothing changed.',
};

/**
 * The known-vulnerability pages (issue 25), inside the dashboard plugin (sign-in, same-origin and
 * CSRF checks run first). The decision form calls the same verbs as the REST API and MCP.
 */
export function knownVulnDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

  app.get(KNOWN_VULNS_PATH, async (req, reply) => {
    const companyId = req.session.company.id;
    const { offset: rawOffset, done: _done, n: _n, ...raw } = filled(req.query);
    const parsed = ListKnownVulnsFilter.safeParse(raw);
    const filter: ListKnownVulnsFilter = parsed.success ? parsed.data : {};
    const offset = Offset.parse(rawOffset ?? 0);
    const products = await listProducts(db, companyId);
    // An unknown product in the filter is a bad filter here, not a missing page.
    const known = filter.product === undefined || products.some((p) => p.identifier === filter.product);
    const effective = known ? filter : { ...filter, product: undefined };
    const page = await listKnownVulns(db, companyId, effective, { limit: ROWS_PER_PAGE, offset });
    const ok = parsed.success && known;
    const awareness = await listAwarenessGroups(db, companyId);
    const feeds = sessionMay(req.session, 'admin') ? await listFeedStatus(db) : undefined;
    const q = req.query as { done?: unknown; n?: unknown };
    const done = DONE[optionalField(q.done) ?? '']?.(Number(optionalField(q.n) ?? 1) || 1);
    const notice = !ok ? { kind: 'bad' as const, text: 'Some filters were invalid and were ignored.' } : done ? { kind: 'ok' as const, text: done } : undefined;
    return sendHtml(
      reply,
      knownVulnsPage(req.session, { filter: effective, products, page, offset, limit: ROWS_PER_PAGE, awareness, feeds, notice }),
      ok ? 200 : 400,
    );
  });

  const awarenessAgain = async (req: FastifyRequest, reply: FastifyReply, status: number, text: string, awarenessTyped: AwarenessTyped) => {
    const companyId = req.session.company.id;
    const [products, page, awareness] = await Promise.all([
      listProducts(db, companyId),
      listKnownVulns(db, companyId, {}, { limit: ROWS_PER_PAGE }),
      listAwarenessGroups(db, companyId),
    ]);
    const o = { filter: {}, products, page, offset: 0, limit: ROWS_PER_PAGE, awareness, awarenessTyped, notice: { kind: 'bad' as const, text } };
    return sendHtml(reply, knownVulnsPage(req.session, o), status);
  };

  // The grouped awareness form: the ticked decisions confirmed or dismissed together, each as one by one.
  app.post(AWARENESS_BULK_PATH, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const typed: AwarenessTyped = {
      ids: listField(body.ids),
      awareAt: trimmedField(body.awareAt),
      note: trimmedField(body.note),
      reason: trimmedField(body.reason),
    };
    const action = optionalField(body.action) === 'dismiss' ? 'dismiss' : 'confirm';
    // A datetime-local field has no zone: the form says UTC.
    const awareAt = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(typed.awareAt)
      ? `${typed.awareAt.length === 16 ? `${typed.awareAt}:00` : typed.awareAt}.000Z`
      : typed.awareAt;
    const input =
      action === 'confirm'
        ? { action, ids: typed.ids, ...(awareAt ? { awareAt } : {}), ...(typed.note ? { note: typed.note } : {}) }
        : { action, ids: typed.ids, reason: typed.reason };
    try {
      const r = await bulkDecideAwareness(db, ctxOf(req), req.session.company.id, input, 'dashboard');
      if (r.failed === 0) {
        const one = r.results.length === 1 ? r.results[0]?.reportId : undefined;
        if (action === 'confirm' && r.decided === 1 && one) return reply.redirect(`/reports/${one}`, 303);
        return reply.redirect(
          `${KNOWN_VULNS_PATH}?done=${r.decided === 0 ? 'unchanged' : action === 'confirm' ? 'confirmed' : 'dismissed'}&n=${r.decided}`,
          303,
        );
      }
      const why = r.results.filter((x) => x.detail).map((x) => `${x.productIdentifier ?? x.id.slice(0, 8)}: ${x.detail ?? ''}`);
      const failed = new Set(r.results.filter((x) => x.detail).map((x) => x.id));
      const text = `${r.decided} decided, ${r.failed} not (${why.join('; ')}).`;
      return awarenessAgain(req, reply, 409, text, { ...typed, ids: typed.ids.filter((id) => failed.has(id)) });
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      const issues = (e.extra.issues ?? []).map((i) => (i.path === 'ids' ? { ...i, message: 'tick at least one product' } : i));
      return awarenessAgain(req, reply, 400, `Not recorded: ${issuesSentences(issues) || e.message}`, typed);
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
