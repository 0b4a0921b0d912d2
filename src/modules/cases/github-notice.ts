import { PrivateReportBody } from '../upstream/github-pvr.js';
import type { ReportRow } from '../reports/get-report.js';
import type { CaseRow, ParticipantRow } from './case-store.js';
import { buildNotice, type NoticeText } from './notice-text.js';

const SEVERITIES = new Set(['critical', 'high', 'medium', 'low']);
const CVSS = /^CVSS:(3\.[01]|4\.0)\//;

/** CWE ids of the reports, as GitHub names them (`CWE-79`), each once. */
function cweIds(reports: readonly ReportRow[]): string[] {
  const ids = reports.map((r) => /^(?:CWE-)?(\d{1,5})$/i.exec(r.cwe?.trim() ?? '')?.[1]).filter((d): d is string => d !== undefined);
  return [...new Set(ids.map((d) => `CWE-${d}`))].slice(0, 20);
}

/**
 * The body posted to a repository's private vulnerability reporting (docs/coordination.md
 * "Channels"): the case title as summary, the notice with the reports' text as description, the
 * first CVSS vector a report gives or else its severity (GitHub takes one, never both), and the
 * reports' CWE ids. Checked by the upstream client's schema, so what is shown is what may be posted.
 */
export function githubReportBody(o: { companyName: string; c: CaseRow; p: ParticipantRow; reports: readonly ReportRow[] }): PrivateReportBody {
  const description = buildNotice({ ...o, withText: true, linked: false }).body.slice(0, 65_535);
  const vector = o.reports.map((r) => r.cvssVector?.trim()).find((v) => v !== undefined && CVSS.test(v));
  const severity = o.reports.map((r) => r.severity?.toLowerCase()).find((s) => s !== undefined && SEVERITIES.has(s));
  const cwes = cweIds(o.reports);
  const body = {
    summary: o.c.title.slice(0, 1024),
    description,
    ...(vector ? { cvss_vector_string: vector } : severity ? { severity: severity as 'critical' | 'high' | 'medium' | 'low' } : {}),
    ...(cwes.length > 0 ? { cwe_ids: cwes } : {}),
  };
  return PrivateReportBody.parse(body);
}

/** The prepared notice of a `github` participant: the summary as subject and the exact JSON body as text. */
export function githubNoticeText(o: { companyName: string; c: CaseRow; p: ParticipantRow; reports: readonly ReportRow[] }): NoticeText {
  const body = githubReportBody(o);
  return { subject: body.summary, body: `${JSON.stringify(body, null, 2)}\n` };
}
