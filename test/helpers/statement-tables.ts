import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import type { Db } from '../../src/db/client.js';
import * as schema from '../../src/db/schema/index.js';
import type { TestDatabase } from './db.js';

/** A statement a loader sent, with its parameters. */
export type Statement = { text: string; params: unknown[] };
/** What one statement reads, by table: the columns it names (from PostgreSQL's own plan). */
export type Reads = Map<string, Set<string>>;

/**
 * A second handle on the test database that logs every statement sent through it (drizzle's
 * logger sees prepared statements and those of transactions alike).
 */
export function loggingHandle(database: TestDatabase): { db: Db; statements: Statement[] } {
  const statements: Statement[] = [];
  const logger = { logQuery: (text: string, params: unknown[]) => void statements.push({ text, params }) };
  const client = (database.db as unknown as { $client: never }).$client;
  const db = (database.kind === 'postgres' ? drizzlePg(client, { schema, logger }) : drizzlePglite(client, { schema, logger })) as unknown as Db;
  return { db, statements };
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/**
 * Every string a plan node carries (outputs, conditions, filters), for column references. A scan
 * below the top may output the table's whole row (PostgreSQL's "physical target list", projected
 * above it), so its output names nothing the statement uses; what it uses shows in the nodes above.
 */
const textsOf = (node: PlanNode, top: boolean): string[] =>
  Object.entries(node).flatMap(([k, v]) =>
    k === 'Plans' || (k === 'Output' && !top && node['Relation Name'] !== undefined)
      ? []
      : typeof v === 'string'
        ? [v]
        : Array.isArray(v)
          ? v.filter((x): x is string => typeof x === 'string')
          : [],
  );

/**
 * The tables (with the columns used) that PostgreSQL's plan scans. Nodes name a column qualified
 * by its scan's alias, or bare when the statement reads one table.
 */
function readsOfPlan(plan: PlanNode, columnsOf: Map<string, Set<string>>): Reads {
  const nodes: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    nodes.push(n);
    for (const child of n.Plans ?? []) walk(child);
  };
  walk(plan);
  const texts = nodes.flatMap((n) => textsOf(n, n === plan));
  const scans = nodes.filter((n) => typeof n['Relation Name'] === 'string');
  const reads: Reads = new Map();
  for (const n of scans) {
    const table = String(n['Relation Name']);
    const alias = String(n['Alias'] ?? table);
    const known = columnsOf.get(table) ?? new Set<string>();
    const columns = reads.get(table) ?? new Set<string>();
    for (const t of texts) {
      for (const m of t.matchAll(/(?:\b(\w+)\.)?\b(\w+)\b/g)) {
        const [, qualifier, column = ''] = m;
        if (known.has(column) && (qualifier === alias || (qualifier === undefined && scans.length === 1))) columns.add(column);
      }
    }
    reads.set(table, columns);
  }
  return reads;
}

/**
 * What each statement reads, asked of the database with EXPLAIN (VERBOSE): every table any plan
 * node scans, whatever the SQL looks like (joins, subqueries, CTEs). Statements that are not reads
 * are returned as `writes` (a loader must not write); transaction control and a planner setting
 * for the transaction (`set local`, which touches no data) are passed over. On
 * PostgreSQL the plans are asked as the login (row-level security's policy quals left out).
 */
export async function readsOf(database: TestDatabase, statements: Statement[]): Promise<{ reads: Reads; writes: string[] }> {
  const reads: Reads = new Map();
  const writes: string[] = [];
  type Rows = { rows: Record<string, unknown>[] };
  const login = database.kind === 'postgres' ? new pg.Client({ connectionString: database.url }) : undefined;
  await login?.connect();
  const query = (q: string, params: unknown[] = []): Promise<Rows> =>
    login ? login.query(q, params) : (database.db as unknown as { $client: { query(q: string, p: unknown[]): Promise<Rows> } }).$client.query(q, params);
  try {
    const columnsOf = new Map<string, Set<string>>();
    for (const r of (await query("select table_name as t, column_name as c from information_schema.columns where table_schema = 'public'")).rows) {
      const t = String(r['t']);
      columnsOf.set(t, (columnsOf.get(t) ?? new Set()).add(String(r['c'])));
    }
    for (const s of statements) {
      if (/^\s*(begin|commit|rollback|start transaction|set transaction|set local)\b/i.test(s.text)) continue;
      if (!/^\s*(\(?\s*select|with)\b/i.test(s.text)) {
        writes.push(s.text);
        continue;
      }
      const { rows } = await query(`explain (verbose, format json) ${s.text}`, s.params);
      const plan = (rows[0]?.['QUERY PLAN'] as { Plan: PlanNode }[])[0]?.Plan ?? {};
      for (const [table, columns] of readsOfPlan(plan, columnsOf)) {
        const all = reads.get(table) ?? new Set<string>();
        for (const c of columns) all.add(c);
        reads.set(table, all);
      }
    }
  } finally {
    await login?.end();
  }
  return { reads, writes };
}
