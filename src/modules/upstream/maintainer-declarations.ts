import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies, upstreamSettings } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import { prefixCovers } from './purl-prefix.js';

/**
 * The companies of this instance that declare they maintain a package (by its canonical package
 * URL, `packageOf`), other than the asking one. Read across companies (as system): a declaration is
 * a public statement meant to be found, like a portal's security contact; only the slug and the
 * prefix leave this function.
 */
export async function findDeclaredMaintainers(db: Db, pkg: string, exceptCompanyId: string): Promise<{ slug: string; prefix: string }[]> {
  const rows = await asSystem(() =>
    db
      .select({ slug: companies.slug, prefixes: upstreamSettings.maintainedPurlPrefixes })
      .from(upstreamSettings)
      .innerJoin(companies, eq(companies.id, upstreamSettings.companyId))
      .where(
        and(
          ne(upstreamSettings.companyId, exceptCompanyId),
          sql`exists (select 1 from unnest(${upstreamSettings.maintainedPurlPrefixes}) as p(prefix) where left(${pkg}, length(p.prefix)) = p.prefix)`,
        ),
      )
      .orderBy(companies.slug)
      .limit(10),
  );
  return rows.flatMap((r) => {
    const prefix = r.prefixes.find((p) => prefixCovers(p, pkg));
    return prefix ? [{ slug: r.slug, prefix }] : [];
  });
}
