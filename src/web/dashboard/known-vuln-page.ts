import { ANALYSIS_STATES, JUSTIFICATIONS, type KnownVulnDetail, RESPONSES } from '../../modules/known-vulns/known-vulns.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { link } from './evidence-pages.js';
import { analysisLabel, KNOWN_VULNS_PATH, kevBadge } from './known-vulns-page.js';
import { label } from '../labels.js';
import { timeTag } from '../times.js';

export type DecisionFormValues = {
  state?: string | undefined;
  justification?: string | undefined;
  response?: string[];
  detail?: string | undefined;
  everywhere?: boolean;
};

const idLink = (id: string): SafeHtml =>
  id.startsWith('CVE-')
    ? html`<a href="https://nvd.nist.gov/vuln/detail/${id}" rel="noreferrer noopener">${id}</a>`
    : html`<a href="https://osv.dev/vulnerability/${id}" rel="noreferrer noopener">${id}</a>`;

function decisionForm(s: SessionView, m: KnownVulnDetail, v: DecisionFormValues, errors: Record<string, string>): SafeHtml {
  if (!sessionMay(s, 'triage')) return html`<p class="hint" id="read-only">Your role reads this; an administrator or PSIRT member changes it.</p>`;
  const err = (k: string) => (errors[k] ? html`<p class="error" id="${k}-error">${errors[k]}</p>` : '');
  const state = v.state ?? m.analysis?.state;
  const justification = v.justification ?? m.analysis?.justification ?? undefined;
  const response = v.response ?? m.analysis?.response ?? [];
  return html`<form method="post" action="${KNOWN_VULNS_PATH}/${m.id}/decision" class="stacked">${csrfField(s)}
<div class="field"><label for="state">Analysis</label><select id="state" name="state" required>
${ANALYSIS_STATES.map((a) => html`<option value="${a}" ${a === state ? html`selected` : ''}>${label('analysisState', a)}</option>`)}</select>${err('state')}</div>
<div class="field"><label for="justification">Justification (with “not affected”)</label><select id="justification" name="justification">
<option value="">none</option>${JUSTIFICATIONS.map((j) => html`<option value="${j}" ${j === justification ? html`selected` : ''}>${label('analysisJustification', j)}</option>`)}</select>${err('justification')}</div>
<fieldset class="field"><legend>Response</legend>${RESPONSES.map((r) => html`<label class="check"><input type="checkbox" name="response" value="${r}" ${response.includes(r) ? html`checked` : ''}> ${label('analysisResponse', r)}</label> `)}${err('response')}</fieldset>
<div class="field"><label for="detail">Reason</label><textarea id="detail" name="detail" rows="4" maxlength="4000" required>${v.detail ?? ''}</textarea>${err('detail')}</div>
<div class="field"><label class="check"><input type="checkbox" name="everywhere" value="1" ${v.everywhere ? html`checked` : ''}> Apply to every product where ${m.vulnerability} is open</label></div>
<div class="field"><button type="submit">Record the decision</button></div>
</form>`;
}

/** One known vulnerability of a product component: facts, the decision form and the history. */
export function knownVulnPage(
  s: SessionView,
  m: KnownVulnDetail,
  o: { values?: DecisionFormValues; errors?: Record<string, string>; notice?: { kind: 'ok' | 'bad'; text: string } | undefined } = {},
): string {
  return dashboardPage({
    title: m.vulnerability,
    session: s,
    current: KNOWN_VULNS_PATH,
    notice: o.notice,
    body: html`<p><a href="${KNOWN_VULNS_PATH}">Known vulnerabilities</a> › <a href="${link(KNOWN_VULNS_PATH, { product: m.productIdentifier })}">${m.productIdentifier}</a> › ${m.vulnerability}</p>
<h1>${kevBadge(m)} ${m.vulnerability} in ${m.component.name} ${m.component.version}</h1>
${m.summary ? html`<p class="lead">${m.summary}</p>` : ''}
<dl class="facts">
<dt>Ids</dt><dd>${m.ids.map((id, i) => html`${i ? ', ' : ''}${idLink(id)}`)}</dd>
<dt>Product</dt><dd><code>${m.productIdentifier}</code> (<a href="${link(KNOWN_VULNS_PATH, { vulnerability: m.vulnerability, state: 'all' })}">every product with ${m.vulnerability}</a>)</dd>
<dt>Component</dt><dd>${m.component.name} <code>${m.component.version}</code>${m.component.purl ? html`<br><code>${m.component.purl}</code><br><a id="find-upstream" href="/upstream-contacts?purl=${encodeURIComponent(m.component.purl)}">Find its upstream maintainer</a>` : ''}</dd>
<dt>Fixed in</dt><dd>${m.fixedVersion ? html`<code>${m.fixedVersion}</code>` : 'no fixed version is known'}</dd>
<dt>CISA KEV</dt><dd>${m.kev ? html`added ${m.kev.dateAdded}${m.kev.dueDate ? html`, federal due date ${m.kev.dueDate}` : ''}; ransomware use: ${m.kev.knownRansomwareCampaignUse}` : 'not in the catalog'}</dd>
<dt>EPSS</dt><dd>${m.epss ? html`${(m.epss.score * 100).toFixed(2)}% (percentile ${(m.epss.percentile * 100).toFixed(0)}, ${m.epss.date})` : 'no score'}</dd>
<dt>CVSS</dt><dd>${m.cvss ? html`${m.cvss.score.toFixed(1)} <code>${m.cvss.vector}</code>${m.cvss.source ? html` from ${m.cvss.source}` : ''}` : 'no vector in the advisories'}</dd>
<dt>State</dt><dd>${m.state === 'open' ? 'open: in the latest SBOM' : html`resolved ${m.resolvedAt ? timeTag(m.resolvedAt) : ''}: gone from the latest SBOM`}; first seen ${timeTag(m.firstSeenAt)}</dd>
<dt>Decision</dt><dd>${analysisLabel(m)}${m.analysis ? html` ${m.analysis.justification ? html`(${label('analysisJustification', m.analysis.justification)})` : ''} by ${m.analysis.decidedBy}, ${timeTag(m.analysis.decidedAt)}` : ''}</dd>
</dl>
<h2>Decide</h2>
${decisionForm(s, m, o.values ?? {}, o.errors ?? {})}
<h2>History</h2>
${
  m.history.length === 0
    ? html`<p>No decision yet.</p>`
    : html`<table class="data"><thead><tr><th>When (UTC)</th><th>Analysis</th><th>Justification</th><th>Response</th><th>Reason</th><th>By</th></tr></thead><tbody>
${m.history.map(
  (
    h,
  ) => html`<tr><td>${timeTag(h.decidedAt)}</td><td>${label('analysisState', h.state)}</td><td>${h.justification ? label('analysisJustification', h.justification) : ''}</td>
<td>${h.response.map((r) => label('analysisResponse', r)).join(', ')}</td><td>${h.detail}</td><td>${h.actor}</td></tr>`,
)}
</tbody></table>`
}`,
  });
}
