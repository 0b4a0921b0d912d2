import type { PackageURL } from 'packageurl-js';
import { newPackageUrl, parsePackageUrl } from '../../kernel/package-url.js';
import { OSV_ECOSYSTEMS } from '../vulndb/ecosystems.js';
import type { ReportRow } from '../reports/get-report.js';
import type { CaseRow } from './case-store.js';

/** The OSV schema version the draft follows (https://ossf.github.io/osv-schema/). */
export const OSV_SCHEMA_VERSION = '1.6.0';

const ECOSYSTEM_OF: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(OSV_ECOSYSTEMS).map(([eco, type]) => [type, eco]));

/** The OSV `affected[].package` of a purl in an ecosystem OSV knows, with its version; null otherwise. */
function osvAffected(purl: string | null): Record<string, unknown> | null {
  if (!purl) return null;
  let p: PackageURL;
  try {
    p = parsePackageUrl(purl);
  } catch {
    return null;
  }
  const ecosystem = ECOSYSTEM_OF[p.type];
  if (!ecosystem || p.type === 'deb') return null;
  const name = p.type === 'maven' ? `${p.namespace ?? ''}:${p.name}` : p.namespace ? `${p.namespace}/${p.name}` : p.name;
  const base = newPackageUrl(p.type, p.namespace, p.name, null, null, null).toString();
  return { package: { ecosystem, name, purl: base }, ...(p.version ? { versions: [p.version] } : {}) };
}

/**
 * An OSV-format draft of the upstream's advisory, from the case and its first report's triage facts
 * (never the reporter's text): the case title as `summary`, the case summary as `details`, the
 * report's CVSS vector, CWE and component. A draft: no `published`, an id the upstream replaces.
 */
export function osvDraft(c: CaseRow, r: ReportRow, now: Date): Record<string, unknown> {
  const affected = osvAffected(r.componentPurl);
  const cvss = r.cvssVector?.startsWith('CVSS:4.0/') ? 'CVSS_V4' : r.cvssVector?.startsWith('CVSS:3.') ? 'CVSS_V3' : null;
  return {
    schema_version: OSV_SCHEMA_VERSION,
    id: `CRADLE-DRAFT-${c.id}`,
    modified: `${now.toISOString().slice(0, 19)}Z`,
    summary: c.title.slice(0, 120),
    ...(c.summary ? { details: c.summary } : {}),
    ...(cvss && r.cvssVector ? { severity: [{ type: cvss, score: r.cvssVector }] } : {}),
    ...(affected ? { affected: [affected] } : {}),
    database_specific: { ...(r.cwe ? { cwe_ids: [r.cwe] } : {}), ...(r.componentPurl ? { component_purl: r.componentPurl } : {}), draft: true },
  };
}
