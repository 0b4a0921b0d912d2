import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { parseInput } from '../../kernel/validate.js';
import { AwarenessFilter } from './awareness.js';
import { type AwarenessGroup, AwarenessGroupKey } from './awareness-groups.schemas.js';
import { iso } from './known-vulns.rows.js';

// A package URL without its version, qualifiers and subpath: the component whatever its version
// (`pkg:npm/@babel/traverse@7.0.0` -> `pkg:npm/@babel/traverse`; a scope's `@` is followed by `/`).
const PACKAGE_OF = sql.raw(`regexp_replace(m.component_purl, '@[^@/?#]*([?#].*)?$', '')`);

type Row = {
  id: string;
  vuln_key: string;
  cve_ids: string[];
  state: 'pending' | 'confirmed' | 'dismissed';
  report_id: string | null;
  identifier: string;
  package_key: string;
  package: string | null;
  versions: string[] | null;
  sboms: string[] | null;
  kev_added: string | Date | null;
};

/** One row per awareness decision and component package of its open matches (none: package ''). */
function rows(db: Executor, companyId: string, where: ReturnType<typeof sql>): Promise<Row[]> {
  return selectRows<Row>(
    db,
    sql`
    select a.id, a.vuln_key, a.cve_ids, a.state, a.report_id, p.identifier, coalesce(m.package_key, '') as package_key,
      min(nullif(${PACKAGE_OF}, '')) as package,
      array_agg(distinct m.component_version) filter (where m.id is not null) as versions,
      array_agg(distinct m.sbom_id::text) filter (where m.sbom_id is not null) as sboms,
      (select min(k.date_added) from vulndb_kev k where k.cve_id = any(a.cve_ids)) as kev_added
    from kev_awareness a
    join products p on p.id = a.product_id
    left join vuln_matches m on m.product_id = a.product_id and m.vuln_key = a.vuln_key and m.resolved_at is null
    where a.company_id = ${companyId}::uuid and ${where}
    group by a.id, p.identifier, coalesce(m.package_key, '')
    order by min(a.opened_at), a.vuln_key, coalesce(m.package_key, ''), p.identifier`,
  );
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

/**
 * The company's awareness decisions grouped by vulnerability and component package
 * (docs/known-vulnerabilities.md "Awareness decisions"), oldest first: each group with the products
 * and SBOMs it reaches. A decision whose product has the flaw in two packages is in both groups.
 */
export async function listAwarenessGroups(db: Executor, companyId: string, filter: unknown = {}): Promise<AwarenessGroup[]> {
  const f = parseInput(AwarenessFilter, filter);
  const all = await rows(db, companyId, f.state === 'all' ? sql`true` : sql`a.state = ${f.state}`);
  const groups = new Map<string, { first: Row; members: Row[] }>();
  for (const r of all) {
    const key = JSON.stringify([r.vuln_key, r.package_key]);
    const g = groups.get(key) ?? { first: r, members: [] };
    g.members.push(r);
    groups.set(key, g);
  }
  return [...groups.values()].map(({ first, members }) => ({
    vulnerability: first.vuln_key,
    cves: first.cve_ids,
    kevDateAdded: first.kev_added === null ? null : iso(first.kev_added).slice(0, 10),
    packageKey: first.package_key,
    package: members.find((m) => m.package)?.package ?? null,
    versions: sorted(members.flatMap((m) => m.versions ?? [])),
    productCount: new Set(members.map((m) => m.identifier)).size,
    sbomCount: new Set(members.flatMap((m) => m.sboms ?? [])).size,
    pending: members.filter((m) => m.state === 'pending').length,
    decisions: members.map((m) => ({ id: m.id, productIdentifier: m.identifier, versions: sorted(m.versions ?? []), state: m.state, reportId: m.report_id })),
  }));
}

/** How many decisions the groups hold (one in two packages counted once), and in how many groups. */
export const awarenessTally = (groups: readonly AwarenessGroup[]): { decisions: number; groups: number } => ({
  decisions: new Set(groups.flatMap((g) => g.decisions.map((d) => d.id))).size,
  groups: groups.length,
});

/** What waits on the team from KEV: pending awareness decisions and their groups (the overview's figures). */
export async function pendingAwareness(db: Executor, companyId: string): Promise<{ decisions: number; groups: number }> {
  return awarenessTally(await listAwarenessGroups(db, companyId, { state: 'pending' }));
}

/**
 * The ids of a group's pending decisions, oldest first: none when all are taken (a repeated group
 * action changes nothing), or when the company has no decision for that vulnerability and package.
 */
export async function pendingOfGroup(db: Executor, companyId: string, raw: unknown): Promise<string[]> {
  const g = parseInput(AwarenessGroupKey, raw);
  const pending = await rows(db, companyId, sql`a.vuln_key = ${g.vulnerability} and a.state = 'pending'`);
  return [...new Set(pending.filter((m) => m.package_key === g.packageKey).map((m) => m.id))];
}
