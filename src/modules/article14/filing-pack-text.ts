import type { Article14View } from './article14.js';

const TITLE: Record<string, string> = { early_warning: 'Early warning', notification: 'Notification', final_report: 'Final report' };

/**
 * The filing packs of every stage as one plain-text document, ready to paste field by field into
 * ENISA's Single Reporting Platform. Plain text on purpose: it is downloaded, never rendered.
 */
export function filingPackText(reportId: string, a: Article14View, now: Date): string {
  const lines = [`CRA Article 14 filing pack`, `Report: ${reportId}`, `Generated: ${now.toISOString()}`, `Basis: ${a.basis ?? 'none'}`, `Why: ${a.reason}`, ''];
  for (const st of a.stages) {
    lines.push(`== ${TITLE[st.stage] ?? st.stage} ==`, `Due: ${st.dueAt ?? `unknown (${st.anchor})`}`, `State: ${st.state}`);
    if (st.filing) lines.push(`Filed: ${st.filing.filedAt}${st.filing.reference ? ` (SRP reference ${st.filing.reference})` : ''}`);
    lines.push('');
    for (const f of st.pack) lines.push(`${f.label}:`, `  ${(f.value ?? `[to fill in: ${f.hint}]`).replace(/\r?\n/g, '\n  ')}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
