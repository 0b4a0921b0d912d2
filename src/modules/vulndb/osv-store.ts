import { sql } from 'drizzle-orm';
import { vulndbAffected, vulndbRecords } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Db } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { lockFor } from '../../db/advisory-lock.js';
import { param, pgTextArray } from '../../kernel/evidence-store.js';
import type { StoredRecord } from './osv-record.js';

export type BatchResult = { applied: number; unchanged: number; older: number; withdrawn: number; changedPackages: Set<string> };

/**
 * Applies one batch of OSV records in one transaction: a record is written when it is new, or when
 * its bytes changed and its `modified` is not older than the stored one (a stale mirror never
 * overwrites a newer record; Go's repository copies all carry the zero date, so equal dates compare
 * by content). A withdrawn record is kept with no affected entries, so it never matches. Returns
 * every package key whose advisories changed (before and after), for re-matching.
 */
export async function applyOsvBatch(db: Db, source: string, batch: StoredRecord[]): Promise<BatchResult> {
  const result: BatchResult = { applied: 0, unchanged: 0, older: 0, withdrawn: 0, changedPackages: new Set() };
  if (batch.length === 0) return result;
  // The last copy of an id within one batch wins, as it would across batches.
  const byId = new Map(batch.map((r) => [r.id, r]));
  return db.transaction(async (tx) => {
    await lockFor(tx, 'vulndb', source);
    const ids = [...byId.keys()];
    const existing = await selectRows<{ id: string; modified: Date | string; sha256: string }>(
      tx,
      sql`select id, modified, sha256 from vulndb_records where id = any(${param(ids)}::text[])`,
    );
    const stored = new Map(existing.map((r) => [r.id, r]));
    const write: StoredRecord[] = [];
    for (const r of byId.values()) {
      const old = stored.get(r.id);
      if (old && old.sha256 === r.sha256) result.unchanged++;
      else if (old && new Date(old.modified).getTime() > r.modified.getTime()) result.older++;
      else write.push(r);
    }
    if (write.length === 0) return result;
    const writeIds = write.map((r) => r.id);
    const removed = await selectRows<{ package_key: string }>(
      tx,
      sql`delete from vulndb_affected where record_id = any(${param(writeIds)}::text[]) returning package_key`,
    );
    for (const row of removed) result.changedPackages.add(row.package_key);
    const col = <T>(f: (r: StoredRecord) => T): T[] => write.map(f);
    await tx.execute(sql`
      insert into ${vulndbRecords} (${sqlColumns(vulndbRecords, ['id', 'source', 'modified', 'published', 'withdrawn', 'aliases', 'summary', 'details', 'severity', 'references', 'cwes', 'sha256'])})
      select t.id, ${source}, t.modified, t.published, t.withdrawn, t.aliases::text[], t.summary, t.details, t.severity::jsonb, t.refs::jsonb, t.cwes::text[], t.sha256
      from unnest(
        ${param(writeIds)}::text[], ${param(col((r) => r.modified.toISOString()))}::timestamptz[], ${param(col((r) => r.published?.toISOString() ?? null))}::timestamptz[],
        ${param(col((r) => r.withdrawn?.toISOString() ?? null))}::timestamptz[], ${param(col((r) => pgTextArray(r.aliases)))}::text[],
        ${param(col((r) => r.summary))}::text[], ${param(col((r) => r.details))}::text[], ${param(col((r) => JSON.stringify(r.severity)))}::text[],
        ${param(col((r) => JSON.stringify(r.references)))}::text[], ${param(col((r) => pgTextArray(r.cwes)))}::text[], ${param(col((r) => r.sha256))}::text[]
      ) as t(id, modified, published, withdrawn, aliases, summary, details, severity, refs, cwes, sha256)
      on conflict (id) do update set source = excluded.source, modified = excluded.modified, published = excluded.published,
        withdrawn = excluded.withdrawn, aliases = excluded.aliases, summary = excluded.summary, details = excluded.details,
        severity = excluded.severity, "references" = excluded."references", cwes = excluded.cwes, sha256 = excluded.sha256`);
    const entries = write.flatMap((r) => (r.withdrawn ? [] : r.affected.map((a) => ({ id: r.id, aliases: r.aliases, ...a }))));
    for (const r of write) if (r.withdrawn) result.withdrawn++;
    for (const e of entries) result.changedPackages.add(e.packageKey);
    if (entries.length > 0) {
      const ecol = <T>(f: (e: (typeof entries)[number]) => T): T[] => entries.map(f);
      await tx.execute(sql`
        insert into ${vulndbAffected} (${sqlColumns(vulndbAffected, ['recordId', 'ordinal', 'packageKey', 'type', 'release', 'ranges', 'versions', 'aliases'])})
        select t.id, t.ord, t.pkg, t.type, t.rel, t.ranges::jsonb, t.versions::text[], t.aliases::text[]
        from unnest(
          ${param(ecol((e) => e.id))}::text[], ${param(ecol((e) => e.ordinal))}::int[], ${param(ecol((e) => e.packageKey))}::text[],
          ${param(ecol((e) => e.type))}::text[], ${param(ecol((e) => e.release))}::text[], ${param(ecol((e) => JSON.stringify(e.ranges)))}::text[],
          ${param(ecol((e) => pgTextArray(e.versions)))}::text[], ${param(ecol((e) => pgTextArray(e.aliases)))}::text[]
        ) as t(id, ord, pkg, type, rel, ranges, versions, aliases)`);
    }
    result.applied = write.length;
    return result;
  });
}
