import { and, eq, inArray, isNotNull, or, type SQL } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { companies, reports, responseAlerts } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';

/**
 * The response clocks a company promises researchers on its portal (portal settings
 * `responseTimes`; docs/workflow.md "Response clocks"): acknowledgement while a report is `new`,
 * first assessment while it is `new` or `triaging`; each runs from the filing.
 */
export const RESPONSE_CLOCKS = ['acknowledge', 'assess'] as const;
export type ResponseClockName = (typeof RESPONSE_CLOCKS)[number];
export type ResponseClock = { clock: ResponseClockName; dueAt: string; state: 'running' | 'due_soon' | 'overdue' };

/** Within this of its due time a clock shows as due soon. */
export const RESPONSE_DUE_SOON_MS = 24 * 3_600_000;
const DAY = 86_400_000;
const PENDING: Record<ResponseClockName, readonly string[]> = { acknowledge: ['new'], assess: ['new', 'triaging'] };

type ClockRow = { id: string; companyId: string; status: string; createdAt: Date; acknowledgeDays: number | null; assessDays: number | null };

/** A report's running clocks, most urgent first (pure). */
export function clocksOf(r: Omit<ClockRow, 'id' | 'companyId'>, now: Date): ResponseClock[] {
  const days: Record<ResponseClockName, number | null> = { acknowledge: r.acknowledgeDays, assess: r.assessDays };
  return RESPONSE_CLOCKS.flatMap((clock): ResponseClock[] => {
    const n = days[clock];
    if (n === null || !PENDING[clock].includes(r.status)) return [];
    const due = r.createdAt.getTime() + n * DAY;
    const left = due - now.getTime();
    return [{ clock, dueAt: new Date(due).toISOString(), state: left < 0 ? 'overdue' : left <= RESPONSE_DUE_SOON_MS ? 'due_soon' : 'running' }];
  }).sort((a, b) => Date.parse(a.dueAt) - Date.parse(b.dueAt));
}

/** The running response clocks of a company's reports (of some of them, or of every company's for the scan). */
export async function responseClocks(
  db: Executor,
  companyId: string | undefined,
  now: Date,
  reportIds?: readonly string[],
): Promise<{ reportId: string; companyId: string; clocks: ResponseClock[] }[]> {
  if (reportIds?.length === 0) return [];
  const c: (SQL | undefined)[] = [
    inArray(reports.status, [...PENDING.assess]),
    or(isNotNull(companies.responseAcknowledgeDays), isNotNull(companies.responseAssessDays)),
  ];
  if (companyId) c.push(eq(reports.companyId, companyId));
  if (reportIds) c.push(inArray(reports.id, [...reportIds]));
  const rows: ClockRow[] = await db
    .select({
      id: reports.id,
      companyId: reports.companyId,
      status: reports.status,
      createdAt: reports.createdAt,
      acknowledgeDays: companies.responseAcknowledgeDays,
      assessDays: companies.responseAssessDays,
    })
    .from(reports)
    .innerJoin(companies, eq(companies.id, reports.companyId))
    .where(and(...c));
  return rows.map((r) => ({ reportId: r.id, companyId: r.companyId, clocks: clocksOf(r, now) })).filter((r) => r.clocks.length > 0);
}

/**
 * One pass over every running response clock: each overdue one is announced once (unique key
 * report, clock) with a `vulnerability.response_overdue` event in the same transaction, which the
 * team's mail follows (docs/mail.md). Instances racing on one alert: the second insert does nothing.
 */
export async function raiseResponseAlerts(db: Db, now = new Date()): Promise<{ reportId: string; clock: ResponseClockName }[]> {
  const overdue = (await responseClocks(db, undefined, now)).flatMap((r) =>
    r.clocks.filter((c) => c.state === 'overdue').map((c) => ({ ...c, reportId: r.reportId, companyId: r.companyId })),
  );
  if (overdue.length === 0) return [];
  const known = await db
    .select({ reportId: responseAlerts.reportId, clock: responseAlerts.clock })
    .from(responseAlerts)
    .where(inArray(responseAlerts.reportId, [...new Set(overdue.map((o) => o.reportId))]));
  const seen = new Set(known.map((k) => `${k.reportId}/${k.clock}`));
  const raised: { reportId: string; clock: ResponseClockName }[] = [];
  for (const o of overdue.filter((x) => !seen.has(`${x.reportId}/${x.clock}`))) {
    const fresh = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(responseAlerts)
        .values({ id: newId(), companyId: o.companyId, reportId: o.reportId, clock: o.clock, dueAt: new Date(o.dueAt), createdAt: now })
        .onConflictDoNothing()
        .returning({ id: responseAlerts.id });
      if (!row) return false;
      await enqueueEvent(tx, o.companyId, 'vulnerability.response_overdue', { submissionId: o.reportId, clock: o.clock, dueAt: o.dueAt }, now);
      return true;
    });
    if (fresh) raised.push({ reportId: o.reportId, clock: o.clock });
  }
  return raised;
}
