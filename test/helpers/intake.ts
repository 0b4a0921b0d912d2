import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { auditLog, companies, outboxEvents, reports, triageJobs } from '../../src/db/schema/index.js';

/** Everything a filed report leaves behind, for assertions on side effects. */
export async function intakeState(db: Db, companyId: string) {
  const [company] = await db.select().from(companies).where(eq(companies.id, companyId));
  return {
    reports: await db.select().from(reports).where(eq(reports.companyId, companyId)).orderBy(reports.createdAt),
    events: await db.select().from(outboxEvents).where(eq(outboxEvents.companyId, companyId)).orderBy(outboxEvents.createdAt),
    jobs: await db.select().from(triageJobs).where(eq(triageJobs.companyId, companyId)),
    audits: await db.select().from(auditLog).where(eq(auditLog.companyId, companyId)).orderBy(auditLog.id),
    firstReportAt: company?.firstReportAt ?? null,
  };
}

export async function countReports(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(reports);
  return Number(row?.n ?? 0);
}

let seq = 0;
/** A fresh client address per request, so tests of other rules never trip a per-address limit. */
export const freshAddress = (): string => {
  seq++;
  return `10.${(seq >> 16) & 255}.${(seq >> 8) & 255}.${seq & 255}`;
};

/** A syntactically valid armoured public key block (the body is not a real key; only its shape is checked). */
export const ARMOURED_KEY = `-----BEGIN PGP PUBLIC KEY BLOCK-----
Comment: test key

mDMEZS8XyBYJKwYBBAHaRw8BAQdAbTn4N0d9pq1mVZ2Tkx0qk9R2o3WbXh7Rl2b8
Yq1x0bS0EVRlc3QgPHRAZXhhbXBsZS5vcmc+iJAEExYIADgWIQQ=
=q8Rt
-----END PGP PUBLIC KEY BLOCK-----`;
