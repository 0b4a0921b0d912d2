import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../../http/request-context.js';
import { isAppError } from '../../kernel/errors.js';
import { getArticle14, recordFiling } from '../../modules/article14/article14.js';
import { filingPackText } from '../../modules/article14/filing-pack-text.js';
import { listMessages, postMessage } from '../../modules/messages/messages.js';
import { listCases } from '../../modules/cases/get-case.js';
import { inboundSource } from '../../modules/cases/shared-thread.js';
import { getReport } from '../../modules/reports/get-report.js';
import { inboxCounts } from '../../modules/article14/list-inbox.js';
import { reportHistory } from '../../modules/reports/report-history.js';
import { decideSuggestion, getSuggestion } from '../../modules/triage/triage-suggestions.js';
import { updateReport } from '../../modules/reports/update-report.js';
import { advisoriesOfReport } from '../../modules/advisories/advisory-rows.js';
import { reportPage } from './report-page.js';
import { awarenessOfReport, reportsOpenedByCradle } from '../../modules/known-vulns/awareness.js';
import type { TypedForm } from './report-forms.js';
import { reportsCsv } from '../../modules/reports/reports-csv.js';
import { Readable } from 'node:stream';
import { userEmails } from '../../modules/users/user-emails.js';
import { listField, textField, trimmedField, trimmedOrNull } from '../form-fields.js';
import { issuesSentences } from '../issue-sentences.js';
import { listMembers } from '../../modules/team/members.js';
import { addNote, listNotes } from '../../modules/reports/report-notes.js';

type Body = Record<string, unknown>;
type IdReq = FastifyRequest<{ Params: { id: string; stage?: string } }>;

const HTML = 'text/html; charset=utf-8';
const triState = (v: unknown): boolean | null => (v === 'yes' ? true : v === 'no' ? false : null);
/** A datetime-local value (minutes or seconds, no zone) is UTC; anything else goes to the verb to be refused. */
const instant = (v: unknown): string | null => {
  const s = trimmedField(v);
  if (!s) return null;
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(s) ? `${s}:00Z` : /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/.test(s) ? `${s}Z` : s;
};
const SAVED: Record<string, string> = {
  status: 'Status changed.',
  severity: 'Severity saved.',
  facts: 'Article 14 facts saved.',
  filing: 'Filing recorded.',
  message: 'Reply sent.',
  suggestion: 'Decision recorded.',
  assignee: 'Assignee saved.',
  note: 'Note added.',
};

/** The inbox and report pages of the dashboard (registered inside the signed-in dashboard plugin). */
export async function reportRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const ctxOf = (req: FastifyRequest) => requestContext(req, { type: 'user', id: req.session.user.id });

  const members = async (companyId: string) => (await listMembers(db, companyId)).map((m) => ({ id: m.id, email: m.email }));

  const render = async (req: IdReq, reply: FastifyReply, status = 200, notice?: { kind: 'ok' | 'bad'; text: string }, typed?: TypedForm) => {
    const companyId = req.session.company.id;
    const now = new Date();
    const report = await getReport(db, companyId, req.params.id);
    const id = report.submissionId;
    const [suggestion, article14, messages, notes, team, history, counts, advisories, cases, inbound, openedBy] = await Promise.all([
      getSuggestion(db, companyId, id),
      getArticle14(db, companyId, id, now),
      listMessages(db, companyId, id),
      listNotes(db, companyId, id),
      members(companyId),
      reportHistory(db, companyId, id),
      inboxCounts(db, companyId, now),
      advisoriesOfReport(db, companyId, id),
      listCases(db, companyId, { reportId: id }),
      inboundSource(db, companyId, id),
      awarenessOfReport(db, companyId, id),
    ]);
    const ids = [
      ...new Set([
        ...messages.flatMap((m) => (m.authorId ? [m.authorId] : [])),
        ...history.flatMap((h) => (h.actor.startsWith('user:') ? [h.actor.slice(5)] : [])),
        ...history.flatMap((h) => (typeof h.changes.assigneeId === 'string' ? [h.changes.assigneeId] : [])),
      ]),
    ];
    const people = await userEmails(db, companyId, [
      ...ids,
      ...notes.flatMap((n) => (n.authorId ? [n.authorId] : [])),
      ...(report.assigneeId ? [report.assigneeId] : []),
    ]);
    return reply
      .code(status)
      .type(HTML)
      .send(
        reportPage({
          session: req.session,
          report,
          suggestion,
          article14,
          messages,
          notes,
          members: team,
          history,
          advisories,
          people,
          now,
          attention: counts.overdue,
          coordination: { cases, inbound },
          notice,
          typed,
          openedBy,
        }),
      );
  };

  // Every report's facts as a spreadsheet, read page by page as the client takes it.
  app.get('/reports/export', async (req, reply) =>
    reply
      .header('content-disposition', `attachment; filename="${req.session.company.slug}-reports-${new Date().toISOString().slice(0, 10)}.csv"`)
      .type('text/csv; charset=utf-8')
      .send(Readable.from(reportsCsv(db, req.session.company.id, { selfOpened: (ids) => reportsOpenedByCradle(db, req.session.company.id, ids) }))),
  );

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>('/reports/:id', async (req, reply) =>
    render(req, reply, 200, req.query.done && SAVED[req.query.done] ? { kind: 'ok', text: SAVED[req.query.done] as string } : undefined),
  );

  /** Every action form: run the verb, then back to the page (303), or the page again with the problem. */
  const action = (path: string, done: string, run: (req: IdReq, body: Body) => Promise<unknown>) =>
    app.post<{ Params: { id: string; stage?: string } }>(path, async (req, reply) => {
      try {
        await run(req, (req.body ?? {}) as Body);
      } catch (e) {
        // Not found (another company's report, no suggestion) is the usual 404 page; the rest re-renders.
        if (!isAppError(e) || e.code === 'NOT_FOUND') throw e;
        const status = e.code === 'VALIDATION' ? 400 : e.code === 'CONFLICT' ? 409 : 403;
        const detail = e.extra.issues?.length ? issuesSentences(e.extra.issues) : e.message;
        const typed = { form: done === 'filing' ? `filing-${req.params.stage ?? ''}` : done, values: (req.body ?? {}) as Body };
        return render(req, reply, status, { kind: 'bad', text: `Not saved: ${detail}` }, typed);
      }
      return reply.redirect(`/reports/${req.params.id}?done=${done}`, 303);
    });

  const update = (req: IdReq, input: Record<string, unknown>) => updateReport(db, ctxOf(req), req.session.company.id, req.params.id, input);
  action('/reports/:id/status', 'status', (req, b) =>
    update(req, { status: trimmedField(b.status), ...(trimmedField(b.status) === 'duplicate' ? { duplicateOf: trimmedOrNull(b.duplicateOf) } : {}) }),
  );
  action('/reports/:id/severity', 'severity', (req, b) => update(req, { cvssVector: trimmedOrNull(b.cvssVector), cwe: trimmedOrNull(b.cwe) }));
  action('/reports/:id/facts', 'facts', (req, b) =>
    update(req, {
      activelyExploited: triState(b.activelyExploited),
      awareAt: instant(b.awareAt),
      exploitationEvidence: trimmedOrNull(b.exploitationEvidence),
      severeIncident: triState(b.severeIncident),
      fixAvailableAt: instant(b.fixAvailableAt),
      memberStates: listField(b.memberStates),
      componentPurl: trimmedOrNull(b.componentPurl),
    }),
  );
  action('/reports/:id/article14/:stage', 'filing', (req, b) =>
    recordFiling(db, ctxOf(req), req.session.company.id, req.params.id, req.params.stage ?? '', {
      filedAt: instant(b.filedAt) ?? undefined,
      reference: trimmedOrNull(b.reference) ?? undefined,
    }),
  );
  action('/reports/:id/messages', 'message', (req, b) =>
    postMessage(db, ctxOf(req), req.session.company.id, req.params.id, 'company', { body: textField(b.body) }),
  );
  action('/reports/:id/assignee', 'assignee', (req, b) => {
    const v = trimmedField(b.assigneeId);
    return update(req, { assigneeId: v === 'none' || v === '' ? null : v });
  });
  action('/reports/:id/notes', 'note', (req, b) => addNote(db, ctxOf(req), req.session.company.id, req.params.id, { body: textField(b.body) }));
  action('/reports/:id/suggestion', 'suggestion', (req, b) => decideSuggestion(db, ctxOf(req), req.session.company.id, req.params.id, b.decision));

  app.get<{ Params: { id: string } }>('/reports/:id/article14/pack', async (req, reply) => {
    const now = new Date();
    const a = await getArticle14(db, req.session.company.id, req.params.id, now);
    return reply
      .header('content-disposition', `attachment; filename="article14-${req.params.id}.txt"`)
      .header('cache-control', 'no-store')
      .type('text/plain; charset=utf-8')
      .send(filingPackText(req.params.id, a, now));
  });
}
