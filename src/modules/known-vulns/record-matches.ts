import { sql } from 'drizzle-orm';
import { vulnMatches } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { param, pgTextArray } from '../../kernel/evidence-store.js';
import { newId } from '../../kernel/ids.js';
import type { Found } from './find-known-vulns.js';

type Existing = { id: string; product_id: string; vuln_ids: string[]; package_key: string; component_version: string; resolved_at: Date | string | null };

export type RecordTarget = { companyId: string; productId: string; sbomId: string; now: Date };
export type Recorded = { opened: Found[]; kept: number; resolved: number };
/** One product's new matches; `only`: just the matches of these packages are reconsidered. */
export type RecordItem = { target: RecordTarget; found: Found[]; only?: ReadonlySet<string> | undefined };

type Row = Found & { id: string; companyId: string; productId: string; sbomId: string };
const CHUNK = 2000;

/**
 * Makes each product's matches those of `found` (its latest SBOM): a match seen before keeps its
 * row and first-seen time (found again under any of its ids, so a flaw that gains a CVE alias stays
 * one row), a new or reappearing one is opened, and an open one not found again is resolved. With
 * `only`, just the matches of those packages are reconsidered (a feed update). Many products in a
 * few statements: a feed delta re-matches hundreds of SBOMs at once.
 */
export async function recordMatchesMany(tx: Executor, items: RecordItem[]): Promise<Recorded[]> {
  if (items.length === 0) return [];
  const now = items[0]!.target.now.toISOString();
  const productIds = items.map((i) => i.target.productId);
  const companyIds = [...new Set(items.map((i) => i.target.companyId))];
  const scoped = items.every((i) => i.only);
  const keys = scoped ? [...new Set(items.flatMap((i) => [...i.only!]))] : [];
  const existing = await selectRows<Existing>(
    tx,
    sql`
    select id, product_id, vuln_ids, package_key, component_version, resolved_at from vuln_matches
    where company_id = any(${param(companyIds)}::uuid[]) and product_id = any(${param(productIds)}::uuid[])${scoped ? sql` and package_key = any(${param(keys)}::text[])` : sql``}`,
  );
  const byComponent = new Map<string, Existing[]>();
  for (const e of existing) {
    const k = `${e.product_id}\u0000${e.package_key}\u0000${e.component_version}`;
    const list = byComponent.get(k);
    if (list) list.push(e);
    else byComponent.set(k, [e]);
  }
  const seen = new Set<string>();
  const inserts: Row[] = [];
  const updates: Row[] = [];
  const gone: string[] = [];
  const results = items.map(({ target, found, only }) => {
    const opened: Found[] = [];
    const at = { companyId: target.companyId, productId: target.productId, sbomId: target.sbomId };
    for (const f of found) {
      const ids = new Set(f.vulnIds);
      const match = byComponent
        .get(`${target.productId}\u0000${f.packageKey}\u0000${f.componentVersion}`)
        ?.find((e) => !seen.has(e.id) && e.vuln_ids.some((i) => ids.has(i)));
      if (match) {
        seen.add(match.id);
        updates.push({ ...f, ...at, id: match.id });
        if (match.resolved_at !== null) opened.push(f);
      } else {
        inserts.push({ ...f, ...at, id: newId() });
        opened.push(f);
      }
    }
    let resolved = 0;
    for (const e of existing) {
      if (e.product_id !== target.productId || seen.has(e.id) || e.resolved_at !== null) continue;
      if (only && !only.has(e.package_key)) continue;
      gone.push(e.id);
      resolved++;
    }
    return { opened, kept: found.length - opened.length, resolved };
  });
  const cols = (list: Row[]) => {
    const c = <T>(f: (x: Row) => T) => param(list.map(f));
    return sql`unnest(${c((x) => x.id)}::uuid[], ${c((x) => x.companyId)}::uuid[], ${c((x) => x.productId)}::uuid[], ${c((x) => x.sbomId)}::uuid[],
      ${c((x) => x.vulnKey)}::text[], ${c((x) => pgTextArray(x.vulnIds))}::text[], ${c((x) => pgTextArray(x.recordIds))}::text[],
      ${c((x) => x.packageKey)}::text[], ${c((x) => x.componentName)}::text[], ${c((x) => x.componentVersion)}::text[], ${c((x) => x.componentPurl)}::text[],
      ${c((x) => x.fixedVersion)}::text[], ${c((x) => x.summary)}::text[], ${c((x) => x.cvssScore)}::float8[], ${c((x) => x.cvssVector)}::text[], ${c((x) => x.cvssSource)}::text[], ${c((x) => x.inKev)}::bool[])
      as t(id, company_id, product_id, sbom_id, vuln_key, vuln_ids, record_ids, package_key, component_name, component_version, component_purl, fixed_version, summary, cvss_score, cvss_vector, cvss_source, in_kev)`;
  };
  for (let i = 0; i < inserts.length; i += CHUNK) {
    await tx.execute(sql`
      insert into ${vulnMatches} (${sqlColumns(vulnMatches, ['id', 'companyId', 'productId', 'vulnKey', 'vulnIds', 'recordIds', 'packageKey', 'componentName', 'componentVersion', 'componentPurl', 'fixedVersion', 'summary', 'cvssScore', 'cvssVector', 'cvssSource', 'inKev', 'sbomId', 'firstSeenAt', 'lastSeenAt'])})
      select t.id, t.company_id, t.product_id, t.vuln_key, t.vuln_ids::text[], t.record_ids::text[], t.package_key, t.component_name,
        t.component_version, t.component_purl, t.fixed_version, t.summary, t.cvss_score, t.cvss_vector, t.cvss_source, t.in_kev, t.sbom_id, ${now}::timestamptz, ${now}::timestamptz
      from ${cols(inserts.slice(i, i + CHUNK))}`);
  }
  for (let i = 0; i < updates.length; i += CHUNK) {
    await tx.execute(sql`
      update vuln_matches m set vuln_key = t.vuln_key, vuln_ids = t.vuln_ids::text[], record_ids = t.record_ids::text[], component_name = t.component_name,
        component_purl = t.component_purl, fixed_version = t.fixed_version, summary = t.summary, cvss_score = t.cvss_score, cvss_vector = t.cvss_vector, cvss_source = t.cvss_source,
        in_kev = t.in_kev, sbom_id = t.sbom_id, last_seen_at = ${now}::timestamptz, resolved_at = null
      from ${cols(updates.slice(i, i + CHUNK))}
      where m.id = t.id`);
  }
  for (let i = 0; i < gone.length; i += CHUNK) {
    await tx.execute(sql`update vuln_matches set resolved_at = ${now}::timestamptz where id = any(${param(gone.slice(i, i + CHUNK))}::uuid[])`);
  }
  return results;
}

/** `recordMatchesMany` for one product. */
export async function recordMatches(tx: Executor, target: RecordTarget, found: Found[], only?: ReadonlySet<string>): Promise<Recorded> {
  return (await recordMatchesMany(tx, [{ target, found, only }]))[0]!;
}
