import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { lockFor } from '../../db/advisory-lock.js';
import { selectRows, selectLargeRows } from '../../db/sql-rows.js';
import { sqlColumns } from '../../db/sql-columns.js';
import { sbomMatchJobs } from '../../db/schema/index.js';
import { param, readPaged } from '../../kernel/evidence-store.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { type ComponentIn, packagesOf } from './find-known-vulns.js';
import { evaluateSboms, type MatchItem, recordEvaluated } from './match-sbom.js';

/**
 * SBOMs of more components than this are matched after the push answers (docs/evidence.md
 * "Matching after the answer"); smaller ones in the push's own transaction.
 */
export const MATCH_INLINE_MAX_COMPONENTS = 1000;

export type ClaimedSbomMatch = { sbomId: string; companyId: string; attempts: number };

/** Longest back-off between two attempts of a failing match: retried, never given up. */
const MAX_BACKOFF_MS = 60 * 60_000;

/** Queues the match of a pushed SBOM version, in the push's transaction (its insert wakes the job). */
export async function queueSbomMatch(tx: Executor, sbomId: string, companyId: string, now: Date): Promise<void> {
  await tx.execute(sql`
    insert into ${sbomMatchJobs} (${sqlColumns(sbomMatchJobs, ['sbomId', 'companyId', 'createdAt'])}) values (${sbomId}::uuid, ${companyId}::uuid, ${now.toISOString()}::timestamptz)
    on conflict (sbom_id) do nothing`);
}

/** Which of these SBOM versions of the company still wait for their match. */
export async function pendingSbomMatches(db: Executor, companyId: string, sbomIds: readonly string[]): Promise<Set<string>> {
  if (sbomIds.length === 0) return new Set();
  const rows = await selectRows<{ sbom_id: string }>(
    db,
    sql`select sbom_id from sbom_match_jobs where company_id = ${companyId}::uuid and sbom_id = any(${param([...sbomIds])}::uuid[])`,
  );
  return new Set(rows.map((r) => r.sbom_id));
}

/**
 * Claims due matches, oldest first: waiting ones whose back-off passed and running ones whose lease
 * lapsed (their process died). `skip locked` lets instances claim side by side without taking one twice.
 */
export async function claimSbomMatches(db: Db, now: Date, opts: { batch: number; leaseMs: number }): Promise<ClaimedSbomMatch[]> {
  const rows = await selectRows<{ sbom_id: string; company_id: string; attempts: number }>(
    db,
    sql`
    with picked as (
      select sbom_id from sbom_match_jobs
      where locked_until is null or locked_until <= ${now.toISOString()}::timestamptz
      order by created_at
      limit ${opts.batch}
      for update skip locked
    )
    update sbom_match_jobs j set attempts = j.attempts + 1, locked_until = ${new Date(now.getTime() + opts.leaseMs).toISOString()}::timestamptz
      from picked where j.sbom_id = picked.sbom_id
    returning j.sbom_id, j.company_id, j.attempts`,
  );
  return rows.map((r) => ({ sbomId: r.sbom_id, companyId: r.company_id, attempts: Number(r.attempts) }));
}

/** A failed attempt: tried again after 2^attempts × base, at most an hour later; the job is kept. */
export async function failSbomMatch(db: Db, job: ClaimedSbomMatch, error: string, now: Date, backoffBaseMs = 15_000): Promise<void> {
  const wait = Math.min(MAX_BACKOFF_MS, backoffBaseMs * 2 ** Math.min(job.attempts, 20));
  await db.execute(sql`
    update sbom_match_jobs set last_error = ${error.slice(0, 500)}, locked_until = ${new Date(now.getTime() + wait).toISOString()}::timestamptz
    where sbom_id = ${job.sbomId}::uuid and company_id = ${job.companyId}::uuid`);
}

type SbomRow = { id: string; company_id: string; product_id: string; identifier: string; version: number };

/**
 * Runs one queued match: the SBOM's components are read and evaluated outside any transaction
 * (PGlite serialises transactions: a long read inside one would hold every other writer), then one
 * transaction under the product's SBOM lock records the matches, the run, the `sbom.matched` event
 * and removes the job. A version that is no longer its product's latest is not matched (the newer
 * one is); one that a feed update matched meanwhile keeps that match. Either way `sbom.matched` says which.
 */
export async function runSbomMatch(db: Db, job: ClaimedSbomMatch): Promise<'matched' | 'superseded' | 'gone'> {
  const [sbom] = await selectRows<SbomRow>(
    db,
    sql`select s.id, s.company_id, s.product_id, p.identifier, s.version from sboms s join products p on p.id = s.product_id
        where s.id = ${job.sbomId}::uuid and s.company_id = ${job.companyId}::uuid`,
  );
  if (!sbom) {
    await db.execute(sql`delete from sbom_match_jobs where sbom_id = ${job.sbomId}::uuid`);
    return 'gone';
  }
  const components = await readPaged((from, to) =>
    selectLargeRows<ComponentIn>(
      db,
      sql`select ordinal, name, version, purl from sbom_components where sbom_id = ${sbom.id}::uuid and company_id = ${sbom.company_id}::uuid
          and ordinal >= ${from} and ordinal < ${to}`,
      sql`q.ordinal`,
    ),
  );
  const now = new Date();
  const item: MatchItem = {
    target: { companyId: sbom.company_id, productId: sbom.product_id, productIdentifier: sbom.identifier, sbomId: sbom.id, now },
    components,
    packages: packagesOf(components),
  };
  const evaluated = await evaluateSboms(db, [item]);
  return db.transaction(async (tx) => {
    await lockFor(tx, 'sbom', sbom.product_id);
    const [state] = await selectRows<{ latest: boolean; matched: boolean; queued: boolean }>(
      tx,
      sql`select s.version = (select max(l.version) from sboms l where l.product_id = s.product_id) as latest,
            exists (select 1 from sbom_match_runs r where r.sbom_id = s.id) as matched,
            exists (select 1 from sbom_match_jobs j where j.sbom_id = s.id) as queued
          from sboms s where s.id = ${sbom.id}::uuid`,
    );
    // Another instance finished it while this one read (its lease had lapsed): nothing left to do.
    if (!state?.queued) return 'gone';
    const outcome = state.latest ? 'matched' : 'superseded';
    const data: Record<string, unknown> = { sbomId: sbom.id, productIdentifier: sbom.identifier, version: sbom.version, outcome };
    if (state.latest && !state.matched) {
      const [r] = await recordEvaluated(tx, [item], evaluated);
      Object.assign(data, { components: r!.stats.components, matchable: r!.stats.matchable, opened: r!.opened.length, kept: r!.kept, resolved: r!.resolved });
    }
    await tx.execute(sql`delete from sbom_match_jobs where sbom_id = ${sbom.id}::uuid`);
    await enqueueEvent(tx, sbom.company_id, 'sbom.matched', data, now);
    return outcome;
  });
}
