import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';

/** What administrators see of each feed: its last import or sync, records and last error. */
export type FeedStatus = { source: string; importedAt: string | null; checkedAt: string | null; records: number; lastError: string | null };

const iso = (v: string | Date | null): string | null => (v === null ? null : new Date(v).toISOString());

/**
 * Each feed and synchronised URL, newest first. Single OSV record files imported one by one are
 * left out (one row each in the store); their archives and folders' sources are listed.
 */
export async function listFeedStatus(db: Db): Promise<FeedStatus[]> {
  const rows = await selectRows<{
    source: string;
    imported_at: string | Date | null;
    checked_at: string | Date | null;
    records: number;
    last_error: string | null;
  }>(
    db,
    sql`select source, imported_at, checked_at, records, last_error from vulndb_sources
        where source like 'url:%' or source not like '%/%'
        order by greatest(imported_at, checked_at) desc nulls last, source limit 100`,
  );
  return rows.map((r) => ({ source: r.source, importedAt: iso(r.imported_at), checkedAt: iso(r.checked_at), records: r.records, lastError: r.last_error }));
}
