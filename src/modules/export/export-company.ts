import { Readable } from 'node:stream';
import { and, asc, type Column, eq, getViewSelectedFields, gt, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgView } from 'drizzle-orm/pg-core';
import type { Db, Executor } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { COMPANY_OMIT, EXPORT_SECTIONS, exportedColumns, jsonValue, type Section } from './export.sections.js';

export const EXPORT_PAGE_SIZE = 500;

const toJson = (row: Record<string, unknown>): string => JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, jsonValue(v)])));

/** Rows strictly after `after` in the order of `keys` (a row-value comparison for composite keys). */
function after(keys: Column[], values: unknown[]): SQL {
  if (keys.length === 1) return gt(keys[0] as Column, values[0]);
  return sql`(${sql.join(keys, sql`, `)}) > (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

/** The view's columns named as the table's exported ones. */
function viewColumns(view: PgView, like: Record<string, PgColumn>): Record<string, PgColumn> {
  const fields = getViewSelectedFields(view) as Record<string, PgColumn>;
  return Object.fromEntries(Object.keys(like).map((k) => [k, fields[k] as PgColumn]));
}

/**
 * One section's rows, a page at a time (keyset paging): at most one page is held in memory, and
 * the next query runs only when the reader has taken the previous page.
 */
async function* sectionRows(db: Executor, companyId: string, sec: Section): AsyncGenerator<string> {
  const tableColumns = exportedColumns(sec.table, sec.omit);
  const keyNames = sec.keys.map((k) => Object.entries(tableColumns).find(([, c]) => c === k)?.[0] as string);
  const columns = sec.readThrough ? viewColumns(sec.readThrough, tableColumns) : tableColumns;
  const keys = keyNames.map((k) => columns[k] as Column);
  const tenant = (columns.companyId ?? exportedColumns(sec.table).companyId) as Column;
  const size = sec.pageSize ?? EXPORT_PAGE_SIZE;
  let cursor: unknown[] | undefined;
  for (;;) {
    const rows = (await db
      .select(columns)
      .from(sec.readThrough ?? sec.table)
      .where(and(eq(tenant, companyId), sec.only, cursor ? after(keys, cursor) : undefined))
      .orderBy(...keys.map((k) => asc(k)))
      .limit(size)) as Record<string, unknown>[];
    if (rows.length === 0) return;
    yield `${cursor ? ',' : ''}${rows.map(toJson).join(',')}`;
    const last = rows.at(-1) as Record<string, unknown>;
    cursor = keyNames.map((k) => last[k]);
    if (rows.length < size) return;
  }
}

/** The export document as JSON text, in chunks of at most one page of one table. */
export async function* companyExportChunks(db: Executor, companyId: string, now = new Date()): AsyncGenerator<string> {
  const [company] = await db.select(exportedColumns(companies, COMPANY_OMIT)).from(companies).where(eq(companies.id, companyId));
  if (!company) throw notFound('company');
  yield `{"format":"cradle-company-export/1","exportedAt":${JSON.stringify(now.toISOString())},"company":${toJson(company)}`;
  for (const sec of EXPORT_SECTIONS) {
    yield `,${JSON.stringify(sec.name)}:[`;
    yield* sectionRows(db, companyId, sec);
    yield ']';
  }
  yield '}';
}

/**
 * `GET {base_url}/export` (gdpr:export): every record of the company, audit log included, secrets
 * and key digests excluded, as a stream. The request is audited first (fail-closed: no audit row,
 * no export). Pages are read as the client takes them, not in one snapshot: PGlite has a single
 * connection, and a transaction held open for a slow client would stall every other request.
 */
export async function exportCompanyData(db: Db, ctx: Context, companyId: string): Promise<Readable> {
  const now = new Date();
  await recordAudit(db, ctx, { companyId, action: 'export.company_data', targetType: 'company', targetId: companyId, at: now });
  return Readable.from(companyExportChunks(db, companyId, now), { objectMode: false });
}
