import { PRODUCT_DECISIONS, type AdvisoryView } from '../../modules/advisories/advisories.schemas.js';
import { NOT_AFFECTED_JUSTIFICATIONS } from '../../modules/advisories/csaf.js';
import type { ReportView } from '../../modules/reports/get-report.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { fieldError, invalidAttrs } from '../layout.js';
import { type AdvisoryFormValues, advisoryFormValues } from './advisory-form.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { statusBadge } from './report-badges.js';
import { utc } from '../times.js';
import { untrusted } from './report-page.js';
import { label as labelOf } from '../labels.js';

export const advisoryPath = (id: string): string => `/advisories/${id}`;

const REMEDIATIONS = [
  ['vendor_fix', 'Vendor fix (an update)'],
  ['mitigation', 'Mitigation'],
  ['workaround', 'Workaround'],
  ['none_available', 'None available'],
  ['no_fix_planned', 'No fix planned'],
] as const;

type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;
export type AdvisoryPageData = {
  session: SessionView;
  advisory: AdvisoryView;
  /** The company's registered products (identifier, name), offered for each product row. */
  products: { identifier: string; name: string }[];
  /** The report the advisory discloses: its reporter's words are shown beside the editor, never copied in. */
  report: ReportView;
  values?: AdvisoryFormValues | undefined;
  errors?: Record<string, string> | undefined;
  notice?: Notice;
};

const options = (list: readonly (readonly [string, string])[], chosen: string): SafeHtml[] =>
  list.map(([value, label]) => html`<option value="${value}" ${value === chosen ? html`selected` : ''}>${label}</option>`);

/** One input of the edit form with its label, hint and message. */
function field(
  v: AdvisoryFormValues,
  errors: Record<string, string>,
  name: string,
  label: string,
  o: { hint?: string; rows?: number; max?: number } = {},
): SafeHtml {
  const control = o.rows
    ? html`<textarea id="${name}" name="${name}" rows="${o.rows}" maxlength="${o.max ?? 10_000}" ${invalidAttrs(errors, name)}>${v[name] ?? ''}</textarea>`
    : html`<input type="text" id="${name}" name="${name}" maxlength="${o.max ?? 255}" value="${v[name] ?? ''}" ${invalidAttrs(errors, name)}>`;
  return html`<div class="field"><label for="${name}">${label}</label>${control}${o.hint ? html`<p class="hint">${o.hint}</p>` : ''}${fieldError(errors, name)}</div>`;
}

/** A cell of a row table: the input, labelled for screen readers by the column and row, and its message. */
function cell(v: AdvisoryFormValues, errors: Record<string, string>, name: string, label: string, control?: SafeHtml): SafeHtml {
  return html`<td>${control ?? html`<input type="text" id="${name}" name="${name}" value="${v[name] ?? ''}" maxlength="255" aria-label="${label}" ${invalidAttrs(errors, name)}>`}${fieldError(errors, name)}</td>`;
}

function productRows(d: AdvisoryPageData, v: AdvisoryFormValues, errors: Record<string, string>): SafeHtml {
  const rows = Number(v['product-rows'] ?? 0);
  // The active products, and any other identifier a row already names (an archived product), so a
  // save never drops it silently.
  const active = d.products.map((p) => [p.identifier, `${p.name} (${p.identifier})`] as const);
  const named = Array.from({ length: rows }, (_, n) => v[`product-${n}-identifier`] ?? '').filter((id) => id && !d.products.some((p) => p.identifier === id));
  const registered = [...active, ...[...new Set(named)].map((id) => [id, `${id} (not active)`] as const)];
  const row = (n: number) => {
    const k = (f: string) => `product-${n}-${f}`;
    const label = (what: string) => `Product row ${n + 1}: ${what}`;
    const select = (f: string, what: string, list: readonly (readonly [string, string])[], none: string) =>
      html`<select id="${k(f)}" name="${k(f)}" aria-label="${label(what)}" ${invalidAttrs(errors, k(f))}><option value="">${none}</option>${options(list, v[k(f)] ?? '')}</select>`;
    return html`<tr>
${cell(v, errors, k('identifier'), label('registered product'), select('identifier', 'registered product', registered, 'not registered'))}
${cell(v, errors, k('vendor'), label('vendor'))}${cell(v, errors, k('name'), label('name'))}${cell(v, errors, k('version'), label('version'))}
${cell(
  v,
  errors,
  k('status'),
  label('status'),
  select(
    'status',
    'status',
    PRODUCT_DECISIONS.map((s) => [s, labelOf('productDecision', s)] as const),
    'choose',
  ),
)}
${cell(
  v,
  errors,
  k('justification'),
  label('justification'),
  select(
    'justification',
    'why not affected',
    NOT_AFFECTED_JUSTIFICATIONS.map((j) => [j, labelOf('notAffectedJustification', j)] as const),
    'none',
  ),
)}
${cell(v, errors, k('impact'), label('impact'))}
<td><label class="check"><input type="checkbox" name="${k('remove')}" value="yes" ${v[k('remove')] ? html`checked` : ''}> remove</label></td></tr>`;
  };
  return html`<fieldset><legend>Products and VEX decisions</legend>
<p class="hint">One row per product version. A registered product fills in vendor and name; a product you have not registered needs both. "Not affected" needs a justification (CSAF 2.0 flag). Empty rows are ignored; save to get more.</p>
<input type="hidden" name="product-rows" value="${String(rows)}">
<div class="table-scroll"><table class="data rows"><thead><tr><th>Registered product</th><th>Vendor</th><th>Name</th><th>Version</th><th>Status</th><th>Why not affected</th><th>Impact</th><th></th></tr></thead>
<tbody>${Array.from({ length: rows }, (_, n) => row(n))}</tbody></table></div></fieldset>`;
}

function ackRows(v: AdvisoryFormValues, errors: Record<string, string>): SafeHtml {
  const rows = Number(v['ack-rows'] ?? 0);
  const row = (n: number) => {
    const k = (f: string) => `ack-${n}-${f}`;
    return html`<tr>${cell(v, errors, k('name'), `Acknowledgment ${n + 1}: name`)}${cell(v, errors, k('organization'), `Acknowledgment ${n + 1}: organization`)}
<td><label class="check"><input type="checkbox" name="${k('consent')}" value="yes" ${v[k('consent')] ? html`checked` : ''} ${invalidAttrs(errors, k('consent'))}> they agreed to be named</label>${fieldError(errors, k('consent'))}</td>
<td><label class="check"><input type="checkbox" name="${k('remove')}" value="yes" ${v[k('remove')] ? html`checked` : ''}> remove</label></td></tr>`;
  };
  return html`<fieldset><legend>Acknowledgments</legend>
<p class="hint">Researchers credited in the advisory and on the portal's thanks page. Name someone only with their consent.</p>
<input type="hidden" name="ack-rows" value="${String(rows)}">
<table class="data rows"><thead><tr><th>Name</th><th>Organization</th><th>Consent</th><th></th></tr></thead><tbody>${Array.from({ length: rows }, (_, n) => row(n))}</tbody></table></fieldset>`;
}

function editForm(d: AdvisoryPageData): SafeHtml {
  const a = d.advisory;
  const v = d.values ?? advisoryFormValues(a);
  const e = d.errors ?? {};
  return html`<h2>Edit</h2>
${a.status === 'published' ? html`<p class="hint">Saved edits are not public until you release them as a revision (above).</p>` : ''}
<form method="post" action="${advisoryPath(a.id)}" class="advisory-edit">${csrfField(d.session)}
${field(v, e, 'title', 'Title', { max: 500 })}
${field(v, e, 'summary', 'Summary', { rows: 3, hint: 'What is affected and what to do, in two or three sentences.' })}
${field(v, e, 'description', 'Description', { rows: 6, max: 64_000 })}
<div class="forms">${field(v, e, 'cve', 'CVE id', { hint: 'Such as CVE-2026-12345; empty if none.' })}${field(v, e, 'cvssVector', 'CVSS vector', { max: 200, hint: '3.1 is scored in CSAF; 4.0 becomes a note.' })}
${field(v, e, 'cwe', 'CWE', { hint: 'Such as CWE-79.' })}${field(v, e, 'cweName', 'CWE name')}</div>
${field(v, e, 'ids', 'Other ids', { rows: 2, max: 6_000, hint: 'One per line as "System name: id", such as "Vendor bug: FW-1182".' })}
<fieldset><legend>Remediation</legend>
<div class="field"><label for="remediationCategory">Kind</label><select id="remediationCategory" name="remediationCategory" ${invalidAttrs(e, 'remediationCategory')}><option value="">none given</option>${options(REMEDIATIONS, v.remediationCategory ?? '')}</select>${fieldError(e, 'remediationCategory')}</div>
${field(v, e, 'remediationDetails', 'Details', { rows: 3 })}${field(v, e, 'remediationUrl', 'Link (https)', { max: 2048 })}</fieldset>
${productRows(d, v, e)}
${ackRows(v, e)}
<button type="submit">Save advisory</button></form>`;
}

/** Publish, revise, withdraw: each one form, offered only in the state that allows it. */
function releaseForms(s: SessionView, a: AdvisoryView): SafeHtml {
  const withdraw = html`<form method="post" action="${advisoryPath(a.id)}/withdraw" class="narrow">${csrfField(s)}
<div class="field"><label for="reason">Withdraw: reason</label><input type="text" id="reason" name="reason" maxlength="1000" required>
<p class="hint">${a.status === 'published' ? 'Published as its last revision; the advisory stays listed as withdrawn (CSAF has no deletion).' : 'The draft was never public; it is closed.'}</p></div>
<button type="submit" class="secondary">Withdraw advisory</button></form>`;
  if (a.status === 'draft') {
    return html`<div class="forms"><div class="narrow"><p>Nothing is public yet. Publishing shows you first the exact public page and CSAF document, then releases version 1 on the portal.</p>
<p><a class="button" href="${advisoryPath(a.id)}/preview">Preview and publish</a></p></div>${withdraw}</div>`;
  }
  return html`<div class="forms"><form method="post" action="${advisoryPath(a.id)}/revise" class="narrow">${csrfField(s)}
<div class="field"><label for="revision-summary">Release the saved edits as a revision: what changed</label><input type="text" id="revision-summary" name="summary" maxlength="1000" required>
<p class="hint">${a.pendingChanges ? 'There are saved edits waiting for a revision.' : 'No edits are waiting; a revision now repeats the current text with a new version.'}</p></div>
<button type="submit">Release revision</button></form>${withdraw}</div>`;
}

/** The reporter's words beside the editor: for reference, never copied into the advisory. */
const reference = (r: ReportView): SafeHtml =>
  html`<h2>The report, for reference</h2><p class="hint">The draft was written from your triage facts only. Use the reporter's account below to write the advisory in your own words; nothing of it is published unless you put it in the form.</p>${untrusted(r)}`;

/** What a member who may not edit sees: the working copy as text. */
function readOnly(a: AdvisoryView): SafeHtml {
  return html`<h2>Content</h2><dl class="facts"><dt>Summary</dt><dd>${a.summary}</dd><dt>CVE</dt><dd>${a.cve ?? 'none'}</dd>
<dt>CVSS</dt><dd>${a.cvssVector ? html`<code>${a.cvssVector}</code>` : 'not rated'}</dd><dt>CWE</dt><dd>${a.cwe ? `${a.cwe}${a.cweName ? ` ${a.cweName}` : ''}` : 'not set'}</dd>
<dt>Remediation</dt><dd>${a.remediation ? `${labelOf('remediationCategory', a.remediation.category)}: ${a.remediation.details}` : 'none given'}</dd></dl>
<pre class="reporter-text">${a.description}</pre>
<table class="data"><thead><tr><th>Product</th><th>Version</th><th>Status</th><th>Why not affected</th></tr></thead><tbody>
${a.products.map((p) => html`<tr><td>${p.vendor} ${p.name}</td><td>${p.version}</td><td>${labelOf('productDecision', p.status)}</td><td>${labelOf('notAffectedJustification', p.justification)}</td></tr>`)}</tbody></table>`;
}

/** `/advisories/{id}`: the state and documents of one advisory, its release actions and its edit form. */
export function advisoryPage(d: AdvisoryPageData): string {
  const a = d.advisory;
  const s = d.session;
  const mayEdit = sessionMay(s, 'triage') && a.status !== 'withdrawn';
  const preview = a.status === 'draft' ? ' (draft preview)' : '';
  return dashboardPage({
    title: `Advisory ${a.trackingId}`,
    session: s,
    current: '/advisories',
    notice: d.notice,
    body: html`<p><a href="/advisories">← Advisories</a></p>
<h1><code>${a.trackingId}</code> ${statusBadge(a.status)}</h1>
<p class="lead">${a.title}</p>
<dl class="facts"><dt>Report</dt><dd><a href="/reports/${a.vulnerabilityId}">${a.vulnerabilityId.slice(0, 8)}</a></dd>
<dt>Version</dt><dd>${a.version ?? 'draft, not released'}${a.pendingChanges ? html` <span class="hint">edits waiting for a revision</span>` : ''}</dd>
${a.initialReleaseAt ? html`<dt>First released</dt><dd>${utc(a.initialReleaseAt)}</dd>` : ''}${a.currentReleaseAt ? html`<dt>Last released</dt><dd>${utc(a.currentReleaseAt)}</dd>` : ''}
${a.withdrawnAt ? html`<dt>Withdrawn</dt><dd>${utc(a.withdrawnAt)}</dd>` : ''}
${a.publicUrl ? html`<dt>Public document</dt><dd><a href="${a.publicUrl}">${a.publicUrl}</a></dd>` : ''}
<dt>Documents</dt><dd><a href="${advisoryPath(a.id)}/csaf" download>CSAF advisory${preview}</a> · <a href="${advisoryPath(a.id)}/vex" download>CSAF VEX${preview}</a></dd></dl>
${mayEdit ? releaseForms(s, a) : ''}
${mayEdit ? editForm(d) : readOnly(a)}
${mayEdit ? reference(d.report) : ''}
<h2>Revisions</h2>
${
  a.revisions.length === 0
    ? html`<p class="hint">Not released yet.</p>`
    : html`<table class="data"><thead><tr><th>Version</th><th>Date</th><th>Summary</th></tr></thead><tbody>${a.revisions.map((r) => html`<tr><td>${r.number}</td><td>${utc(r.date)}</td><td>${r.summary}</td></tr>`)}</tbody></table>`
}`,
  });
}
