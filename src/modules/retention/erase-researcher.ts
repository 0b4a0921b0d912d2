import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { companies, erasureRequests, reports } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { isUuid, newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { selectRows } from '../../db/sql-rows.js';
import { ERASURE_MAIL_KIND } from '../mail/mail-kinds.js';
import { queueMail } from '../mail/mail-queue.js';
import { recordAudit } from '../audit/record-audit.js';
import { assertAdministrator } from './assert-administrator.js';
import { pseudonymiseReports } from './pseudonymise.js';
import { isHeld } from './report-guards.js';
import { identityNeedles, keyIdentities, pseudonymFor } from './researcher-identity.js';
import { type ErasureRequest, RecordErasureInput } from './retention.schemas.js';
import { creditNames } from './retention-run.js';
import { policyRow } from './retention-policy.js';

type PersonRow = { id: string; contact_email: string | null; pgp_key: string | null; confirmed: boolean; held: boolean };

/**
 * The reports that carry the same person's data as `reportId`: that report, and every report of the
 * company filed with the same contact address (compared without case), not yet pseudonymised.
 */
async function personReports(tx: Executor, companyId: string, reportId: string): Promise<PersonRow[]> {
  return selectRows<PersonRow>(
    tx,
    sql`select r.id, r.contact_email, r.pgp_key, (r.researcher_confirmed_at is not null) as confirmed, ${isHeld('r')} as held
      from reports r, (select contact_email from reports where company_id = ${companyId} and id = ${reportId}) as anchor
      where r.company_id = ${companyId} and r.pseudonymised_at is null
        and (r.id = ${reportId} or (anchor.contact_email is not null and lower(r.contact_email) = lower(anchor.contact_email)))`,
  );
}

/** Pseudonymises those of a person's reports that no hold covers; marks the held ones as waiting for their release. */
async function applyTo(tx: Executor, companyId: string, rows: PersonRow[], pseudonym: string, at: Date): Promise<{ applied: number; held: number }> {
  const free = rows.filter((r) => !r.held);
  const held = rows.filter((r) => r.held);
  if (free.length > 0) {
    const keys = await Promise.all(rows.map((r) => keyIdentities(r.pgp_key)));
    const needles = identityNeedles([
      ...rows.map((r) => r.contact_email),
      ...keys.flat(),
      ...(await creditNames(
        tx,
        companyId,
        rows.map((r) => r.id),
      )),
    ]);
    await pseudonymiseReports(tx, { companyId, reportIds: free.map((r) => r.id), pseudonym, needles, endStatusLink: false, at });
  }
  for (const r of held) {
    // The pseudonym without the date marks "erasure requested, waiting for the hold" (releaseHold applies it).
    await tx
      .update(reports)
      .set({ researcherPseudonym: pseudonym })
      .where(and(eq(reports.companyId, companyId), eq(reports.id, r.id)));
  }
  return { applied: free.length, held: held.length };
}

export type ErasureOutcome = ErasureRequest & { mailed: boolean };

async function erase(
  db: Db,
  ctx: Context,
  companyId: string,
  reportId: string,
  channel: 'researcher' | 'administrator',
  o: { mail: boolean },
): Promise<ErasureOutcome> {
  return db.transaction(async (tx) => {
    if (channel === 'administrator') await assertAdministrator(tx, ctx, companyId);
    const rows = await personReports(tx, companyId, reportId);
    const anchor = rows.find((r) => r.id === reportId);
    if (!anchor) {
      const [done] = await tx
        .select()
        .from(erasureRequests)
        .where(and(eq(erasureRequests.companyId, companyId), eq(erasureRequests.reportId, reportId)))
        .orderBy(desc(erasureRequests.requestedAt))
        .limit(1);
      const [exists] = await tx
        .select({ id: reports.id })
        .from(reports)
        .where(and(eq(reports.companyId, companyId), eq(reports.id, reportId)))
        .limit(1);
      if (!exists) throw notFound('report');
      if (done) return { ...toView(done), mailed: false };
      // Already pseudonymised by the retention policy: nothing of the person is left to erase.
    }
    const policy = await policyRow(tx, companyId);
    const pseudonym = pseudonymFor(policy.pseudonymSalt, anchor?.contact_email ?? null, reportId);
    // Only an address the researcher confirmed is told by mail, and only while it is still there.
    const mailedTo = anchor?.confirmed && anchor.contact_email ? anchor.contact_email : null;
    const at = new Date();
    const { applied, held } = await applyTo(tx, companyId, rows, pseudonym, at);
    const [row] = await tx
      .insert(erasureRequests)
      .values({
        id: newId(),
        companyId,
        reportId,
        channel,
        pseudonym,
        state: held > 0 ? 'held' : 'applied',
        reportCount: rows.length,
        recordedBy:
          channel === 'researcher'
            ? 'researcher'
            : ctx.actor.type === 'user' || ctx.actor.type === 'api_key'
              ? `${ctx.actor.type}:${ctx.actor.id}`
              : ctx.actor.type,
        requestedAt: at,
        appliedAt: held > 0 ? null : at,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    // The request's own audit row: no client address or browser string (the researcher's own request
    // must not record them again), only counts and the pseudonym.
    await recordAudit(
      tx,
      { ...ctx, ip: undefined, userAgent: undefined },
      {
        companyId,
        action: 'retention.erasure',
        targetType: 'report',
        targetId: reportId,
        details: { channel, pseudonym, reports: rows.length, applied, held },
        at,
      },
    );
    // Told by mail in the same transaction, before the address is gone from every other row; the
    // notice's own row drops the address once it is sent (src/modules/mail/mail-queue.ts).
    if (mailedTo && o.mail) {
      const [company] = await tx.select({ name: companies.name }).from(companies).where(eq(companies.id, companyId)).limit(1);
      await queueMail(tx, {
        companyId,
        kind: ERASURE_MAIL_KIND,
        recipient: mailedTo,
        data: { company: company?.name ?? '', pseudonym, reports: String(rows.length), state: row.state },
        now: at,
      });
    }
    return { ...toView(row), mailed: mailedTo !== null && o.mail };
  });
}

const toView = (r: typeof erasureRequests.$inferSelect): ErasureRequest => ({
  id: r.id,
  reportId: r.reportId,
  channel: r.channel,
  pseudonym: r.pseudonym,
  state: r.state,
  reportCount: r.reportCount,
  requestedAt: r.requestedAt.toISOString(),
  appliedAt: r.appliedAt?.toISOString() ?? null,
});

/** A researcher's own request, through the status link of one of their reports (the portal checked the token). */
export const eraseThroughStatusLink = (db: Db, ctx: Context, companyId: string, reportId: string, o: { mail: boolean }): Promise<ErasureOutcome> =>
  erase(db, { ...ctx, actor: { type: 'public' } }, companyId, reportId, 'researcher', o);

/** An administrator records a request the researcher made elsewhere (mail, letter), naming one of their reports. */
export async function recordErasure(db: Db, ctx: Context, companyId: string, raw: unknown, o: { mail: boolean } = { mail: false }): Promise<ErasureRequest> {
  const { reportId } = parseInput(RecordErasureInput, raw);
  const { mailed: _, ...view } = await erase(db, ctx, companyId, reportId, 'administrator', o);
  return view;
}

/** The company's erasure requests, newest first (administrators). */
export async function listErasures(db: Db, ctx: Context, companyId: string): Promise<ErasureRequest[]> {
  await assertAdministrator(db, ctx, companyId);
  const rows = await db.select().from(erasureRequests).where(eq(erasureRequests.companyId, companyId)).orderBy(desc(erasureRequests.requestedAt)).limit(500);
  return rows.map(toView);
}

/** The latest erasure request made about a report, for its status page; undefined when none. */
export async function erasureOfReport(db: Executor, companyId: string, reportId: string): Promise<ErasureRequest | undefined> {
  if (!isUuid(reportId)) return undefined;
  const [row] = await db
    .select()
    .from(erasureRequests)
    .where(
      and(
        eq(erasureRequests.companyId, companyId),
        sql`${erasureRequests.pseudonym} = (select researcher_pseudonym from reports where company_id = ${companyId} and id = ${reportId})`,
      ),
    )
    .orderBy(desc(erasureRequests.requestedAt))
    .limit(1);
  return row ? toView(row) : undefined;
}

/**
 * Applies the erasure requests that were waiting for a hold now released: every report marked with a
 * pseudonym but not yet pseudonymised and no longer held. Called by releaseHold in its transaction.
 */
export async function applyReleasedErasures(tx: Executor, companyId: string, at: Date): Promise<number> {
  const waiting = await selectRows<{ id: string; pseudonym: string }>(
    tx,
    sql`select r.id, r.researcher_pseudonym as pseudonym from reports r where r.company_id = ${companyId}
      and r.researcher_pseudonym is not null and r.pseudonymised_at is null and not ${isHeld('r')}`,
  );
  for (const w of waiting) {
    const rows = (await personReports(tx, companyId, w.id)).filter((r) => !r.held);
    await applyTo(tx, companyId, rows, w.pseudonym, at);
  }
  await tx.execute(sql`update erasure_requests e set state = 'applied', applied_at = ${at}
    where e.company_id = ${companyId} and e.state = 'held' and not exists (
      select 1 from reports r where r.company_id = e.company_id and r.researcher_pseudonym = e.pseudonym and r.pseudonymised_at is null)`);
  return waiting.length;
}
