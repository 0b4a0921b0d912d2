import { sql } from 'drizzle-orm';
import { findings } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Executor } from '../../db/client.js';
import { chunksOf, param } from '../../kernel/evidence-store.js';
import { newId } from '../../kernel/ids.js';
import type { ExtractedFinding } from './findings.extract.js';

type Scope = { companyId: string; productId: string; scanId: string; now: Date };

/** New findings, one `unnest` statement per chunk (see sboms.store.ts). */
export async function insertFindings(tx: Executor, s: Scope, list: ExtractedFinding[]): Promise<void> {
  for await (const { chunk } of chunksOf(list)) {
    const col = <T>(f: (c: ExtractedFinding) => T): T[] => chunk.map(f);
    await tx.execute(sql`
      insert into ${findings} (${sqlColumns(findings, ['id', 'companyId', 'productId', 'tool', 'ruleId', 'fingerprint', 'state', 'severity', 'level', 'securitySeverity', 'message', 'artifactUri', 'startLine', 'firstSeenScanId', 'firstSeenAt', 'reopenCount', 'updatedAt'])})
      select t.id, ${s.companyId}::uuid, ${s.productId}::uuid, t.tool, t.rule, t.fp, 'open', t.sev, t.lvl, t.sec,
        t.msg, t.uri, t.line, ${s.scanId}::uuid, ${s.now}::timestamptz, 0, ${s.now}::timestamptz
      from unnest(
        ${param(chunk.map(() => newId()))}::uuid[], ${param(col((f) => f.tool))}::text[], ${param(col((f) => f.ruleId))}::text[],
        ${param(col((f) => f.fingerprint))}::text[], ${param(col((f) => f.severity))}::text[], ${param(col((f) => f.level))}::text[],
        ${param(col((f) => f.securitySeverity))}::text[], ${param(col((f) => f.message))}::text[], ${param(col((f) => f.artifactUri))}::text[],
        ${param(col((f) => f.startLine))}::int[]
      ) as t(id, tool, rule, fp, sev, lvl, sec, msg, uri, line)`);
  }
}

/** Marks findings fixed by this scan. */
export async function fixFindings(tx: Executor, s: Scope, ids: string[]): Promise<void> {
  for await (const { chunk } of chunksOf(ids)) {
    await tx.execute(sql`
      update findings set state = 'fixed', fixed_scan_id = ${s.scanId}::uuid, fixed_at = ${s.now}::timestamptz, updated_at = ${s.now}::timestamptz
      where company_id = ${s.companyId}::uuid and id = any(${param(chunk)}::uuid[])`);
  }
}

/** Reopens findings seen again, taking this scan's severity, message and location. */
export async function reopenFindings(tx: Executor, s: Scope, list: { id: string; f: ExtractedFinding }[]): Promise<void> {
  for await (const { chunk } of chunksOf(list)) {
    await tx.execute(sql`
      update findings set state = 'open', fixed_scan_id = null, fixed_at = null, reopen_count = reopen_count + 1,
        severity = t.sev, level = t.lvl, security_severity = t.sec, message = t.msg, artifact_uri = t.uri, start_line = t.line,
        updated_at = ${s.now}::timestamptz
      from unnest(${param(chunk.map((x) => x.id))}::uuid[], ${param(chunk.map((x) => x.f.severity))}::text[], ${param(chunk.map((x) => x.f.level))}::text[],
        ${param(chunk.map((x) => x.f.securitySeverity))}::text[], ${param(chunk.map((x) => x.f.message))}::text[],
        ${param(chunk.map((x) => x.f.artifactUri))}::text[], ${param(chunk.map((x) => x.f.startLine))}::int[]) as t(id, sev, lvl, sec, msg, uri, line)
      where findings.company_id = ${s.companyId}::uuid and findings.id = t.id`);
  }
}
