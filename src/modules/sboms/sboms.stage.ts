import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { sbomStages } from '../../db/schema/index.js';
import type { NormalSbom } from './sboms.normalised.js';
import { insertComponents, insertEdges } from './sboms.store.js';

/** Rows per staged statement: the longest another company's statement waits behind a push's write. */
const STAGE_CHUNK_ROWS = 1000;

/** A stage entry this old belongs to a push that never ended (the process stopped mid-push). */
export const STALE_STAGE_MS = 60 * 60 * 1000;

/**
 * Writes a push's components and dependency graph before its transaction, each chunk a statement
 * of its own (issue 33). On the embedded database one session serves every company and an open
 * transaction holds it until it ends: written inside the push's transaction, a 60,000-component
 * SBOM kept every other company's statements (a key's audit row, a read, another push) waiting for
 * seconds; written here, they wait for one chunk at most. The rows name an SBOM id no `sboms` row
 * has yet, and every reader reaches components through their SBOM, so they are seen only once the
 * push's transaction inserts that row (`publishStage`): the push is still stored whole or not at all.
 * A failure here removes what was written.
 */
export async function stageRows(
  db: Db,
  s: { sbomId: string; companyId: string },
  normal: Pick<NormalSbom, 'components' | 'edges'>,
  packageKeys: (string | null)[],
  now: Date,
): Promise<void> {
  await sweepStaleStages(db, s.companyId, now);
  await db.insert(sbomStages).values({ id: s.sbomId, companyId: s.companyId, createdAt: now });
  try {
    await insertComponents(db, s.sbomId, s.companyId, normal.components, packageKeys, STAGE_CHUNK_ROWS);
    await insertEdges(db, s.sbomId, s.companyId, normal.edges, STAGE_CHUNK_ROWS);
  } catch (e) {
    await unstage(db, s).catch(() => undefined);
    throw e;
  }
}

/** In the push's transaction, beside the insert of its `sboms` row: the staged rows are the SBOM's now. */
export async function publishStage(tx: Executor, sbomId: string): Promise<void> {
  await tx.delete(sbomStages).where(eq(sbomStages.id, sbomId));
}

/**
 * Removes a push's staged rows after its transaction failed. Guarded by the SBOM row's absence, so
 * an error reported for a transaction that did commit (a connection lost at COMMIT) removes nothing.
 */
export async function unstage(db: Db, s: { sbomId: string; companyId: string }): Promise<void> {
  const unpublished = sql`not exists (select 1 from sboms where id = ${s.sbomId}::uuid)`;
  await db.execute(sql`delete from sbom_components where sbom_id = ${s.sbomId}::uuid and company_id = ${s.companyId}::uuid and ${unpublished}`);
  await db.execute(sql`delete from sbom_dependencies where sbom_id = ${s.sbomId}::uuid and company_id = ${s.companyId}::uuid and ${unpublished}`);
  await db.delete(sbomStages).where(and(eq(sbomStages.id, s.sbomId), eq(sbomStages.companyId, s.companyId)));
}

/** The rows of the company's pushes that never ended, removed by its next push. */
async function sweepStaleStages(db: Db, companyId: string, now: Date): Promise<void> {
  const stale = await db
    .select({ id: sbomStages.id })
    .from(sbomStages)
    .where(and(eq(sbomStages.companyId, companyId), lt(sbomStages.createdAt, new Date(now.getTime() - STALE_STAGE_MS))));
  for (const { id } of stale) await unstage(db, { sbomId: id, companyId });
}
