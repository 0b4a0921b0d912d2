import { REQUIREMENTS } from '../../modules/compliance/catalog.js';
import { actionPath } from '../../modules/compliance/company-level.js';
import type { ComplianceView } from '../../modules/compliance/compliance-dashboard.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { DOWNLOADS } from './download-routes.js';
import type { ProductFloor } from '../../modules/retention/cra-floor.js';
import { whatKeepsWhat } from './retention-page.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { calendarDay as day, timeTag } from '../times.js';
import { label, LABELS } from '../labels.js';

const VERDICT_ORDER = { gap: 0, not_assessed: 1, not_applicable: 2, met: 3 } as const;

/** Readiness as a server-rendered bar (no script, no inline style: presentation attributes only). */
function readinessBar(s: { met: number; gap: number; not_applicable: number; not_assessed: number; score: number }): SafeHtml {
  const total = Math.max(1, s.met + s.gap + s.not_applicable + s.not_assessed);
  let x = 0;
  const seg = (n: number, fill: string, label: string) => {
    const w = (n / total) * 300;
    const r = html`<rect x="${x.toFixed(1)}" y="0" width="${w.toFixed(1)}" height="16" fill="${fill}"><title>${label}: ${n}</title></rect>`;
    x += w;
    return r;
  };
  return html`<svg class="readiness" width="300" height="16" viewBox="0 0 300 16" role="img" aria-label="Readiness ${s.score} %: ${s.met} met, ${s.gap} gaps, ${s.not_assessed} not assessed, ${s.not_applicable} not applicable">
${seg(s.met, '#2e7d32', 'met')}${seg(s.not_applicable, '#90a4ae', 'not applicable')}${seg(s.not_assessed, '#f9a825', 'not assessed')}${seg(s.gap, '#c62828', 'gap')}</svg>`;
}

function overview(v: ComplianceView): SafeHtml {
  return html`<table class="data"><thead><tr><th>Product</th><th>Category</th><th>Readiness</th><th>Score</th><th>Gaps</th><th>Not assessed</th></tr></thead><tbody>
${v.status.products.map(
  (p) => html`<tr><td><a href="/compliance?product=${encodeURIComponent(p.identifier)}">${p.name}</a> <span class="hint">${p.identifier}</span></td>
<td>${label('productCategory', p.category)}</td><td>${readinessBar(p.summary)}</td><td>${p.summary.score} %</td><td>${p.summary.gap}</td><td>${p.summary.not_assessed}</td></tr>`,
)}
</tbody></table>`;
}

/** The company's own open items, each with the page that closes it. */
function companyGapsTable(v: ComplianceView): SafeHtml {
  if (v.companyGaps.length === 0) return html``;
  return html`<section aria-labelledby="company-gaps-title"><h2 id="company-gaps-title">Company-wide gaps</h2>
<table class="data"><thead><tr><th>Requirement</th><th>Why</th><th>To close</th></tr></thead><tbody>
${v.companyGaps.map((g) => html`<tr data-requirement="${g.requirementId}"><td><strong>${g.title}</strong><br><span class="hint">${g.reference}</span></td><td>${g.reason}</td><td><a href="${g.actionPath}">${g.action}</a></td></tr>`)}
</tbody></table></section>`;
}

/** "What next": the next task and deadline (and the timeline on the compliance page); also the dashboard overview's. */
export function nextPanel(v: Pick<ComplianceView, 'plan' | 'next'>, timeline = true): SafeHtml {
  if (!v.next)
    return html`<div class="notice">The next task and the next regulatory deadline are available from the Reporting plan upward; this company is on the ${label('plan', v.plan)} plan.</div>`;
  const { task, deadline, upcoming } = v.next;
  return html`<section aria-labelledby="next-title"><h2 id="next-title">What next</h2><dl class="facts">
<dt>Next task</dt><dd id="next-task">${task ? html`<strong>${task.title}</strong> (${task.reference}): <a href="${task.actionPath}">${task.action}</a><br><span class="hint">Why: ${task.why}.${task.products.length ? ` Products: ${task.products.map((p) => p.name).join(', ')}.` : ''} ${task.remaining} more open item(s) after this.</span>` : 'Nothing left to do.'}</dd>
<dt>Next deadline</dt><dd>${deadline ? html`<strong>${day(deadline.at)}</strong>${deadline.overdue ? html` <span class="status-expired">overdue</span>` : ''}: ${deadline.what}` : 'none'}</dd>
</dl>
${timeline && upcoming.length ? html`<h3>Timeline</h3><ol class="timeline">${upcoming.map((d) => html`<li><time datetime="${d.at}">${day(d.at)}</time> ${d.what}</li>`)}</ol>` : ''}
</section>`;
}

function requirementTable(s: SessionView, v: ComplianceView, identifier: string): SafeHtml {
  const p = v.assessments.products[0];
  if (!p) return html``;
  const rows = [...p.assessments].sort((a, b) => VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict]);
  const mine = v.attestations.filter((a) => a.productIdentifier === identifier || a.productIdentifier === null);
  return html`<h2>${p.name} <span class="hint">${p.identifier}</span></h2>
<p>${readinessBar(p.summary)} ${p.summary.score} % ready: ${p.summary.met} met, ${p.summary.gap} gaps, ${p.summary.not_assessed} not assessed, ${p.summary.not_applicable} not applicable.</p>
<p class="hint">Conformity route (${label('productCategory', p.category)}): ${p.conformityRoute}</p>
<table class="data"><thead><tr><th>Requirement</th><th>Verdict</th><th>Evidence</th><th>To close</th></tr></thead><tbody>
${rows.map(
  (
    a,
  ) => html`<tr data-requirement="${a.requirementId}"><td><strong>${a.title}</strong><br><span class="hint">${a.reference} · <code>${a.requirementId}</code></span></td>
<td><span class="verdict verdict-${a.verdict}">${label('complianceVerdict', a.verdict)}</span></td>
<td>${a.reason}${a.attestation?.evidenceUrl ? html` (<a href="${a.attestation.evidenceUrl}" rel="noopener noreferrer">evidence</a>)` : ''}</td><td>${a.action ? html`<a href="${actionPath(a.requirementId, identifier)}">${a.action}</a>` : ''}</td></tr>`,
)}
</tbody></table>
<h2>Attestations</h2>
${
  mine.length === 0
    ? html`<p>No attestation yet.</p>`
    : html`<table class="data"><thead><tr><th>Requirement</th><th>Scope</th><th>Verdict</th><th>Justification</th><th>By</th><th>Expires</th><th></th></tr></thead><tbody>
${mine.map(
  (
    a,
  ) => html`<tr><td><code>${a.requirementId}</code></td><td>${a.productIdentifier ?? 'all products'}</td><td>${label('complianceVerdict', a.verdict)}</td><td>${a.justification}</td><td>${a.author}<br><span class="hint">${timeTag(a.attestedAt)}</span></td><td>${day(a.expiresAt)}</td>
<td class="actions">${sessionMay(s, 'triage') ? html`<form method="post" action="/compliance/attestations/${a.id}/withdraw" class="inline">${csrfField(s)}<input type="hidden" name="product" value="${identifier}"><button type="submit" class="danger">Withdraw</button></form>` : ''}</td></tr>`,
)}
</tbody></table>`
}
${
  sessionMay(s, 'triage')
    ? html`${attestForm(s, identifier, v.formErrors ?? {}, v.formValues)}
${factsForm(s, identifier, v)}`
    : html`<p class="hint" id="read-only">Your role reads this; an administrator or PSIRT member changes it.</p>`
}`;
}

function attestForm(s: SessionView, identifier: string, errors: Record<string, string>, typed: Record<string, string> = {}): SafeHtml {
  const err = (k: string) => (errors[k] ? html`<p class="error-text">${errors[k]}</p>` : '');
  const sel = (k: string, v: string) => (typed[k] === v ? html`selected` : '');
  return html`<h3 id="attest">Attest a requirement</h3>
<form method="post" action="/compliance/attestations" class="narrow">${csrfField(s)}<input type="hidden" name="product" value="${identifier}">
<div class="field"><label for="requirementId">Requirement</label><select id="requirementId" name="requirementId">${REQUIREMENTS.map((r) => html`<option value="${r.id}" ${sel('requirementId', r.id)}>${r.reference}: ${r.title}</option>`)}</select>${err('requirementId')}</div>
<div class="field"><label for="verdict">Verdict</label><select id="verdict" name="verdict"><option value="met">${label('complianceVerdict', 'met')}</option><option value="not_applicable" ${sel('verdict', 'not_applicable')}>${label('complianceVerdict', 'not_applicable')}</option></select></div>
<label class="check"><input type="checkbox" name="allProducts" value="1" ${typed.allProducts ? html`checked` : ''}> for every product of the company</label>
<div class="field"><label for="justification">Justification (required)</label><textarea id="justification" name="justification" rows="3" required ${errors.justification ? html`aria-invalid="true"` : ''}>${typed.justification ?? ''}</textarea>${err('justification')}</div>
<div class="field"><label for="evidenceUrl">Evidence link (optional)</label><input type="url" id="evidenceUrl" name="evidenceUrl" value="${typed.evidenceUrl ?? ''}">${err('evidenceUrl')}</div>
<div class="field"><label for="expiresAt">Review by (optional)</label><input type="date" id="expiresAt" name="expiresAt" value="${typed.expiresAt ?? ''}">${err('expiresAt')}</div>
<button type="submit">Attest</button></form>`;
}

function factsForm(s: SessionView, identifier: string, v: ComplianceView): SafeHtml {
  const f = v.facts;
  return html`<h3>Product CRA facts</h3>
<form method="post" action="/compliance/products/${encodeURIComponent(identifier)}" class="narrow">${csrfField(s)}
<div class="field"><label for="category">Category</label><select id="category" name="category">${LABELS.productCategory.values.map((c) => html`<option value="${c}" ${f?.category === c ? html`selected` : ''}>${label('productCategory', c)}</option>`)}</select></div>
<div class="field"><label for="placedOnMarketAt">Placed on the EU market</label><input type="date" id="placedOnMarketAt" name="placedOnMarketAt" value="${day(f?.placedOnMarketAt)}"></div>
<div class="field"><label for="supportEndsAt">Support period ends</label><input type="date" id="supportEndsAt" name="supportEndsAt" value="${day(f?.supportEndsAt)}"></div>
<div class="field"><label for="supportJustification">Why shorter than five years (if it is)</label><textarea id="supportJustification" name="supportJustification" rows="2">${f?.supportJustification ?? ''}</textarea></div>
<button type="submit" class="secondary">Save facts</button></form>`;
}

/** The compliance officer's page: products at a glance, or one product's requirements with forms. */
export function compliancePage(
  s: SessionView,
  v: ComplianceView,
  identifier: string | undefined,
  notice?: { kind: 'ok' | 'bad'; text: string },
  floors: ProductFloor[] = [],
): string {
  return dashboardPage({
    title: 'Compliance',
    session: s,
    current: '/compliance',
    notice,
    body: html`<h1>CRA compliance</h1>
<p class="lead">Evaluated ${timeTag(v.status.evaluatedAt)} from the evidence Cradle holds (SBOMs, scans, reports, portal settings) and your attestations. Catalog ${v.status.catalogVersion}; the <a href="/compliance">overview</a> lists every product.</p>
<p class="downloads">OSCAL 1.0.6 for auditors: <a href="${DOWNLOADS.oscalCatalog}" download>requirement catalog</a> · <a href="${identifier ? `${DOWNLOADS.oscalAssessments}?product=${encodeURIComponent(identifier)}` : DOWNLOADS.oscalAssessments}" download>assessment results${identifier ? ' of this product' : ''}</a></p>
${nextPanel(v)}
${identifier ? requirementTable(s, v, identifier) : html`${companyGapsTable(v)}<h2>Products</h2>${v.status.products.length ? overview(v) : html`<p>No products yet: <a href="/products#register">register your first product</a> (or from CI with <code>POST /api/v1/products</code>).</p>`}${whatKeepsWhat(floors)}`}`,
  });
}
