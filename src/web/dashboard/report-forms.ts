import type { Article14View } from '../../modules/article14/article14.js';
import type { ReportView } from '../../modules/reports/get-report.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { isReportState, TRANSITIONS } from '../../modules/reports/lifecycle.js';
import { EU_MEMBER_STATES } from '../../modules/reports/lifecycle.schemas.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, sessionMay } from './dashboard-layout.js';
import { stageLabel, untilText } from './report-badges.js';
import { utc } from '../times.js';
import { listField, textField } from '../form-fields.js';

/** What was posted to one of the report page's forms that was refused: the form shows it again. */
export type TypedForm = { form: string; values: Record<string, unknown> } | undefined;
/** The posted values when `typed` is this form's, else undefined (the form shows the report). */
const typedFor = (typed: TypedForm, form: string): Record<string, unknown> | undefined => (typed?.form === form ? typed.values : undefined);
const typedTri = (v: unknown): boolean | null => (v === 'yes' ? true : v === 'no' ? false : null);
import { label } from '../labels.js';

/**
 * `<input type=datetime-local step=1>` holds seconds without a zone: the forms say UTC and mean it.
 * Seconds are kept, so that saving the form again never moves a recorded time (an Article 14 clock
 * runs from the awareness time to the second).
 */
export const toLocalInput = (iso: string | null): string => (iso ? iso.slice(0, 19) : '');

const triState = (name: string, label: string, v: boolean | null): SafeHtml => html`<div class="field"><label for="${name}">${label}</label>
<select id="${name}" name="${name}"><option value="" ${v === null ? html`selected` : ''}>not assessed</option><option value="yes" ${v === true ? html`selected` : ''}>yes</option><option value="no" ${v === false ? html`selected` : ''}>no</option></select></div>`;

/** Only the transitions the lifecycle allows from the current state are offered. */
export function statusForm(s: SessionView, r: ReportView, typed?: TypedForm): SafeHtml {
  if (!sessionMay(s, 'triage')) return html``;
  const posted = typedFor(typed, 'status');
  const chosen = posted ? textField(posted.status) : '';
  const duplicateOf = posted ? textField(posted.duplicateOf) : (r.duplicateOf ?? '');
  const next = isReportState(r.status) ? TRANSITIONS[r.status] : [];
  if (next.length === 0) return html`<p class="hint">A report that is ${label('reportState', r.status)} is final.</p>`;
  return html`<form method="post" action="/reports/${r.submissionId}/status" class="narrow">${csrfField(s)}
<div class="field"><label for="status">Move to</label><select id="status" name="status">${next.map((t) => html`<option value="${t}" ${t === chosen ? html`selected` : ''}>${label('reportState', t)}</option>`)}</select></div>
${next.includes('duplicate') ? html`<div class="field"><label for="duplicateOf">Original report id (when closing as duplicate)</label><input type="text" id="duplicateOf" name="duplicateOf" value="${duplicateOf}" spellcheck="false"></div>` : ''}
<button type="submit">Change status</button></form>`;
}

export function severityForm(s: SessionView, r: ReportView, typed?: TypedForm): SafeHtml {
  if (!sessionMay(s, 'triage')) return html``;
  const posted = typedFor(typed, 'severity');
  return html`<form method="post" action="/reports/${r.submissionId}/severity" class="narrow">${csrfField(s)}
<div class="field"><label for="cvssVector">CVSS vector (3.1 or 4.0)</label><input type="text" id="cvssVector" name="cvssVector" value="${posted ? textField(posted.cvssVector) : (r.cvssVector ?? '')}" placeholder="CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" spellcheck="false">
<p class="hint">The score and severity are computed. Empty clears them.</p></div>
<div class="field"><label for="cwe">CWE</label><input type="text" id="cwe" name="cwe" value="${posted ? textField(posted.cwe) : (r.cwe ?? '')}" placeholder="CWE-287"></div>
<button type="submit">Save severity</button></form>`;
}

export function factsForm(s: SessionView, r: ReportView, typed?: TypedForm): SafeHtml {
  if (!sessionMay(s, 'triage')) return html``;
  const posted = typedFor(typed, 'facts');
  const v = posted
    ? {
        activelyExploited: typedTri(posted.activelyExploited),
        awareAt: textField(posted.awareAt),
        exploitationEvidence: textField(posted.exploitationEvidence),
        severeIncident: typedTri(posted.severeIncident),
        fixAvailableAt: textField(posted.fixAvailableAt),
        memberStates: listField(posted.memberStates),
        componentPurl: textField(posted.componentPurl),
      }
    : {
        activelyExploited: r.activelyExploited,
        awareAt: toLocalInput(r.awareAt),
        exploitationEvidence: r.exploitationEvidence ?? '',
        severeIncident: r.severeIncident,
        fixAvailableAt: toLocalInput(r.fixAvailableAt),
        memberStates: r.memberStates,
        componentPurl: r.componentPurl ?? '',
      };
  const chosen = new Set(v.memberStates);
  return html`<h2>Article 14 facts</h2>
<form method="post" action="/reports/${r.submissionId}/facts" class="narrow">${csrfField(s)}
${triState('activelyExploited', 'Actively exploited (reliable evidence of exploitation by a malicious actor)', v.activelyExploited)}
<div class="field"><label for="awareAt">Company became aware at (UTC)</label><input type="datetime-local" step="1" id="awareAt" name="awareAt" value="${v.awareAt}"></div>
<div class="field"><label for="exploitationEvidence">Evidence of exploitation</label><textarea id="exploitationEvidence" name="exploitationEvidence" rows="3">${v.exploitationEvidence}</textarea></div>
${triState('severeIncident', 'Severe incident affecting the security of the product', v.severeIncident)}
<div class="field"><label for="fixAvailableAt">Corrective or mitigating measure available since (UTC)</label><input type="datetime-local" step="1" id="fixAvailableAt" name="fixAvailableAt" value="${v.fixAvailableAt}"></div>
<fieldset class="field member-states"><legend>Member States where the product is available</legend>
${EU_MEMBER_STATES.map((c) => html`<label class="check inline-check"><input type="checkbox" name="memberStates" value="${c}" ${chosen.has(c) ? html`checked` : ''}> ${c}</label>`)}</fieldset>
<div class="field"><label for="componentPurl">Third-party component (package URL)</label><input type="text" id="componentPurl" name="componentPurl" value="${v.componentPurl}" placeholder="pkg:npm/lodash@4.17.20" maxlength="512" spellcheck="false">
<p class="hint">When the flaw lies in a component someone else maintains, its maintainer must be told (CRA Article 13(6)). Empty when it is your own code.</p></div>
<button type="submit">Save Article 14 facts</button></form>`;
}

/** The clocks, each unfiled stage with a form to record its filing, and the filing pack download. */
export function article14Panel(s: SessionView, r: ReportView, a: Article14View, now: Date, typed?: TypedForm): SafeHtml {
  const posted = (stage: string) => typedFor(typed, `filing-${stage}`);
  return html`<section class="article14" aria-labelledby="a14-title"><h2 id="a14-title">Article 14 reporting</h2>
<p id="article14-reason">${a.applies ? html`<strong>Applies.</strong> ` : ''}${a.reason}</p>
${
  a.applies
    ? html`<table class="data"><thead><tr><th>Stage</th><th>Due</th><th>State</th><th>Filing</th></tr></thead><tbody>
${a.stages.map(
  (st) => html`<tr class="stage-${st.state}" data-stage="${st.stage}"><td>${stageLabel(st.stage)}</td>
<td>${st.dueAt ? html`<time datetime="${st.dueAt}">${utc(st.dueAt)}</time><br><span class="hint">${st.filing ? '' : untilText(st.dueAt, now)}</span>` : html`<span class="hint">${st.anchor}</span>`}</td>
<td><span class="a14-state a14-${st.state}">${label('article14StageState', st.state)}</span></td>
<td>${
    st.filing
      ? html`filed ${utc(st.filing.filedAt)}${st.filing.reference ? html`, SRP reference <code>${st.filing.reference}</code>` : ''}`
      : !sessionMay(s, 'triage')
        ? html`<span class="hint">not recorded</span>`
        : html`<form method="post" action="/reports/${r.submissionId}/article14/${st.stage}" class="filing">${csrfField(s)}
<label for="filedAt-${st.stage}">Filed at (UTC, empty = now)</label><input type="datetime-local" step="1" id="filedAt-${st.stage}" name="filedAt" value="${textField(posted(st.stage)?.filedAt)}">
<label for="reference-${st.stage}">SRP reference</label><input type="text" id="reference-${st.stage}" name="reference" maxlength="200" value="${textField(posted(st.stage)?.reference)}">
<button type="submit" class="secondary">Record ${stageLabel(st.stage)} as filed</button></form>`
  }</td></tr>`,
)}
</tbody></table>
<p><a href="/reports/${r.submissionId}/article14/pack" download>Download the filing pack</a> <span class="hint">(plain text to paste into ENISA's Single Reporting Platform)</span></p>`
    : ''
}
</section>`;
}
