import { eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { retentionPolicies } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { randomHex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { assertAdministrator } from './assert-administrator.js';
import { RETENTION_DEFAULT_DAYS, type RetentionPolicy, UpdateRetentionPolicyInput } from './retention.schemas.js';

export type PolicyRow = typeof retentionPolicies.$inferSelect;

/** The company's policy row, made with the defaults (and a fresh pseudonym salt) the first time it is needed. */
export async function policyRow(tx: Executor, companyId: string): Promise<PolicyRow> {
  const [made] = await tx
    .insert(retentionPolicies)
    .values({ companyId, ...RETENTION_DEFAULT_DAYS, pseudonymSalt: randomHex(32), updatedAt: new Date() })
    .onConflictDoNothing()
    .returning();
  if (made) return made;
  const [row] = await tx.select().from(retentionPolicies).where(eq(retentionPolicies.companyId, companyId)).limit(1);
  if (!row) throw new Error('retention policy row vanished');
  return row;
}

export const toPolicy = (r: PolicyRow): RetentionPolicy => ({
  reporterDataDays: r.reporterDataDays,
  rejectedBodyDays: r.rejectedBodyDays,
  accessRecordDays: r.accessRecordDays,
  customised: (['reporterDataDays', 'rejectedBodyDays', 'accessRecordDays'] as const).some((k) => r[k] !== RETENTION_DEFAULT_DAYS[k]),
  lastRunAt: r.lastRunAt?.toISOString() ?? null,
});

/** The company's retention policy (the defaults until an administrator changes it). */
export async function getRetentionPolicy(db: Db, companyId: string): Promise<RetentionPolicy> {
  const [row] = await db.select().from(retentionPolicies).where(eq(retentionPolicies.companyId, companyId)).limit(1);
  return row ? toPolicy(row) : { ...RETENTION_DEFAULT_DAYS, customised: false, lastRunAt: null };
}

/** Changes some of the policy's numbers (administrators); the audit row names the old and new numbers. */
export async function updateRetentionPolicy(db: Db, ctx: Context, companyId: string, raw: unknown): Promise<RetentionPolicy> {
  const input = parseInput(UpdateRetentionPolicyInput, raw);
  return db.transaction(async (tx) => {
    await assertAdministrator(tx, ctx, companyId);
    const before = await policyRow(tx, companyId);
    const at = new Date();
    const [row] = await tx
      .update(retentionPolicies)
      .set({ ...input, updatedAt: at })
      .where(eq(retentionPolicies.companyId, companyId))
      .returning();
    if (!row) throw new Error('retention policy row vanished');
    const from = { reporterDataDays: before.reporterDataDays, rejectedBodyDays: before.rejectedBodyDays, accessRecordDays: before.accessRecordDays };
    await recordAudit(tx, ctx, { companyId, action: 'retention.policy_update', targetType: 'company', targetId: companyId, details: { from, to: input }, at });
    return toPolicy(row);
  });
}
