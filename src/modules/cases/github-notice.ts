import type { PackageURL } from 'packageurl-js';
import { parsePackageUrl } from '../../kernel/package-url.js';
import type { Executor } from '../../db/client.js';
import { isAppError } from '../../kernel/errors.js';
import { getKnownVuln } from '../known-vulns/decide-known-vuln.js';
import { githubPackageOf, PrivateReportBody } from '../upstream/github-pvr.js';
import type { ReportRow } from '../reports/get-report.js';
import type { CaseRow, ParticipantRow } from './case-store.js';
import { buildNotice, type NoticeText } from './notice-text.js';

const SEVERITIES = new Set(['critical', 'high', 'medium', 'low']);
const CVSS = /^CVSS:(3\.[01]|4\.0)\//;

/** A component the case's flaw lies in: its package URL, and the version that fixes it when Cradle knows one. */
export type AffectedComponent = { purl: string; fixedVersion: string | null };

/**
 * The components of a case: each report's `componentPurl`, and the component of the
 * known-vulnerability match the case was opened from (with the fixed version its advisory gives).
 */
export async function caseComponents(db: Executor, c: CaseRow, reports: readonly ReportRow[]): Promise<AffectedComponent[]> {
  const out: AffectedComponent[] = reports.flatMap((r) => (r.componentPurl ? [{ purl: r.componentPurl, fixedVersion: null }] : []));
  if (c.origin === 'known_vulnerability' && c.originRef) {
    try {
      const m = await getKnownVuln(db, c.companyId, c.originRef);
      out.unshift({ purl: m.component.purl, fixedVersion: m.fixedVersion });
    } catch (e) {
      // A match removed since (its product deleted) leaves the case without that component.
      if (!isAppError(e) || e.code !== 'NOT_FOUND') throw e;
    }
  }
  return out;
}

type Vulnerability = NonNullable<PrivateReportBody['vulnerabilities']>[number];

/**
 * The `vulnerabilities` GitHub takes (package by its ecosystem and name, the affected version as
 * `= <version>`, the fixed version when known), one per distinct package and version; and a line
 * for the description about each component GitHub has no ecosystem for, which is left out there.
 */
function githubPackages(components: readonly AffectedComponent[]): { vulnerabilities: Vulnerability[]; lines: string[] } {
  const vulnerabilities: Vulnerability[] = [];
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const { purl, fixedVersion } of components) {
    let parsed: PackageURL;
    try {
      parsed = parsePackageUrl(purl);
    } catch {
      continue;
    }
    const pkg = githubPackageOf(purl);
    if (!pkg) {
      lines.push(`Affected component: ${purl} (not named as a package: GitHub has no "${parsed.type}" ecosystem).`);
      continue;
    }
    const key = `${pkg.ecosystem} ${pkg.name} ${parsed.version ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`Affected component: ${purl}`);
    vulnerabilities.push({
      package: pkg,
      vulnerable_version_range: parsed.version ? `= ${parsed.version}` : null,
      patched_versions: fixedVersion,
    });
  }
  return { vulnerabilities, lines };
}

/** CWE ids of the reports, as GitHub names them (`CWE-79`), each once. */
function cweIds(reports: readonly ReportRow[]): string[] {
  const ids = reports.map((r) => /^(?:CWE-)?(\d{1,5})$/i.exec(r.cwe?.trim() ?? '')?.[1]).filter((d): d is string => d !== undefined);
  return [...new Set(ids.map((d) => `CWE-${d}`))].slice(0, 20);
}

type NoticeInput = { companyName: string; c: CaseRow; p: ParticipantRow; reports: readonly ReportRow[]; components?: readonly AffectedComponent[] };

/**
 * The body posted to a repository's private vulnerability reporting (docs/coordination.md
 * "Channels"): the case title as summary, the notice with the reports' text as description, the
 * first CVSS vector a report gives or else its severity (GitHub takes one, never both), the
 * reports' CWE ids, and the affected packages with their versions. Checked by the upstream client's
 * schema, so what is shown is what may be posted.
 */
export function githubReportBody(o: NoticeInput): PrivateReportBody {
  const { vulnerabilities, lines } = githubPackages(o.components ?? []);
  const notice = buildNotice({ ...o, withText: true, linked: false }).body;
  const description = (lines.length > 0 ? `${notice.replace(/\n$/, '')}\n\n${lines.join('\n')}\n` : notice).slice(0, 65_535);
  const vector = o.reports.map((r) => r.cvssVector?.trim()).find((v) => v !== undefined && CVSS.test(v));
  const severity = o.reports.map((r) => r.severity?.toLowerCase()).find((s) => s !== undefined && SEVERITIES.has(s));
  const cwes = cweIds(o.reports);
  const body = {
    summary: o.c.title.slice(0, 1024),
    description,
    ...(vector ? { cvss_vector_string: vector } : severity ? { severity: severity as 'critical' | 'high' | 'medium' | 'low' } : {}),
    ...(cwes.length > 0 ? { cwe_ids: cwes } : {}),
    ...(vulnerabilities.length > 0 ? { vulnerabilities } : {}),
  };
  return PrivateReportBody.parse(body);
}

/** The prepared notice of a `github` participant: the summary as subject and the exact JSON body as text. */
export function githubNoticeText(o: NoticeInput): NoticeText {
  const body = githubReportBody(o);
  return { subject: body.summary, body: `${JSON.stringify(body, null, 2)}\n` };
}
