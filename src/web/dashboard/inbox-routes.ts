import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../../http/request-context.js';
import { type AppError, isAppError } from '../../kernel/errors.js';
import { INBOX_CRITERIA_FIELDS } from '../../modules/article14/inbox-criteria.js';
import { resolveCriteria } from '../../modules/article14/inbox-listing.js';
import { inboxCounts, InboxQuery, listInbox } from '../../modules/article14/list-inbox.js';
import { deleteSavedFilter, listSavedFilters, saveFilter, updateSavedFilter } from '../../modules/article14/saved-filters.js';
import { reportsOpenedByCradle } from '../../modules/known-vulns/awareness.js';
import { listProducts } from '../../modules/products/list-products.js';
import { bulkUpdateReports } from '../../modules/reports/bulk-update.js';
import { listMembers } from '../../modules/team/members.js';
import { listField, optionalField, textField, trimmedField } from '../form-fields.js';
import { issuesSentences } from '../issue-sentences.js';
import type { BulkTyped } from './inbox-bulk-form.js';
import { reportsInboxPage } from './reports-inbox-page.js';
import type { FilterTyped } from './saved-filters-panel.js';

type Body = Record<string, unknown>;
type Notice = { kind: 'ok' | 'bad'; text: string };
const HTML = 'text/html; charset=utf-8';
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const FILTER_DONE: Record<string, string> = { saved: 'Filter saved.', renamed: 'Saved filter renamed.', deleted: 'Saved filter deleted.' };
const statusOf = (e: AppError): number => (e.code === 'VALIDATION' ? 400 : e.code === 'NOT_FOUND' ? 404 : e.code === 'CONFLICT' ? 409 : 403);
/** The inbox criteria a form carries (hidden fields), those filled in. */
const criteriaOf = (b: Body) => Object.fromEntries(INBOX_CRITERIA_FIELDS.map((k) => [k, trimmedField(b[k])]).filter(([, v]) => v));
const sentence = (e: AppError): string => (e.extra.issues?.length ? issuesSentences(e.extra.issues) : e.message);

/** The reports inbox of the dashboard: the list, its bulk changes and each member's saved filters (docs/workflow.md). */
export async function inboxRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const ctxOf = (req: FastifyRequest) => requestContext(req, { type: 'user', id: req.session.user.id });

  /** The inbox for `query` (the address's, or a refused form's criteria), with notices and what was typed. */
  const renderInbox = async (
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    query: Record<string, unknown>,
    notices: Notice[] = [],
    typed: { bulk?: BulkTyped; filter?: FilterTyped } = {},
  ) => {
    const companyId = req.session.company.id;
    const ctx = ctxOf(req);
    const saved = optionalField(query.saved);
    let applied: string | undefined;
    let q = InboxQuery.parse(query);
    if (saved !== undefined) {
      try {
        const r = await resolveCriteria(db, ctx, companyId, saved, {});
        // The pager and tab links keep `saved=` beside the criteria; what the address names takes
        // precedence over the filter's own, as over the API (InboxListQuery).
        const own = InboxQuery.parse(r.criteria);
        q = InboxQuery.parse({ ...r.criteria, ...criteriaOf(query), page: query.page });
        applied = saved;
        const changed = INBOX_CRITERIA_FIELDS.some((k) => q[k] !== own[k]);
        const name = r.savedFilter?.name ?? '';
        notices.push({
          kind: 'ok',
          text: changed
            ? `Showing your saved filter "${name}", changed by the choices made here (save them under a name to keep them).`
            : `Showing your saved filter "${name}".`,
        });
        for (const m of r.missing) notices.push({ kind: 'bad', text: `This filter still applies, but ${m}.` });
      } catch (e) {
        if (!isAppError(e) || e.code !== 'NOT_FOUND') throw e;
        status = 404;
        notices.push({ kind: 'bad', text: 'That saved filter is not one of yours (or was deleted): showing the open reports.' });
      }
    }
    const now = new Date();
    const [page, counts, products, people, filters] = await Promise.all([
      listInbox(db, companyId, q, now, req.session.user.id),
      inboxCounts(db, companyId, now),
      listProducts(db, companyId),
      listMembers(db, companyId),
      listSavedFilters(db, ctx, companyId),
    ]);
    const selfOpened = await reportsOpenedByCradle(
      db,
      companyId,
      page.items.map((r) => r.id),
    );
    const view = {
      members: people.map((m) => ({ id: m.id, email: m.email })),
      notices,
      selfOpened,
      saved: { filters, applied, ...(typed.filter ? { typed: typed.filter } : {}) },
      ...(typed.bulk ? { typed: typed.bulk } : {}),
    };
    return reply
      .code(status)
      .type(HTML)
      .send(reportsInboxPage(req.session, q, page, counts, [...new Set(products.map((p) => p.name))], now, view));
  };

  app.get<{ Querystring: Record<string, string> }>('/reports', async (req, reply) => {
    const changed = Number(req.query.changed);
    const notices: Notice[] = [];
    if (Number.isInteger(changed) && changed > 0) notices.push({ kind: 'ok', text: `${plural(changed, 'report')} changed.` });
    const done = FILTER_DONE[req.query.filters ?? ''];
    if (done) notices.push({ kind: 'ok', text: done });
    return renderInbox(req, reply, 200, req.query, notices);
  });

  // The inbox's bulk form: one change to the ticked reports; refusals come back with the form as typed.
  app.post('/reports/bulk', async (req, reply) => {
    const b = (req.body ?? {}) as Body;
    const typed: BulkTyped = {
      ids: listField(b.ids),
      status: trimmedField(b.status),
      duplicateOf: trimmedField(b.duplicateOf),
      assigneeId: trimmedField(b.assigneeId),
      reason: textField(b.reason),
    };
    const input = {
      ids: typed.ids,
      ...(typed.status ? { status: typed.status } : {}),
      ...(typed.status === 'duplicate' && typed.duplicateOf ? { duplicateOf: typed.duplicateOf } : {}),
      ...(typed.assigneeId ? { assigneeId: typed.assigneeId === 'none' ? null : typed.assigneeId } : {}),
      ...(typed.reason.trim() ? { reason: typed.reason } : {}),
    };
    try {
      const r = await bulkUpdateReports(db, ctxOf(req), req.session.company.id, input);
      if (r.failed === 0) return reply.redirect(`/reports?changed=${r.updated}`, 303);
      const why = r.results.filter((x) => x.outcome !== 'updated').map((x) => `${x.submissionId.slice(0, 8)}: ${x.detail ?? x.outcome}`);
      const text = `${plural(r.updated, 'report')} changed; ${plural(r.failed, 'report')} not changed (${why.join('; ')}).`;
      const failed = new Set(r.results.filter((x) => x.outcome !== 'updated').map((x) => x.submissionId));
      return renderInbox(req, reply, 409, {}, [{ kind: 'bad', text }], { bulk: { ...typed, ids: typed.ids.filter((id) => failed.has(id)) } });
    } catch (e) {
      if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'NOT_FOUND')) throw e;
      return renderInbox(req, reply, statusOf(e), {}, [{ kind: 'bad', text: `Not changed: ${sentence(e)}` }], { bulk: typed });
    }
  });

  /** A saved-filter form: run the verb, then to `done` (303), or the inbox again with the problem and the name as typed. */
  type FilterReq = FastifyRequest<{ Params: { id?: string } }>;
  const filterAction = (path: string, run: (req: FilterReq, b: Body) => Promise<string>) =>
    app.post<{ Params: { id?: string } }>(path, async (req, reply) => {
      const b = (req.body ?? {}) as Body;
      try {
        return reply.redirect(await run(req, b), 303);
      } catch (e) {
        if (!isAppError(e) || e.code === 'FORBIDDEN') throw e;
        const criteria = criteriaOf(b);
        const filter = { id: req.params.id ?? '', name: textField(b.name) };
        return renderInbox(req, reply, statusOf(e), criteria, [{ kind: 'bad', text: `Not saved: ${sentence(e)}` }], { filter });
      }
    });

  // "Save these filters": the criteria in effect travel as hidden fields beside the name.
  filterAction('/reports/saved-filters', async (req, b) => {
    const criteria = criteriaOf(b);
    const f = await saveFilter(db, ctxOf(req), req.session.company.id, { name: textField(b.name), criteria });
    return `/reports?saved=${f.id}&filters=saved`;
  });
  filterAction('/reports/saved-filters/:id', async (req, b) => {
    await updateSavedFilter(db, ctxOf(req), req.session.company.id, req.params.id ?? '', { name: textField(b.name) });
    return '/reports?filters=renamed';
  });
  filterAction('/reports/saved-filters/:id/delete', async (req) => {
    await deleteSavedFilter(db, ctxOf(req), req.session.company.id, req.params.id ?? '');
    return '/reports?filters=deleted';
  });
}
