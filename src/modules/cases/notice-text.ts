import type { ReportRow } from '../reports/get-report.js';
import type { CaseRow, ParticipantRow } from './case-store.js';
import type { CaseFixView } from './case-fixes.schemas.js';

/** Stands in a prepared notice for the private link, which is made only when the notice is confirmed. */
export const LINK_PLACEHOLDER = '[private participant link, made when the notice is confirmed]';

const ROLE_WORDS: Record<string, string> = {
  finder: 'as the finder',
  vendor: 'as a vendor',
  upstream_maintainer: 'as the maintainer of an affected component (CRA Article 13(6))',
  other_vendor: 'as another affected vendor',
  coordinator: 'as coordinator',
  deployer: 'as a deployer of the affected product',
};

export type NoticeText = { subject: string; body: string };

/** The subject says who and which case, never what the flaw is: it travels in clear even in encrypted mail. */
export const noticeSubject = (companyName: string, c: CaseRow): string => `${companyName}: coordinated vulnerability disclosure, case ${c.id}`;

function embargoLine(c: CaseRow): string {
  if (c.embargoState === 'proposed' && c.embargoUntil)
    return `Proposed embargo: no public disclosure before ${c.embargoUntil}. Please accept it or propose another date.`;
  if (c.embargoState === 'agreed' && c.embargoUntil) return `Agreed embargo: no public disclosure before ${c.embargoUntil}.`;
  return 'No embargo date has been proposed yet.';
}

/** The report text a notice may carry: each held report's description, type, impact and steps. */
function reportSections(reports: readonly ReportRow[]): string[] {
  return reports.flatMap((r, i) => [
    '',
    `--- Report ${i + 1} ---`,
    ...(r.vulnerabilityType ? [`Type: ${r.vulnerabilityType}`] : []),
    ...(r.cwe ? [`CWE: ${r.cwe}`] : []),
    ...(r.severity ? [`Severity: ${r.severity}`] : []),
    ...(r.cvssVector ? [`CVSS: ${r.cvssVector}`] : []),
    '',
    r.description,
    ...(r.impact ? ['', 'Impact:', r.impact] : []),
    ...(r.stepsToReproduce ? ['', 'Steps to reproduce:', r.stepsToReproduce] : []),
  ]);
}

/** The fixes shared with the participant: in full when the notice may carry text, else a line saying where they wait. */
function fixSections(fixes: readonly CaseFixView[], inline: boolean, linked: boolean): string[] {
  if (fixes.length === 0) return [];
  if (!inline) {
    const what = fixes.length === 1 ? 'A fix is' : `${fixes.length} fixes are`;
    return ['', `${what} shared with you in the case${linked ? ', behind the private link below' : ''}.`];
  }
  return fixes.flatMap((f, i) => [
    '',
    `--- Fix ${i + 1} (${f.kind === 'patch' ? 'patch, unified diff' : 'description'}) ---`,
    f.body.replace(/\n$/, ''),
    ...(f.osvDraft ? ['', `--- Fix ${i + 1}: OSV draft of the upstream advisory ---`, JSON.stringify(f.osvDraft, null, 2)] : []),
  ]);
}

/**
 * The notice for one participant. `withText` false (e-mail without a key) leaves out the summary and
 * every report: the mail then carries only the private link, where the participant reads the rest.
 */
export function buildNotice(o: {
  companyName: string;
  c: CaseRow;
  p: ParticipantRow;
  reports: readonly ReportRow[];
  withText: boolean;
  linked: boolean;
  /** The fixes this participant is shown, and whether this notice carries them (encrypted mail only). */
  fixes?: readonly CaseFixView[];
  fixesInline?: boolean;
}): NoticeText {
  const fixes = fixSections(o.fixes ?? [], o.withText && o.fixesInline === true, o.linked);
  const head = [
    `${o.companyName} coordinates the disclosure of a vulnerability through Cradle and contacts you ${ROLE_WORDS[o.p.role] ?? ''}.`.replace(' .', '.'),
    '',
    // The title is the team's words about the flaw: it stays out of mail that goes in clear.
    ...(o.withText ? [`Case: ${o.c.title}`] : []),
    embargoLine(o.c),
  ];
  const link = o.linked ? ['', `Read the case, acknowledge it, answer the embargo and reply here: ${LINK_PLACEHOLDER}`] : [];
  if (!o.withText) {
    return {
      subject: noticeSubject(o.companyName, o.c),
      body: [...head, '', 'The details are not sent by e-mail because no OpenPGP key is known for this address.', ...fixes, ...link, ''].join('\n'),
    };
  }
  return {
    subject: noticeSubject(o.companyName, o.c),
    body: [...head, ...(o.c.summary ? ['', o.c.summary] : []), ...reportSections(o.reports), ...fixes, ...link, ''].join('\n'),
  };
}
