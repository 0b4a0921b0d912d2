import type { CaseSummaryView } from '../../modules/cases/cases.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { CASES_PATH } from './cases-page.js';
import { csrfField, sessionMay } from './dashboard-layout.js';

export type ReportCoordination = { cases: CaseSummaryView[]; inbound: { participantId: string; from: string } | undefined };

/**
 * A report page's coordination panel: the cases holding the report, "Open a case" for the triage
 * roles, and, for a report another company on this instance notified, where it came from.
 */
export function coordinationPanel(s: SessionView, reportId: string, d: ReportCoordination): SafeHtml {
  return html`<section aria-labelledby="coordination-title"><h2 id="coordination-title">Coordination</h2>
${d.inbound ? html`<p id="coordination-source">Notified by <strong>${d.inbound.from}</strong> from a coordination case: <a href="${CASES_PATH}/inbound/${d.inbound.participantId}">acknowledge it, answer the embargo, write back</a>.</p>` : ''}
${d.cases.length ? html`<ul>${d.cases.map((c) => html`<li><a href="${CASES_PATH}/${c.id}">${c.title}</a> (${c.participants} participants)</li>`)}</ul>` : ''}
${
  sessionMay(s, 'triage')
    ? html`<form method="post" action="${CASES_PATH}" class="inline">${csrfField(s)}<input type="hidden" name="reportId" value="${reportId}">
<label for="case-title">Case title</label> <input id="case-title" name="title" required> <button type="submit" id="open-case">Open a case</button>
<span class="hint">To notify the maintainer of an affected component (CRA Article 13(6)), other vendors or a coordinator.</span></form>`
    : ''
}</section>`;
}
