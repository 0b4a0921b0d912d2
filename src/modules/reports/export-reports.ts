import { and, desc, eq, gte, inArray, isNull, lt, or, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { reports } from '../../db/schema/index.js';
import { validation } from '../../kernel/errors.js';
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

/** A page of the company's reports, newest first, at most 100 (docs/api.md "Pagination"). */
export async function exportReports(db: Executor, companyId: string, rawQuery: unknown): Promise<ExportPage> {
  const q = parseInput(ExportQuery, rawQuery);
  const conds: (SQL | undefined)[] = [eq(reports.companyId, companyId)];
  if (q.status) conds.push(inArray(reports.status, q.status));
  if (q.since) conds.push(gte(reports.createdAt, new Date(q.since)));
  if (q.until) conds.push(lt(reports.createdAt, new Date(q.until)));
  if (q.assignee) conds.push(q.assignee === 'none' ? isNull(reports.assigneeId) : eq(reports.assigneeId, q.assignee));
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    conds.push(or(lt(reports.createdAt, c.at), and(eq(reports.createdAt, c.at), lt(reports.id, c.id))));
  }
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
