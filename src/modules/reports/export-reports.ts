import { and, desc, eq, gte, inArray, isNull, lt, or, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { companyReadCache } from '../../db/company-read-cache.js';
import { reports } from '../../db/schema/index.js';
import { validation } from '../../kernel/errors.js';
import { sharedJson } from '../../kernel/shared-value.js';
import { parseInput } from '../../kernel/validate.js';
import { REPORT_STATES } from './lifecycle.js';
import { toReportView } from './get-report.js';
import type { ReportPage } from './reports.schemas.js';

export const EXPORT_MAX = 100;

/** Query of `GET {base_url}/vulnerabilities/export`: newest first, keyset pagination by `cursor`. */
export const ExportQuery = z
  .object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(EXPORT_MAX)
      .default(EXPORT_MAX)
      .meta({ description: `Reports per page, at most ${EXPORT_MAX}.` }),
    cursor: z.string().max(200).optional().meta({ description: 'The `nextCursor` of the previous page.' }),
    status: z
      .string()
      .optional()
      .transform((s, ctx) => {
        if (s === undefined) return undefined;
        const list = s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
        const bad = list.find((x) => !(REPORT_STATES as readonly string[]).includes(x));
        if (bad) {
          ctx.addIssue({ code: 'custom', message: `unknown status "${bad}"; one or more of ${REPORT_STATES.join(', ')}, comma-separated` });
          return z.NEVER;
        }
        return list;
      })
      .meta({ description: 'Only these states (comma-separated).' }),
    since: z.iso.datetime({ offset: true }).optional().meta({ description: 'Filed at or after this time.' }),
    until: z.iso.datetime({ offset: true }).optional().meta({ description: 'Filed before this time.' }),
    assignee: z
      .union([z.uuid(), z.literal('none')], { error: 'assignee: a member id, or none' })
      .optional()
      .meta({ description: 'Only the reports assigned to this member (a user id: "my reports"), or `none` for the unassigned.' }),
  })
  .strict();

export type ExportPage = z.infer<typeof ReportPage>;

const encodeCursor = (at: Date, id: string) => Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
function decodeCursor(c: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(c, 'base64url').toString('utf8').split('|');
  const when = at ? new Date(at) : undefined;
  if (!when || Number.isNaN(when.getTime()) || !id || !z.uuid().safeParse(id).success) {
    throw validation('cursor: not a cursor this API issued', [{ path: 'cursor', message: 'not a cursor this API issued' }]);
  }
  return { at: when, id };
}

type PageQuery = z.output<typeof ExportQuery>;

/** A page of the company's reports, newest first, at most 100 (docs/api.md "Pagination"). */
export async function exportReports(db: Executor, companyId: string, rawQuery: unknown): Promise<ExportPage> {
  const q = parseInput(ExportQuery, rawQuery);
  return loadPage(db, companyId, q, q.cursor === undefined ? undefined : decodeCursor(q.cursor));
}

async function loadPage(db: Executor, companyId: string, q: PageQuery, after: { at: Date; id: string } | undefined): Promise<ExportPage> {
  const conds: (SQL | undefined)[] = [eq(reports.companyId, companyId)];
  if (q.status) conds.push(inArray(reports.status, q.status));
  if (q.since) conds.push(gte(reports.createdAt, new Date(q.since)));
  if (q.until) conds.push(lt(reports.createdAt, new Date(q.until)));
  if (q.assignee) conds.push(q.assignee === 'none' ? isNull(reports.assigneeId) : eq(reports.assigneeId, q.assignee));
  if (after) conds.push(or(lt(reports.createdAt, after.at), and(eq(reports.createdAt, after.at), lt(reports.id, after.id))));
  const rows = await db
    .select()
    .from(reports)
    .where(and(...conds))
    .orderBy(desc(reports.createdAt), desc(reports.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return { reports: page.map(toReportView), nextCursor: rows.length > q.limit && last ? encodeCursor(last.createdAt, last.id) : null };
}

// A page is a variant of the company's entry, named by its parsed query (JSON). Pages are bounded by
// their JSON text (the same text every response carrying the page sends, made once): at most
// 16 MiB of it per process, whatever the number of companies or the length of their reports.
const cachedPages = companyReadCache(
  'report export page',
  'reports',
  async (db, companyId, variant) => {
    const q = variant === undefined ? parseInput(ExportQuery, {}) : (JSON.parse(variant) as PageQuery);
    return loadPage(db, companyId, q, q.cursor === undefined ? undefined : decodeCursor(q.cursor));
  },
  { weigh: (page) => 1 + Math.ceil((sharedJson(page)?.length ?? 0) / 1024), maxWeight: 16 * 1024 },
);
export const exportPageCacheStats = cachedPages.stats;

/**
 * The same page, kept in memory while the company's reports are unchanged (the `reports` version
 * domain, src/db/version-domains.ts: an SBOM, scan, finding or product change does not reload it;
 * src/db/company-read-cache.ts, docs/adr/0021-report-export-cache.md): the API's and MCP's export,
 * which pipelines poll. A bad query or cursor is refused before the cache is asked. Not for use
 * inside a transaction. What it returns is frozen.
 */
export function exportReportsCached(db: Db, companyId: string, rawQuery: unknown): Promise<ExportPage> {
  const q = parseInput(ExportQuery, rawQuery);
  if (q.cursor !== undefined) decodeCursor(q.cursor);
  return cachedPages.read(db, companyId, JSON.stringify(q));
}
