import type { Executor } from '../../db/client.js';
import { exportReports } from './export-reports.js';
import type { ReportView } from './get-report.js';

/**
 * The CSV columns of the reports download: the facts of each report, never what the reporter wrote
 * (description, steps, impact, contact, key) and never a secret. The product and type are as the
 * reporter gave them. `opened_by_cradle`: Cradle opened the report itself from a confirmed
 * known-vulnerability match (then `source` is where the team confirmed it), so no reporter wrote it.
 */
const COLUMNS: [string, (r: ReportView, selfOpened: ReadonlySet<string>) => string | number | boolean | null][] = [
  ['submission_id', (r) => r.submissionId],
  ['received_at', (r) => r.createdAt],
  ['updated_at', (r) => r.updatedAt],
  ['status', (r) => r.status],
  ['source', (r) => r.source],
  ['opened_by_cradle', (r, selfOpened) => selfOpened.has(r.submissionId)],
  ['product_as_given', (r) => r.productName],
  ['type_as_given', (r) => r.vulnerabilityType],
  ['severity', (r) => r.severity],
  ['cvss_score', (r) => r.cvssScore],
  ['cvss_vector', (r) => r.cvssVector],
  ['cwe', (r) => r.cwe],
  ['duplicate_of', (r) => r.duplicateOf],
  ['actively_exploited', (r) => r.activelyExploited],
  ['aware_at', (r) => r.awareAt],
  ['severe_incident', (r) => r.severeIncident],
  ['fix_available_at', (r) => r.fixAvailableAt],
  ['member_states', (r) => r.memberStates.join(' ')],
];

/**
 * One RFC 4180 field: always quoted, quotes doubled. A value a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) gets a leading apostrophe (OWASP's advice
 * against CSV injection): the product and type come from anonymous reporters.
 */
export function csvField(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  const safe = typeof v === 'string' && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return `"${safe.replaceAll('"', '""')}"`;
}

export type CsvOptions = {
  /**
   * Which of a page of reports Cradle opened itself. The known-vulnerability module knows (it owns
   * the awareness decisions, and it imports this module), so the caller passes its lookup in.
   */
  selfOpened: (reportIds: string[]) => Promise<ReadonlySet<string>>;
};

/** Every report of the company as CSV lines, newest first, read in the API's export pages of 100. */
export async function* reportsCsv(db: Executor, companyId: string, o: CsvOptions): AsyncGenerator<string> {
  yield `${COLUMNS.map(([name]) => name).join(',')}\r\n`;
  let cursor: string | undefined;
  do {
    const page = await exportReports(db, companyId, cursor === undefined ? {} : { cursor });
    const selfOpened = await o.selfOpened(page.reports.map((r) => r.submissionId));
    yield page.reports.map((r) => `${COLUMNS.map(([, of]) => csvField(of(r, selfOpened))).join(',')}\r\n`).join('');
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
