import { createHash } from 'node:crypto';
import { and, eq, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { companies, companyDeletions } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';

export type PurgeResult = { rowsDeleted: number; tables: number };

/** What the instance keeps about a purged company: a digest of its id, never the id or the slug. */
export const companyDigest = (companyId: string): string => createHash('sha256').update(`cradle company ${companyId}`).digest('hex');

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Other companies' rows that name the purged company as a peer (a coordination case's participant
 * that was this company on this instance, docs/coordination.md "Channels") keep their own record but
 * lose every reference to it: the recipient of the notices sent to it no longer names its slug, each `peer_company_id` column (found in the catalogue, like the tables
 * above) is cleared with the row's other `peer_` columns, and a `cradle` channel, which can no
 * longer reach anyone, becomes `none` with its address (the slug) removed.
 */
async function forgetPeerReferences(tx: Executor, companyId: string, slug: string): Promise<void> {
  // The notices already sent to it named it by slug as their recipient ("Name (slug on this instance)").
  await tx.execute(sql`update case_notices set recipient = replace(recipient, ${slug}, '[deleted company]')
    where participant_id in (select id from case_participants where peer_company_id = ${companyId})`);
  const found = (await tx.execute(sql`
    select table_name as t, array_agg(column_name::text order by column_name) as cols from information_schema.columns
     where table_schema = 'public' and table_name in (select table_name from information_schema.columns where table_schema = 'public' and column_name = 'peer_company_id')
     group by table_name order by 1`)) as unknown as { rows: { t: string; cols: string[] }[] };
  for (const { t, cols } of found.rows) {
    const sets = cols.filter((c) => c.startsWith('peer_')).map((c) => sql`${sql.raw(quoted(c))} = null`);
    if (cols.includes('channel') && cols.includes('address'))
      sets.push(
        sql`address = case when channel = 'cradle' then null else address end`,
        sql`channel = case when channel = 'cradle' then 'none' else channel end`,
      );
    await tx.execute(sql`update ${sql.raw(quoted(t))} set ${sql.join(sets, sql`, `)} where peer_company_id = ${companyId}`);
  }
}

/**
 * Removes a company whose deletion is due, with every row that names it, in one transaction. The
 * tables are read from the database's own catalogue (every base table with a `company_id` column),
 * so a table added later is covered without a change here; most go with the company's row through
 * their cascading foreign key, and any other is emptied of the company's rows explicitly. Returns
 * undefined when the company is gone or its deletion was cancelled meanwhile.
 */
export async function purgeCompany(db: Db, companyId: string, at = new Date()): Promise<PurgeResult | undefined> {
  return asSystem(() =>
    db.transaction(async (tx) => {
      const [c] = await tx
        .select({ id: companies.id, slug: companies.slug, requestedAt: companies.deletionRequestedAt })
        .from(companies)
        .where(and(eq(companies.id, companyId), isNotNull(companies.deletionDueAt), lte(companies.deletionDueAt, at)))
        .for('update');
      if (!c) return undefined;
      const found = (await tx.execute(sql`
        select c.table_name as name from information_schema.columns c
          join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
         where c.table_schema = 'public' and c.column_name = 'company_id' order by 1`)) as unknown as { rows: { name: string }[] };
      const tables = found.rows.map((r) => r.name);
      let rows = 1;
      for (const t of tables) {
        const r = (await tx.execute(sql`select count(*)::int as n from ${sql.raw(quoted(t))} where company_id = ${companyId}`)) as unknown as {
          rows: { n: number }[];
        };
        rows += Number(r.rows[0]?.n ?? 0);
      }
      await tx.delete(companies).where(eq(companies.id, companyId));
      for (const t of tables) await tx.execute(sql`delete from ${sql.raw(quoted(t))} where company_id = ${companyId}`);
      await forgetPeerReferences(tx, companyId, c.slug);
      await tx
        .insert(companyDeletions)
        .values({ companyDigest: companyDigest(companyId), requestedAt: c.requestedAt ?? at, purgedAt: at, rowsDeleted: rows })
        .onConflictDoNothing();
      return { rowsDeleted: rows, tables: tables.length };
    }),
  );
}

/** Purges every company whose grace period has ended; returns how many went. */
export async function purgeDueCompanies(db: Db, at = new Date()): Promise<number> {
  const due = await asSystem(() =>
    db
      .select({ id: companies.id })
      .from(companies)
      .where(and(isNotNull(companies.deletionDueAt), lte(companies.deletionDueAt, at))),
  );
  let n = 0;
  for (const { id } of due) if (await purgeCompany(db, id, at)) n++;
  return n;
}
