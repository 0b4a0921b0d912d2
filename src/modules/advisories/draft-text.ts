import type { Company } from '../companies/companies.schemas.js';
import type { ReportRow } from '../reports/get-report.js';
import { VULNERABILITY_TYPE_INFO, type VulnerabilityType } from '../reports/reports.schemas.js';

/** What the company itself knows of a report: its triage facts and the registered product it concerns. */
export type DraftFacts = {
  report: Pick<ReportRow, 'vulnerabilityType' | 'cwe' | 'cvssVector' | 'cvssScore' | 'severity' | 'fixAvailableAt'>;
  /** The registered product the report names, if any: its registered name, never the reporter's spelling. */
  productName: string | null;
  company: Pick<Company, 'name'>;
  cve?: string | undefined;
};

const kindOf = (t: string | null): string => (t ? (VULNERABILITY_TYPE_INFO[t as VulnerabilityType]?.label ?? 'Vulnerability') : 'Vulnerability');

/**
 * The title, summary and description a new draft starts from, written only from the company's own
 * fields (docs/advisories.md "Fields"): the triaged type, CWE, CVSS, CVE, fix date and the registered
 * product. The researcher's words (description, impact, the product name as typed) are untrusted
 * text from outside: one click must never publish them under the company's name, so the dashboard
 * shows them beside the editor for reference and nothing copies them in.
 */
export function draftText(f: DraftFacts): { title: string; summary: string; description: string } {
  const kind = kindOf(f.report.vulnerabilityType);
  const where = f.productName ?? `a product of ${f.company.name}`;
  const title = f.productName ? `${kind} in ${f.productName}` : kind;
  const weakness = f.report.cwe ? ` (${f.report.cwe})` : '';
  const severity = f.report.severity && f.report.cvssScore !== null ? ` rated ${f.report.severity} (CVSS ${f.report.cvssScore})` : '';
  const summary = `${/^[aeiou]/i.test(kind) ? 'An' : 'A'} ${kind.toLowerCase()} vulnerability${weakness}${severity} in ${where} has been fixed. See the affected products and what to do below.`;
  const facts = [
    `${kind}${weakness} in ${where}${f.cve ? `, tracked as ${f.cve}` : ''}.`,
    f.report.cvssVector ? `CVSS vector: ${f.report.cvssVector}.` : '',
    f.report.fixAvailableAt ? `A fix has been available since ${f.report.fixAvailableAt.toISOString().slice(0, 10)}.` : '',
  ];
  return { title, summary, description: facts.filter(Boolean).join(' ') };
}
