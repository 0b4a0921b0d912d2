import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * A column list for hand-written SQL (the columns an INSERT ... SELECT fills), taken from the Drizzle
 * table: the columns are named by their keys in code, so a renamed or removed column fails to
 * compile instead of failing at run time, and the SQL names come from the schema.
 */
export function sqlColumns<T extends PgTable>(table: T, keys: readonly (keyof T['_']['columns'] & string)[]): SQL {
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  return sql.raw(keys.map((k) => `"${columns[k]?.name ?? k}"`).join(', '));
}
