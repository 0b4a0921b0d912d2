import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { Paging } from '../../kernel/paging.js';
import { parseInput } from '../../kernel/validate.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { day, iso, namesVulnerability } from './known-vulns.rows.js';
import { type KnownVuln, type KnownVulnPage, ListKnownVulnsFilter } from './known-vulns.schemas.js';

type Row = {
  id: string;
  identifier: string;
  vuln_key: string;
  vuln_ids: string[];
  component_name: string;
  component_version: string;
  component_purl: string;
  fixed_version: string | null;
  summary: string | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  cvss_source: string | null;
  kev_added: string | Date | null;
  kev_due: string | Date | null;
  kev_ransomware: string | null;
  epss_score: number | null;
  epss_percentile: number | null;
  epss_date: string | Date | null;
  first_seen_at: string | Date;
  last_seen_at: string | Date;
  resolved_at: string | Date | null;
  analysis_state: NonNullable<KnownVuln['analysis']>['state'] | null;
  analysis_justification: string | null;
  analysis_response: string[] | null;
  analysis_detail: string | null;
  decided_at: string | Date | null;
  decided_by: string | null;
};

function toKnownVuln(r: Row): KnownVuln {
  return {
    id: r.id,
    productIdentifier: r.identifier,
    vulnerability: r.vuln_key,
    ids: r.vuln_ids,
    component: { name: r.component_name, version: r.component_version, purl: r.component_purl },
    fixedVersion: r.fixed_version,
    summary: r.summary,
    cvss: r.cvss_score !== null && r.cvss_vector !== null ? { score: r.cvss_score, vector: r.cvss_vector, source: r.cvss_source } : null,
    kev:
      r.kev_added !== null
        ? { dateAdded: day(r.kev_added), dueDate: r.kev_due === null ? null : day(r.kev_due), knownRansomwareCampaignUse: r.kev_ransomware ?? 'Unknown' }
        : null,
    epss: r.epss_score !== null ? { score: r.epss_score, percentile: r.epss_percentile ?? 0, date: day(r.epss_date!) } : null,
    state: r.resolved_at === null ? 'open' : 'resolved',
    analysis:
      r.analysis_state === null
        ? null
        : {
            state: r.analysis_state,
            justification: r.analysis_justification as NonNullable<KnownVuln['analysis']>['justification'],
            response: (r.analysis_response ?? []) as NonNullable<KnownVuln['analysis']>['response'],
            detail: r.analysis_detail ?? '',
            decidedAt: iso(r.decided_at!),
            decidedBy: r.decided_by ?? '',
          },
    firstSeenAt: iso(r.first_seen_at),
    lastSeenAt: iso(r.last_seen_at),
    resolvedAt: r.resolved_at === null ? null : iso(r.resolved_at),
  };
}

/**
 * The company's known vulnerabilities, most urgent first: in KEV, then by EPSS, then by CVSS. One
 * row per flaw and component version; KEV and EPSS attach through any CVE among the flaw's ids.
 */
export async function listKnownVulns(db: Executor, companyId: string, filter: ListKnownVulnsFilter = {}, paging: Paging = {}): Promise<KnownVulnPage> {
  const f = parseInput(ListKnownVulnsFilter, filter);
  const p = parseInput(Paging, paging);
  const where: SQL[] = [sql`m.company_id = ${companyId}::uuid`];
  let productId: string | null = null;
  if (f.product !== undefined) {
    productId = (await getProductByIdentifier(db, companyId, f.product)).id;
    where.push(sql`m.product_id = ${productId}::uuid`);
  }
  if (f.state === 'open') where.push(sql`m.resolved_at is null`);
  if (f.state === 'resolved') where.push(sql`m.resolved_at is not null`);
  if (f.kev === 'true') where.push(sql`k.cve_id is not null`);
  if (f.kev === 'false') where.push(sql`k.cve_id is null`);
  if (f.minEpss !== undefined) where.push(sql`e.score >= ${f.minEpss}`);
  if (f.minCvss !== undefined) where.push(sql`m.cvss_score >= ${f.minCvss}`);
  if (f.vulnerability !== undefined) where.push(namesVulnerability(f.vulnerability));
  if (f.analysis === 'untriaged') where.push(sql`m.analysis_state is null`);
  else if (f.analysis !== undefined) where.push(sql`m.analysis_state = ${f.analysis}`);
  const rows = await selectKnownVulns(db, sql.join(where, sql` and `), sql`limit ${p.limit + 1} offset ${p.offset}`);
  const more = rows.length > p.limit;
  return {
    items: rows.slice(0, p.limit),
    nextOffset: more ? p.offset + p.limit : null,
    coverage: productId ? await coverageOf(db, companyId, productId) : null,
  };
}

/** Matches with their product, KEV entry and EPSS score, most urgent first. */
export async function selectKnownVulns(db: Executor, where: SQL, tail: SQL = sql``): Promise<KnownVuln[]> {
  return (
    await selectRows<Row>(
      db,
      sql`
    select m.id, p.identifier, m.vuln_key, m.vuln_ids, m.component_name, m.component_version, m.component_purl, m.fixed_version, m.summary,
      m.cvss_score, m.cvss_vector, m.cvss_source, k.date_added as kev_added, k.due_date as kev_due, k.known_ransomware as kev_ransomware,
      e.score as epss_score, e.percentile as epss_percentile, e.score_date as epss_date, m.first_seen_at, m.last_seen_at, m.resolved_at,
      m.analysis_state, m.analysis_justification, m.analysis_response, m.analysis_detail, m.decided_at, m.decided_by
    from vuln_matches m
    join products p on p.id = m.product_id
    left join lateral (select * from vulndb_kev k where k.cve_id = any(m.vuln_ids) order by k.date_added limit 1) k on true
    left join lateral (select * from vulndb_epss e where e.cve_id = any(m.vuln_ids) order by e.score desc limit 1) e on true
    where ${where}
    order by (k.cve_id is not null) desc, e.score desc nulls last, m.cvss_score desc nulls last, m.vuln_key, p.identifier, m.component_name, m.component_version, m.id
    ${tail}`,
    )
  ).map(toKnownVuln);
}

async function coverageOf(db: Executor, companyId: string, productId: string): Promise<KnownVulnPage['coverage']> {
  const [r] = await selectRows<{ sbom_id: string; matched_at: string | Date; components: number; matchable: number; unmatched: Record<string, number> }>(
    db,
    sql`
    select r.sbom_id, r.matched_at, r.components, r.matchable, r.unmatched from sbom_match_runs r join sboms s on s.id = r.sbom_id
    where r.company_id = ${companyId}::uuid and s.product_id = ${productId}::uuid order by s.version desc limit 1`,
  );
  return r ? { sbomId: r.sbom_id, matchedAt: iso(r.matched_at), components: r.components, matchable: r.matchable, unmatched: r.unmatched } : null;
}
