import { and, eq, inArray, isNotNull, notInArray, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { article14Filings, reports } from '../../db/schema/index.js';
import { CLOSED_STATES } from '../reports/lifecycle.js';
import { type Article14Facts, type Article14Status, article14Status } from './article14-clock.js';

export type ReportArticle14 = { reportId: string; companyId: string; status: Article14Status };

/**
 * The Article 14 status of every report it may apply to (actively exploited or severe incident,
 * awareness known, not closed), of one company or (the deadline scan) of all: two queries however many reports.
 */
export async function article14Statuses(db: Executor, companyId: string | undefined, now: Date, reportIds?: readonly string[]): Promise<ReportArticle14[]> {
  const conds: (SQL | undefined)[] = [
    or(eq(reports.activelyExploited, true), eq(reports.severeIncident, true)),
    isNotNull(reports.awareAt),
    // A report closed as a duplicate, not applicable, spam or informative is no vulnerability of the
    // product: no Article 14 clock, badge or deadline alert runs for it.
    notInArray(reports.status, [...CLOSED_STATES]),
  ];
  if (companyId) conds.push(eq(reports.companyId, companyId));
  if (reportIds) {
    if (reportIds.length === 0) return [];
    conds.push(inArray(reports.id, [...reportIds]));
  }
  const rows = await db
    .select({
      id: reports.id,
      companyId: reports.companyId,
      activelyExploited: reports.activelyExploited,
      severeIncident: reports.severeIncident,
      awareAt: reports.awareAt,
      fixAvailableAt: reports.fixAvailableAt,
    })
    .from(reports)
    .where(and(...conds));
  if (rows.length === 0) return [];
  const filings = await db
    .select()
    .from(article14Filings)
    .where(
      inArray(
        article14Filings.reportId,
        rows.map((r) => r.id),
      ),
    );
  return rows.map((r) => {
    const facts: Article14Facts = {
      activelyExploited: r.activelyExploited,
      severeIncident: r.severeIncident,
      awareAt: r.awareAt,
      fixAvailableAt: r.fixAvailableAt,
      filings: Object.fromEntries(filings.filter((f) => f.reportId === r.id).map((f) => [f.stage, { filedAt: f.filedAt }])),
    };
    return { reportId: r.id, companyId: r.companyId, status: article14Status(facts, now) };
  });
}

/** The earliest unfiled stage with a due time: what a badge in the inbox shows. */
export function nextDeadline(s: Article14Status): Article14Status['stages'][number] | undefined {
  return s.stages.filter((x) => !x.filing && x.dueAt).sort((a, b) => Date.parse(a.dueAt as string) - Date.parse(b.dueAt as string))[0];
}
