import { and, desc, eq, isNotNull, like, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { sbomComponents, sboms } from '../../db/schema/index.js';

export type ComponentReferences = { vcsUrl: string | null; websiteUrl: string | null };

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The repository and site the company's SBOMs name for a component, by its package URL (that exact
 * purl, or the same package at any version), newest SBOM first; each the first one found. Null
 * when no SBOM of the company holds the component with either reference.
 */
export async function componentReferences(db: Db, companyId: string, purl: string): Promise<ComponentReferences | null> {
  // `pkg:npm/%40acme/widget@1.2.0?x=y` -> `pkg:npm/%40acme/widget`: the version starts at the last `@` after the last `/`.
  const bare = purl.replace(/[?#].*$/, '');
  const slash = bare.lastIndexOf('/');
  const at = bare.indexOf('@', slash + 1);
  const pkg = at > 0 ? bare.slice(0, at) : bare;
  const rows = await db
    .select({ vcsUrl: sbomComponents.vcsUrl, websiteUrl: sbomComponents.websiteUrl })
    .from(sbomComponents)
    .innerJoin(sboms, eq(sboms.id, sbomComponents.sbomId))
    .where(
      and(
        eq(sbomComponents.companyId, companyId),
        or(eq(sbomComponents.purl, purl), eq(sbomComponents.purl, pkg), like(sbomComponents.purl, sql`${`${escapeLike(pkg)}@%`}`)),
        or(isNotNull(sbomComponents.vcsUrl), isNotNull(sbomComponents.websiteUrl)),
      ),
    )
    .orderBy(desc(sboms.createdAt))
    .limit(20);
  if (rows.length === 0) return null;
  return { vcsUrl: rows.find((r) => r.vcsUrl)?.vcsUrl ?? null, websiteUrl: rows.find((r) => r.websiteUrl)?.websiteUrl ?? null };
}
