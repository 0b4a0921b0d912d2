import { and, asc, desc, eq, ilike, inArray, isNull, notInArray, or, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { reports } from '../../db/schema/index.js';
import type { StageStatus } from './article14-clock.js';
import { article14Statuses, nextDeadline } from './article14-statuses.js';
import { CLOSED_STATES } from '../reports/lifecycle.js';
import { type ResponseClock, responseClocks } from '../reports/response-clocks.js';
import { INBOX_CLOCKS, INBOX_SEVERITIES, INBOX_SORTS, INBOX_TABS, SEARCH_MAX } from './inbox-criteria.js';

export { INBOX_TABS };
export const INBOX_PAGE = 25;

/** The dashboard inbox query (a GET form, so views can be bookmarked). Bad values fall back to defaults. */
export const InboxQuery = z.object({
  tab: z.enum(INBOX_TABS).catch('open').default('open'),
  severity: z.enum(INBOX_SEVERITIES).optional().catch(undefined),
  product: z.string().max(255).optional().catch(undefined),
  /** `me` (the signed-in member: "my reports"), `none` (unassigned), or a member's id. */
  assignee: z
    .union([z.literal('me'), z.literal('none'), z.uuid()])
    .optional()
    .catch(undefined),
  sort: z.enum(INBOX_SORTS).catch('newest').default('newest'),
  search: z
    .string()
    .max(SEARCH_MAX)
    .transform((s) => s.trim() || undefined)
    .optional()
    .catch(undefined),
  clock: z.enum(INBOX_CLOCKS).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).catch(1).default(1),
});
export type InboxQuery = z.output<typeof InboxQuery>;

export type InboxItem = {
  id: string;
  createdAt: Date;
  status: string;
  productName: string | null;
  severity: string | null;
  cvssScore: number | null;
  assigneeId: string | null;
  excerpt: string;
  /** The next unfiled Article 14 stage with a due time, when a clock runs. */
  deadline: StageStatus | null;
  /** The most urgent running response clock promised on the portal (docs/workflow.md "Response clocks"). */
  response: ResponseClock | null;
};

export type InboxPage = { items: InboxItem[]; total: number; page: number; pages: number };

/** The ids of the company's reports with a running clock in the state asked (Article 14 or response). */
async function reportsWithClock(db: Executor, companyId: string, clock: InboxQuery['clock'], now: Date): Promise<string[] | undefined> {
  if (!clock) return undefined;
  const [a14, response] = await Promise.all([article14Statuses(db, companyId, now), responseClocks(db, companyId, now)]);
  return [
    ...a14.filter((s) => nextDeadline(s.status)?.state === clock).map((s) => s.reportId),
    ...response.filter((r) => r.clocks.some((c) => c.state === clock)).map((r) => r.reportId),
  ];
}

// LIKE's wildcards and its escape character, typed into a search, match themselves.
const likePattern = (s: string): string => `%${s.replace(/[\\%_]/g, '\\$&')}%`;

function conditions(companyId: string, q: InboxQuery, viewerId: string | undefined, withClock: string[] | undefined): SQL[] {
  const c: SQL[] = [eq(reports.companyId, companyId)];
  if (q.tab === 'open') c.push(notInArray(reports.status, [...CLOSED_STATES, 'disclosed']));
  else if (q.tab === 'closed') c.push(inArray(reports.status, [...CLOSED_STATES]));
  else if (q.tab !== 'all' && q.tab !== 'deadlines') c.push(eq(reports.status, q.tab));
  if (q.severity === 'unrated') c.push(sql`${reports.severity} is null`);
  else if (q.severity) c.push(eq(reports.severity, q.severity));
  if (q.product) c.push(eq(reports.productName, q.product));
  if (q.assignee === 'none') c.push(isNull(reports.assigneeId));
  else if (q.assignee === 'me') c.push(viewerId ? eq(reports.assigneeId, viewerId) : sql`false`);
  else if (q.assignee) c.push(eq(reports.assigneeId, q.assignee));
  if (q.search) c.push(or(ilike(reports.description, likePattern(q.search)), ilike(reports.productName, likePattern(q.search))) as SQL);
  if (withClock) c.push(withClock.length ? inArray(reports.id, [...new Set(withClock)]) : sql`false`);
  return c;
}

const excerptOf = (s: string): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > 140 ? `${flat.slice(0, 139)}…` : flat;
};

/**
 * One page of the company's reports for the inbox, each with its next Article 14 deadline. The
 * `deadlines` tab lists only reports with a running clock, the most urgent first.
 */
export async function listInbox(db: Executor, companyId: string, q: InboxQuery, now = new Date(), viewerId?: string): Promise<InboxPage> {
  const where = and(...conditions(companyId, q, viewerId, await reportsWithClock(db, companyId, q.clock, now)));
  const cols = {
    id: reports.id,
    createdAt: reports.createdAt,
    status: reports.status,
    productName: reports.productName,
    severity: reports.severity,
    cvssScore: reports.cvssScore,
    assigneeId: reports.assigneeId,
    description: reports.description,
  };
  let rows: {
    id: string;
    createdAt: Date;
    status: string;
    productName: string | null;
    severity: string | null;
    cvssScore: number | null;
    assigneeId: string | null;
    description: string;
  }[];
  let total: number;
  let clocks: Map<string, StageStatus | undefined>;
  if (q.tab === 'deadlines') {
    const running = (await article14Statuses(db, companyId, now)).map((s) => ({ id: s.reportId, next: nextDeadline(s.status) })).filter((s) => s.next);
    running.sort((a, b) => Date.parse(a.next?.dueAt ?? '') - Date.parse(b.next?.dueAt ?? ''));
    clocks = new Map(running.map((r) => [r.id, r.next]));
    const all = running.length
      ? await db
          .select(cols)
          .from(reports)
          .where(
            and(
              where,
              inArray(
                reports.id,
                running.map((r) => r.id),
              ),
            ),
          )
      : [];
    const order = new Map(running.map((r, i) => [r.id, i]));
    all.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    total = all.length;
    rows = all.slice((q.page - 1) * INBOX_PAGE, q.page * INBOX_PAGE);
  } else {
    const [count] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(reports)
      .where(where);
    total = Number(count?.n ?? 0);
    const order = q.sort === 'oldest' ? [asc(reports.createdAt), asc(reports.id)] : [desc(reports.createdAt), desc(reports.id)];
    rows = await db
      .select(cols)
      .from(reports)
      .where(where)
      .orderBy(...order)
      .limit(INBOX_PAGE)
      .offset((q.page - 1) * INBOX_PAGE);
    const statuses = await article14Statuses(
      db,
      companyId,
      now,
      rows.map((r) => r.id),
    );
    clocks = new Map(statuses.map((s) => [s.reportId, nextDeadline(s.status)]));
  }
  const response = new Map(
    (
      await responseClocks(
        db,
        companyId,
        now,
        rows.map((r) => r.id),
      )
    ).map((c) => [c.reportId, c.clocks[0] ?? null]),
  );
  return {
    items: rows.map((r) => ({
      id: r.id,
      createdAt: r.createdAt,
      status: r.status,
      productName: r.productName,
      severity: r.severity,
      cvssScore: r.cvssScore,
      assigneeId: r.assigneeId,
      excerpt: excerptOf(r.description),
      deadline: clocks.get(r.id) ?? null,
      response: response.get(r.id) ?? null,
    })),
    total,
    page: q.page,
    pages: Math.max(1, Math.ceil(total / INBOX_PAGE)),
  };
}

export type InboxCounts = {
  new: number;
  triaging: number;
  open: number;
  overdue: number;
  dueSoon: number;
  /** Open reports nobody is assigned to, and those assigned to the viewer. */
  unassigned: number;
  mine: number;
  /** Reports past (or within a day of) a response time promised on the portal. */
  responseOverdue: number;
  responseDueSoon: number;
};

/** The figures of the dashboard home ("what waits") and the navigation badge. */
export async function inboxCounts(db: Executor, companyId: string, now = new Date(), viewerId?: string): Promise<InboxCounts> {
  const rows = await db
    .select({
      status: reports.status,
      n: sql<number>`count(*)::int`,
      unassigned: sql<number>`count(*) filter (where ${reports.assigneeId} is null)::int`,
      mine: viewerId ? sql<number>`count(*) filter (where ${reports.assigneeId} = ${viewerId})::int` : sql<number>`0`,
    })
    .from(reports)
    .where(eq(reports.companyId, companyId))
    .groupBy(reports.status);
  const by = new Map(rows.map((r) => [r.status, Number(r.n)]));
  const closed = new Set<string>([...CLOSED_STATES, 'disclosed']);
  const clocks = (await article14Statuses(db, companyId, now)).map((s) => nextDeadline(s.status));
  const response = (await responseClocks(db, companyId, now)).map((r) => r.clocks[0]?.state);
  const open = rows.filter((r) => !closed.has(r.status));
  const sum = (k: 'n' | 'unassigned' | 'mine') => open.reduce((s, r) => s + Number(r[k]), 0);
  return {
    new: by.get('new') ?? 0,
    triaging: by.get('triaging') ?? 0,
    open: sum('n'),
    unassigned: sum('unassigned'),
    mine: sum('mine'),
    responseOverdue: response.filter((s) => s === 'overdue').length,
    responseDueSoon: response.filter((s) => s === 'due_soon').length,
    overdue: clocks.filter((c) => c?.state === 'overdue').length,
    dueSoon: clocks.filter((c) => c?.state === 'due_soon').length,
  };
}
