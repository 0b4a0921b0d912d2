import type { SessionView } from '../../modules/sessions/sessions.js';
import type { ProductFloor } from '../../modules/retention/cra-floor.js';
import type { ErasureRequest, LegalHold, RetentionPolicy, RetentionRun } from '../../modules/retention/retention.schemas.js';
import { html, type SafeHtml } from '../html.js';
import { fieldError, invalidAttrs } from '../layout.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { calendarDay as day, timeTag } from '../times.js';
import { label } from '../labels.js';

export const RETENTION_PATH = '/settings/retention';

export type RetentionFormValues = { reporterDataDays: string; rejectedBodyDays: string; accessRecordDays: string };
export type HoldFormValues = { scope: string; target: string; reason: string };
type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;

/** Which rule keeps what, and for how long: the retention page and the compliance page both show it. */
export function whatKeepsWhat(floors: ProductFloor[]): SafeHtml {
  return html`<section aria-labelledby="floor-title"><h2 id="floor-title">What is kept, and by which rule</h2>
<table class="data"><thead><tr><th>Data</th><th>Kept by</th><th>Until</th></tr></thead><tbody>
<tr><td>SBOM versions, assessments, attestations, advisories, Article 14 facts and filings (technical documentation)</td><td>CRA Article 13(13): no retention setting reaches them</td><td>at least 10 years after market placement, or the end of support if later (per product below)</td></tr>
<tr><td>Reports with Article 14 facts, a filing or an advisory</td><td>CRA floor: their text is never removed; only the researcher's personal data may be pseudonymised</td><td>as the product's technical documentation</td></tr>
<tr><td>Researchers' personal data</td><td>Retention policy, or an erasure request (GDPR Article 17)</td><td>the policy's days after the report is closed</td></tr>
<tr><td>Anything under a legal hold</td><td>Legal hold</td><td>until the hold is released</td></tr>
</tbody></table>
<table class="data" id="cra-floor"><thead><tr><th>Product</th><th>Placed on the market</th><th>Support ends</th><th>Technical documentation kept until at least</th></tr></thead><tbody>
${floors.map((f) => html`<tr><td>${f.name} <code>${f.identifier}</code></td><td>${day(f.placedOnMarketAt) || 'not recorded'}</td><td>${day(f.supportEndsAt) || 'not recorded'}</td><td>${f.keptUntil ? day(f.keptUntil) : 'kept indefinitely until the placement date is recorded'}</td></tr>`)}
</tbody></table></section>`;
}

function preview(run: RetentionRun, mayRun: boolean, s: SessionView): SafeHtml {
  return html`<section aria-labelledby="preview-title"><h2 id="preview-title">What the next run would do</h2>
<table class="data" id="retention-preview"><thead><tr><th>Rule</th><th>After</th><th>Due now</th><th>Oldest due</th><th>Held</th><th>Kept by the CRA floor</th></tr></thead><tbody>
${run.rules.map(
  (o) =>
    html`<tr data-rule="${o.rule}"><td>${label('retentionRule', o.rule)}</td><td>${o.days === null ? 'never (kept)' : `${o.days} days`}</td><td class="count">${o.count}</td><td>${timeTag(o.oldest)}</td><td>${o.held}</td><td>${o.keptByCraFloor}</td></tr>`,
)}
</tbody></table>
<p class="hint">A background job applies these rules once a day. Counts only: nothing here shows a report's text.</p>
${mayRun ? html`<form method="post" action="${RETENTION_PATH}/run">${csrfField(s)}<button type="submit">Run now</button></form>` : ''}
</section>`;
}

function policyForm(v: RetentionFormValues, errors: Record<string, string>, s: SessionView, may: boolean): SafeHtml {
  const field = (name: keyof RetentionFormValues, label: string, hint: string) => html`<div class="field"><label for="${name}">${label}</label>
<input id="${name}" name="${name}" inputmode="numeric" value="${v[name]}" ${invalidAttrs(errors, name)} ${may ? '' : html`disabled`}>${fieldError(errors, name)}
<p class="hint">${hint}</p></div>`;
  return html`<section aria-labelledby="policy-title"><h2 id="policy-title">Retention policy</h2>
<form method="post" action="${RETENTION_PATH}" novalidate>${csrfField(s)}
${field('reporterDataDays', "Pseudonymise researchers' personal data, days after a report is closed", 'At least 30; empty keeps it.')}
${field('rejectedBodyDays', 'Remove the text of reports closed as spam or not applicable, days after closing', 'At least 30; empty keeps it.')}
${field('accessRecordDays', 'Keep ended sessions and the address and browser string of audit rows, days', 'At least 7; empty keeps them.')}
${may ? html`<button type="submit">Save policy</button>` : ''}
</form></section>`;
}

function holds(list: LegalHold[], v: HoldFormValues, errors: Record<string, string>, s: SessionView, may: boolean): SafeHtml {
  return html`<section aria-labelledby="holds-title"><h2 id="holds-title">Legal holds</h2>
${
  list.length === 0
    ? html`<p class="hint">No legal hold.</p>`
    : html`<table class="data" id="legal-holds"><thead><tr><th>On</th><th>Reason</th><th>Placed</th><th>Released</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>
${list.map(
  (h) =>
    html`<tr><td>${label('holdScope', h.scope)}${h.targetId ? html` <code>${h.targetId}</code>` : ''}</td><td>${h.reason}</td><td>${timeTag(h.placedAt)} by ${h.placedBy}</td><td>${h.releasedAt ? html`${timeTag(h.releasedAt)} by ${h.releasedBy ?? ''}` : 'standing'}</td><td>${
      may && !h.releasedAt
        ? html`<form method="post" action="${RETENTION_PATH}/holds/${h.id}/release" class="inline">${csrfField(s)}<button type="submit">Release</button></form>`
        : ''
    }</td></tr>`,
)}</tbody></table>`
}
${
  may
    ? html`<form method="post" action="${RETENTION_PATH}/holds" novalidate>${csrfField(s)}
<div class="field"><label for="scope">Hold</label><select id="scope" name="scope" ${invalidAttrs(errors, 'scope')}>
${(['company', 'product', 'report'] as const).map((o) => html`<option value="${o}" ${v.scope === o ? html`selected` : ''}>${o === 'company' ? 'the whole company' : `one ${o}`}</option>`)}
</select>${fieldError(errors, 'scope')}</div>
<div class="field"><label for="target">Report id or product identifier</label><input id="target" name="target" value="${v.target}" ${invalidAttrs(errors, 'target')}>${fieldError(errors, 'target')}
<p class="hint">Empty for the whole company.</p></div>
<div class="field"><label for="reason">Reason</label><input id="reason" name="reason" value="${v.reason}" ${invalidAttrs(errors, 'reason')}>${fieldError(errors, 'reason')}</div>
<button type="submit">Place hold</button></form>`
    : ''
}</section>`;
}

function erasures(list: ErasureRequest[], reportId: string, errors: Record<string, string>, s: SessionView, may: boolean): SafeHtml {
  return html`<section aria-labelledby="erasure-title"><h2 id="erasure-title">Erasure requests</h2>
<p class="hint">Researchers ask through their status link; record here a request received another way. Their personal data on every report they sent from the same address is pseudonymised at once, unless a legal hold covers it.</p>
${
  list.length === 0
    ? ''
    : html`<table class="data" id="erasure-requests"><thead><tr><th>Requested</th><th>Through</th><th>Pseudonym</th><th>Reports</th><th>State</th></tr></thead><tbody>
${list.map((e) => html`<tr><td>${timeTag(e.requestedAt)}</td><td>${label('erasureChannel', e.channel)}</td><td>${e.pseudonym}</td><td>${e.reportCount}</td><td>${e.state === 'held' ? 'waiting for a legal hold' : html`applied ${timeTag(e.appliedAt)}`}</td></tr>`)}
</tbody></table>`
}
${
  may
    ? html`<form method="post" action="${RETENTION_PATH}/erasures" novalidate>${csrfField(s)}
<div class="field"><label for="reportId">Id of one of the researcher's reports</label><input id="reportId" name="reportId" value="${reportId}" ${invalidAttrs(errors, 'reportId')}>${fieldError(errors, 'reportId')}</div>
<button type="submit">Record erasure request</button></form>`
    : ''
}</section>`;
}

export type RetentionPageData = {
  session: SessionView;
  policy: RetentionPolicy;
  run: RetentionRun;
  holds: LegalHold[];
  erasures: ErasureRequest[];
  floors: ProductFloor[];
  notice?: Notice;
  form?: { policy?: RetentionFormValues; hold?: HoldFormValues; reportId?: string; errors: Record<string, string> };
};

const asText = (n: number | null): string => (n === null ? '' : String(n));

/** `/settings/retention`: policy, preview and run, legal holds, erasure requests, and the CRA floor. */
export function retentionPage(d: RetentionPageData): string {
  const may = sessionMay(d.session, 'admin');
  const errors = d.form?.errors ?? {};
  const values = d.form?.policy ?? {
    reporterDataDays: asText(d.policy.reporterDataDays),
    rejectedBodyDays: asText(d.policy.rejectedBodyDays),
    accessRecordDays: asText(d.policy.accessRecordDays),
  };
  return dashboardPage({
    title: 'Retention',
    session: d.session,
    current: RETENTION_PATH,
    notice: d.notice,
    body: html`<h1>Retention, erasure and legal holds</h1>
${policyForm(values, errors, d.session, may)}
${preview(d.run, may, d.session)}
${holds(d.holds, d.form?.hold ?? { scope: 'company', target: '', reason: '' }, errors, d.session, may)}
${erasures(d.erasures, d.form?.reportId ?? '', errors, d.session, may)}
${whatKeepsWhat(d.floors)}`,
  });
}
