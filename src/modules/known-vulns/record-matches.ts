import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { param, pgTextArray } from '../../kernel/evidence-store.js';
import { newId } from '../../kernel/ids.js';
import type { Found } from './find-known-vulns.js';

type Existing = { id: string; vuln_ids: string[]; package_key: string; component_version: string; resolved_at: Date | string | null };

export type Recorded = { opened: Found[]; kept: number; resolved: number };


/**
 * Makes a product's matches those of `found` (its latest SBOM): a match seen before keeps its row
 * and first-seen time (found again under any of its ids, so a flaw that gains a CVE alias stays one
 * row), a new or reappearing one is opened, and an open one not found again is resolved. With
 * `only`, just the matches of those packages are reconsidered (a feed update).
 */
export async function recordMatches(tx: Executor, at: { companyId: string; productId: string; sbomId: string; now: Date }, found: Found[], only?: ReadonlySet<string>): Promise<Recorded> {
  const scope = only ? sql` and package_key = any(${param([...only])}::text[])` : sql``;
  const existing = await selectRows<Existing>(tx, sql`
    select id, vuln_ids, package_key, component_version, resolved_at from vuln_matches
    where company_id = ${at.companyId}::uuid and product_id = ${at.productId}::uuid${scope}`);
  const byComponent = new Map<string, Existing[]>();
  for (const e of existing) {
    const k = `${e.package_key}\u0000${e.component_version}`;
    const list = byComponent.get(k);
    if (list) list.push(e);
    else byComponent.set(k, [e]);
  }
  const seen = new Set<string>();
  const inserts: (Found & { id: string })[] = [];
  const updates: (Found & { id: string })[] = [];
  const opened: Found[] = [];
  for (const f of found) {
    const ids = new Set(f.vulnIds);
    const match = byComponent.get(`${f.packageKey}\u0000${f.componentVersion}`)?.find((e) => !seen.has(e.id) && e.vuln_ids.some((i) => ids.has(i)));
    if (match) {
      seen.add(match.id);
      updates.push({ ...f, id: match.id });
      if (match.resolved_at !== null) opened.push(f);
    } else {
      inserts.push({ ...f, id: newId() });
      opened.push(f);
    }
  }
  const now = at.now.toISOString();
  const cols = (list: (Found & { id: string })[]) => {
    const c = <T>(f: (x: Found & { id: string }) => T) => param(list.map(f));
    return sql`unnest(${c((x) => x.id)}::uuid[], ${c((x) => x.vulnKey)}::text[], ${c((x) => pgTextArray(x.vulnIds))}::text[], ${c((x) => pgTextArray(x.recordIds))}::text[],
      ${c((x) => x.packageKey)}::text[], ${c((x) => x.componentName)}::text[], ${c((x) => x.componentVersion)}::text[], ${c((x) => x.componentPurl)}::text[],
      ${c((x) => x.fixedVersion)}::text[], ${c((x) => x.summary)}::text[], ${c((x) => x.cvssScore)}::float8[], ${c((x) => x.cvssVector)}::text[], ${c((x) => x.inKev)}::bool[])
      as t(id, vuln_key, vuln_ids, record_ids, package_key, component_name, component_version, component_purl, fixed_version, summary, cvss_score, cvss_vector, in_kev)`;
  };
  const CHUNK = 2000;
  for (let i = 0; i < inserts.length; i += CHUNK) {
    await tx.execute(sql`
      insert into vuln_matches (id, company_id, product_id, vuln_key, vuln_ids, record_ids, package_key, component_name, component_version, component_purl,
        fixed_version, summary, cvss_score, cvss_vector, in_kev, sbom_id, first_seen_at, last_seen_at)
      select t.id, ${at.companyId}::uuid, ${at.productId}::uuid, t.vuln_key, t.vuln_ids::text[], t.record_ids::text[], t.package_key, t.component_name,
        t.component_version, t.component_purl, t.fixed_version, t.summary, t.cvss_score, t.cvss_vector, t.in_kev, ${at.sbomId}::uuid, ${now}::timestamptz, ${now}::timestamptz
      from ${cols(inserts.slice(i, i + CHUNK))}`);
  }
  for (let i = 0; i < updates.length; i += CHUNK) {
    await tx.execute(sql`
      update vuln_matches m set vuln_key = t.vuln_key, vuln_ids = t.vuln_ids::text[], record_ids = t.record_ids::text[], component_name = t.component_name,
        component_purl = t.component_purl, fixed_version = t.fixed_version, summary = t.summary, cvss_score = t.cvss_score, cvss_vector = t.cvss_vector,
        in_kev = t.in_kev, sbom_id = ${at.sbomId}::uuid, last_seen_at = ${now}::timestamptz, resolved_at = null
      from ${cols(updates.slice(i, i + CHUNK))}
      where m.id = t.id`);
  }
  const gone = existing.filter((e) => !seen.has(e.id) && e.resolved_at === null).map((e) => e.id);
  if (gone.length > 0) {
    await tx.execute(sql`update vuln_matches set resolved_at = ${now}::timestamptz where id = any(${param(gone)}::uuid[])`);
  }
  return { opened, kept: found.length - opened.length, resolved: gone.length };
}
