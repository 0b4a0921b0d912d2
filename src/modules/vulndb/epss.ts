// FIRST EPSS scores: a CSV (often gzip) whose first line is `#model_version:...,score_date:...`,
// then `cve,epss,percentile`. Upserted in chunks; the file is read as a stream.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { vulndbEpss } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Db } from '../../db/client.js';
import { lockFor } from '../../db/advisory-lock.js';
import { CHUNK_ROWS, param } from '../../kernel/evidence-store.js';
import { validation } from '../../kernel/errors.js';

export type EpssImport = { scoreDate: string; rows: number; rejected: number };

export function openEpss(path: string): Readable {
  const file = createReadStream(path);
  return path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
}

/** Imports an EPSS CSV stream; lines that are not `CVE-…,score,percentile` are counted, not stored. */
export async function importEpss(db: Db, input: Readable): Promise<EpssImport> {
  let scoreDate: string | null = null;
  let header = false;
  let rejected = 0;
  let rows = 0;
  let chunk: [string, number, number][] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const c = chunk;
    chunk = [];
    await db.transaction(async (tx) => {
      await lockFor(tx, 'vulndb', 'epss');
      await tx.execute(sql`
        insert into ${vulndbEpss} (${sqlColumns(vulndbEpss, ['cveId', 'score', 'percentile', 'scoreDate'])})
        select t.c, t.s, t.p, ${scoreDate}::date from unnest(${param(c.map((r) => r[0]))}::text[], ${param(c.map((r) => r[1]))}::float8[], ${param(c.map((r) => r[2]))}::float8[]) as t(c, s, p)
        on conflict (cve_id) do update set score = excluded.score, percentile = excluded.percentile, score_date = excluded.score_date
        where vulndb_epss.score_date <= excluded.score_date`);
    });
    rows += c.length;
  };
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line.startsWith('#')) {
      const m = /score_date:(\d{4}-\d{2}-\d{2})/.exec(line);
      if (m) scoreDate = m[1]!;
      continue;
    }
    if (!header) {
      if (!/^cve,epss,percentile/i.test(line.trim())) throw validation('not an EPSS file: the header must be "cve,epss,percentile"');
      if (!scoreDate) throw validation('not an EPSS file: the first line must carry score_date');
      header = true;
      continue;
    }
    const [cve, s, p] = line.trim().split(',');
    const score = Number(s);
    const percentile = Number(p);
    if (!cve || !/^CVE-\d{4}-\d{4,}$/.test(cve) || !(score >= 0 && score <= 1) || !(percentile >= 0 && percentile <= 1)) {
      if (line.trim() !== '') rejected++;
      continue;
    }
    chunk.push([cve, score, percentile]);
    if (chunk.length >= CHUNK_ROWS * 5) await flush();
  }
  if (!header) throw validation('not an EPSS file: no header line');
  await flush();
  return { scoreDate: scoreDate!, rows, rejected };
}
