import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { CLOSED_STATES } from '../reports/lifecycle.js';
import { isHeld, isTechnicalDocumentation } from './report-guards.js';
import type { RuleOutcome } from './retention.schemas.js';
import type { PolicyRow } from './retention-policy.js';

const DAY_MS = 86_400_000;
/** A report is closed once disclosed or closed as duplicate, not applicable, spam or informative (src/modules/reports/lifecycle.ts). */
const CLOSED = ['disclosed', ...CLOSED_STATES];
const REJECTED = ['spam', 'not_applicable'];

export type DueReport = { id: string; contactEmail: string | null; pgpKey: string | null; dueSince: Date };
export type RetentionPlan = {
  reporterData: DueReport[];
  rejectedBodies: DueReport[];
  access: { cutoff: Date | null; sessions: number; auditRows: number };
  outcomes: RuleOutcome[];
};

type Row = { id: string; contact_email: string | null; pgp_key: string | null; due_since: string | Date; held: boolean; documentation: boolean };
const cutoffOf = (now: Date, days: number | null): Date | null => (days === null ? null : new Date(now.getTime() - days * DAY_MS));
const toDue = (r: Row): DueReport => ({ id: r.id, contactEmail: r.contact_email, pgpKey: r.pgp_key, dueSince: new Date(r.due_since) });
const oldest = (dates: Date[]): string | null => (dates.length === 0 ? null : new Date(Math.min(...dates.map((d) => d.getTime()))).toISOString());
const list = (xs: string[]) =>
  sql.join(
    xs.map((x) => sql`${x}`),
    sql`, `,
  );

/**
 * What each rule of the policy would do at `now` (docs/retention.md "Rules"). A closed report's
 * clock starts at its last change, so a late edit keeps it longer, never shorter. The preview shows
 * this plan and the run applies exactly it, in the same transaction, so both count the same items.
 */
export async function planRetention(tx: Executor, companyId: string, policy: PolicyRow, now: Date): Promise<RetentionPlan> {
  const outcomes: RuleOutcome[] = [];
  const reporterCut = cutoffOf(now, policy.reporterDataDays);
  const reporter = reporterCut
    ? await selectRows<Row>(
        tx,
        sql`select r.id, r.contact_email, r.pgp_key, r.updated_at as due_since, ${isHeld('r')} as held, false as documentation
          from reports r where r.company_id = ${companyId} and r.status in (${list(CLOSED)}) and r.pseudonymised_at is null
            and r.updated_at < ${reporterCut} order by r.updated_at`,
      )
    : [];
  const reporterDue = reporter.filter((r) => !r.held).map(toDue);
  outcomes.push({
    rule: 'reporter_data',
    days: policy.reporterDataDays,
    count: reporterDue.length,
    oldest: oldest(reporterDue.map((r) => r.dueSince)),
    held: reporter.filter((r) => r.held).length,
    keptByCraFloor: 0,
  });

  const rejectedCut = cutoffOf(now, policy.rejectedBodyDays);
  const rejected = rejectedCut
    ? await selectRows<Row>(
        tx,
        sql`select r.id, r.contact_email, r.pgp_key, r.updated_at as due_since, ${isHeld('r')} as held,
            ${isTechnicalDocumentation('r')} as documentation
          from reports r where r.company_id = ${companyId} and r.status in (${list(REJECTED)}) and r.body_removed_at is null
            and r.updated_at < ${rejectedCut} order by r.updated_at`,
      )
    : [];
  const rejectedDue = rejected.filter((r) => !r.held && !r.documentation).map(toDue);
  outcomes.push({
    rule: 'rejected_bodies',
    days: policy.rejectedBodyDays,
    count: rejectedDue.length,
    oldest: oldest(rejectedDue.map((r) => r.dueSince)),
    held: rejected.filter((r) => r.held).length,
    keptByCraFloor: rejected.filter((r) => !r.held && r.documentation).length,
  });

  const accessCut = cutoffOf(now, policy.accessRecordDays);
  let access = { cutoff: accessCut, sessions: 0, auditRows: 0 };
  let accessOldest: string | null = null;
  let accessHeld = 0;
  if (accessCut) {
    type Count = { n: number; oldest: string | null };
    const [s] = await selectRows<Count>(
      tx,
      sql`select count(*)::int as n, min(expires_at) as oldest from sessions where company_id = ${companyId} and expires_at < ${accessCut}`,
    );
    const [a] = await selectRows<Count>(
      tx,
      sql`select count(*)::int as n, min(at) as oldest from audit_log where company_id = ${companyId} and at < ${accessCut}
        and (ip is not null or user_agent is not null)`,
    );
    access = { cutoff: accessCut, sessions: Number(s?.n ?? 0), auditRows: Number(a?.n ?? 0) };
    const [hold] = await selectRows<{ held: boolean }>(
      tx,
      sql`select exists (select 1 from legal_holds where company_id = ${companyId} and scope = 'company' and released_at is null) as held`,
    );
    // A hold on the whole company keeps its access records too: they may be what the matter is about.
    if (hold?.held) {
      accessHeld = access.sessions + access.auditRows;
      access = { cutoff: null, sessions: 0, auditRows: 0 };
    }
    accessOldest = oldest([s?.oldest, a?.oldest].filter((d): d is string => d !== null && d !== undefined).map((d) => new Date(d)));
  }
  outcomes.push({
    rule: 'access_records',
    days: policy.accessRecordDays,
    count: access.sessions + access.auditRows,
    oldest: access.cutoff ? accessOldest : null,
    held: accessHeld,
    keptByCraFloor: 0,
  });
  return { reporterData: reporterDue, rejectedBodies: rejectedDue, access, outcomes };
}
