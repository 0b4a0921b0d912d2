import { sql } from 'drizzle-orm';
import { findings, findingTransitions } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { chunksOf, param } from '../../kernel/evidence-store.js';
import { newId } from '../../kernel/ids.js';
import type { ExtractedFinding } from './findings.extract.js';

type Scope = { companyId: string; productId: string; scanId: string; now: Date };

/** Called after each chunk's statement (a staged push moves its claim's heartbeat: findings.stage.ts). */
type AfterChunk = () => Promise<void>;

/**
 * New findings, one `unnest` statement per chunk of `rows` (see sboms.store.ts). They name a scan
 * not stored yet: readers see them once it is (ADR 0025).
 */
export async function insertFindings(db: Executor, s: Scope, list: ExtractedFinding[], rows: number, after: AfterChunk): Promise<void> {
  for await (const { chunk } of chunksOf(list, rows)) {
    const col = <T>(f: (c: ExtractedFinding) => T): T[] => chunk.map(f);
    await db.execute(sql`
      insert into ${findings} (${sqlColumns(findings, ['id', 'companyId', 'productId', 'tool', 'ruleId', 'fingerprint', 'state', 'severity', 'level', 'securitySeverity', 'message', 'artifactUri', 'startLine', 'firstSeenScanId', 'firstSeenAt', 'reopenCount', 'updatedAt'])})
      select t.id, ${s.companyId}::uuid, ${s.productId}::uuid, t.tool, t.rule, t.fp, 'open', t.sev, t.lvl, t.sec,
        t.msg, t.uri, t.line, ${s.scanId}::uuid, ${s.now}::timestamptz, 0, ${s.now}::timestamptz
      from unnest(
        ${param(chunk.map(() => newId()))}::uuid[], ${param(col((f) => f.tool))}::text[], ${param(col((f) => f.ruleId))}::text[],
        ${param(col((f) => f.fingerprint))}::text[], ${param(col((f) => f.severity))}::text[], ${param(col((f) => f.level))}::text[],
        ${param(col((f) => f.securitySeverity))}::text[], ${param(col((f) => f.message))}::text[], ${param(col((f) => f.artifactUri))}::text[],
        ${param(col((f) => f.startLine))}::int[]
      ) as t(id, tool, rule, fp, sev, lvl, sec, msg, uri, line)`);
    await after();
  }
}

/** Findings this scan no longer reports, to be fixed when it is stored (ADR 0025). */
export async function stageFixes(db: Executor, s: Scope, ids: string[], rows: number, after: AfterChunk): Promise<void> {
  for await (const { chunk } of chunksOf(ids, rows)) {
    await db.execute(sql`
      insert into ${findingTransitions} (${sqlColumns(findingTransitions, ['findingId', 'companyId', 'scanId', 'kind', 'at'])})
      select t.id, ${s.companyId}::uuid, ${s.scanId}::uuid, 'fix', ${s.now}::timestamptz from unnest(${param(chunk)}::uuid[]) as t(id)`);
    await after();
  }
}

/** Fixed findings seen again, to be reopened with this scan's severity, message and location when it is stored. */
export async function stageReopens(db: Executor, s: Scope, list: { id: string; f: ExtractedFinding }[], rows: number, after: AfterChunk): Promise<void> {
  for await (const { chunk } of chunksOf(list, rows)) {
    await db.execute(sql`
      insert into ${findingTransitions} (${sqlColumns(findingTransitions, ['findingId', 'companyId', 'scanId', 'kind', 'at', 'severity', 'level', 'securitySeverity', 'message', 'artifactUri', 'startLine'])})
      select t.id, ${s.companyId}::uuid, ${s.scanId}::uuid, 'reopen', ${s.now}::timestamptz, t.sev, t.lvl, t.sec, t.msg, t.uri, t.line
      from unnest(${param(chunk.map((x) => x.id))}::uuid[], ${param(chunk.map((x) => x.f.severity))}::text[], ${param(chunk.map((x) => x.f.level))}::text[],
        ${param(chunk.map((x) => x.f.securitySeverity))}::text[], ${param(chunk.map((x) => x.f.message))}::text[],
        ${param(chunk.map((x) => x.f.artifactUri))}::text[], ${param(chunk.map((x) => x.f.startLine))}::int[]) as t(id, sev, lvl, sec, msg, uri, line)`);
    await after();
  }
}

/**
 * A tool's findings of the product as they are stored, read in keyset pages of `rows` (the
 * product's unique index orders them), so no statement holds the session for a whole product.
 */
export async function knownFindings(db: Executor, s: Omit<Scope, 'scanId' | 'now'>, tool: string, rows: number) {
  const all: { id: string; fingerprint: string; state: string }[] = [];
  let last = '';
  for (;;) {
    const page = await selectRows<{ id: string; fingerprint: string; state: string }>(
      db,
      sql`select id, fingerprint, state from findings where company_id = ${s.companyId}::uuid and product_id = ${s.productId}::uuid
        and tool = ${tool} and fingerprint > ${last} order by fingerprint limit ${rows}`,
    );
    for (const r of page) all.push(r);
    if (page.length < rows) return all;
    last = (page.at(-1) as { fingerprint: string }).fingerprint;
  }
}
