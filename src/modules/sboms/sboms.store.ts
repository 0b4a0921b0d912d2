import { sql } from 'drizzle-orm';
import { sbomComponents, sbomDependencies } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Executor } from '../../db/client.js';
import { chunksOf, CHUNK_ROWS, param, pgTextArray } from '../../kernel/evidence-store.js';
import type { NormalComponent } from './sboms.normalised.js';

/**
 * Inserts the component list with one `unnest` statement per chunk: a handful of array
 * parameters instead of one parameter per cell, so 100,000 components are 20 statements and the
 * statement text stays small.
 */
export async function insertComponents(
  tx: Executor,
  sbomId: string,
  companyId: string,
  list: NormalComponent[],
  packageKeys: (string | null)[],
  rows = CHUNK_ROWS,
): Promise<void> {
  for await (const { start, chunk } of chunksOf(list, rows)) {
    const col = <T>(f: (c: NormalComponent) => T): T[] => chunk.map(f);
    await tx.execute(sql`
      insert into ${sbomComponents} (${sqlColumns(sbomComponents, ['sbomId', 'ordinal', 'companyId', 'ref', 'type', 'group', 'name', 'version', 'purl', 'cpe', 'licenses', 'hashes', 'supplier', 'vcsUrl', 'websiteUrl', 'relationship', 'packageKey'])})
      select ${sbomId}::uuid, t.ord, ${companyId}::uuid, t.ref, t.type, t.grp, t.name, t.version, t.purl, t.cpe, t.lic::text[], t.hashes::jsonb, t.supplier, t.vcs, t.web, t.rel, t.pkg
      from unnest(
        ${param(chunk.map((_, i) => start + i))}::int[], ${param(col((c) => c.ref))}::text[], ${param(col((c) => c.type))}::text[],
        ${param(col((c) => c.group))}::text[], ${param(col((c) => c.name))}::text[], ${param(col((c) => c.version))}::text[],
        ${param(col((c) => c.purl))}::text[], ${param(col((c) => c.cpe))}::text[], ${param(col((c) => pgTextArray(c.licenses)))}::text[],
        ${param(col((c) => JSON.stringify(c.hashes)))}::text[], ${param(col((c) => c.supplier))}::text[], ${param(col((c) => c.vcsUrl))}::text[],
        ${param(col((c) => c.websiteUrl))}::text[], ${param(col((c) => c.relationship))}::text[],
        ${param(packageKeys.slice(start, start + rows))}::text[]
      ) as t(ord, ref, type, grp, name, version, purl, cpe, lic, hashes, supplier, vcs, web, rel, pkg)`);
  }
}

export async function insertEdges(tx: Executor, sbomId: string, companyId: string, edges: [string, string][], rows = CHUNK_ROWS): Promise<void> {
  for await (const { chunk } of chunksOf(edges, rows)) {
    await tx.execute(sql`
      insert into ${sbomDependencies} (${sqlColumns(sbomDependencies, ['sbomId', 'companyId', 'fromRef', 'toRef'])})
      select ${sbomId}::uuid, ${companyId}::uuid, t.f, t.t
      from unnest(${param(chunk.map((e) => e[0]))}::text[], ${param(chunk.map((e) => e[1]))}::text[]) as t(f, t)`);
  }
}
