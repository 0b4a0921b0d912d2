import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import type { AdvisoryProductRow } from '../../db/schema/index.js';
import { selectRows } from '../../db/sql-rows.js';
import { namesVulnerability } from './known-vulns.rows.js';
import { OPENVEX_JUSTIFICATION } from './vex-documents.js';

type Row = {
  identifier: string;
  name: string;
  producer: string | null;
  version: string | null;
  resolved: boolean;
  analysis_state: string | null;
  analysis_justification: string | null;
  analysis_detail: string | null;
};

/**
 * What the team decided about a known vulnerability, as a CSAF advisory's product list (issue 25:
 * the decisions feed the advisory): per product and version, known_affected while any match is
 * exploitable, under_investigation while any is undecided or in triage, known_not_affected when every
 * open one was judged not affected or a false positive (the CSAF flag from the decision), fixed when
 * none is open or they were resolved. Products without a known version are left to the editor.
 */
export async function advisoryProductsFor(db: Executor, companyId: string, vulnerability: string, vendor: string): Promise<AdvisoryProductRow[]> {
  const rows = await selectRows<Row>(
    db,
    sql`
    select p.identifier, p.name, p.producer, coalesce(s.subject_version, p.firmware_version) as version, m.resolved_at is not null as resolved,
      m.analysis_state, m.analysis_justification, m.analysis_detail
    from vuln_matches m join products p on p.id = m.product_id left join sboms s on s.id = m.sbom_id
    where m.company_id = ${companyId}::uuid and ${namesVulnerability(vulnerability)}
    order by p.identifier, m.component_name`,
  );
  const byProduct = new Map<string, Row[]>();
  for (const r of rows) {
    if (!r.version?.trim()) continue;
    const k = `${r.identifier}\u0000${r.version}`;
    const list = byProduct.get(k);
    if (list) list.push(r);
    else byProduct.set(k, [r]);
  }
  return [...byProduct.values()].map((list) => {
    const first = list[0]!;
    const open = list.filter((r) => !r.resolved && r.analysis_state !== 'resolved');
    const base = {
      productIdentifier: first.identifier,
      vendor: first.producer ?? vendor,
      name: first.name,
      version: first.version!,
      justification: null,
      impact: null,
    };
    if (open.some((r) => r.analysis_state === 'exploitable')) return { ...base, status: 'known_affected' as const };
    if (open.some((r) => r.analysis_state === null || r.analysis_state === 'in_triage')) return { ...base, status: 'under_investigation' as const };
    if (open.length > 0) {
      const r = open[0]!;
      const justification =
        r.analysis_state === 'false_positive'
          ? 'component_not_present'
          : (OPENVEX_JUSTIFICATION[r.analysis_justification ?? ''] ?? 'vulnerable_code_not_present');
      return { ...base, status: 'not_affected' as const, justification, impact: r.analysis_detail };
    }
    return { ...base, status: 'fixed' as const };
  });
}

/** The flaw an awareness decision opened a report for, if it did (its CVE first). */
export async function awarenessVulnerabilityOf(
  db: Executor,
  companyId: string,
  reportId: string,
): Promise<{ vulnerability: string; cve: string | null } | null> {
  const [row] = await selectRows<{ vuln_key: string; cve_ids: string[] }>(
    db,
    sql`
    select vuln_key, cve_ids from kev_awareness where company_id = ${companyId}::uuid and report_id = ${reportId}::uuid limit 1`,
  );
  return row ? { vulnerability: row.vuln_key, cve: row.cve_ids[0] ?? null } : null;
}
