import type { SessionView } from '../../modules/sessions/sessions.js';
import type { EndpointHealth } from '../../modules/webhooks/delivery-log.js';
import { type DeliveryView, EVENT_TYPES, type WebhookView } from '../../modules/webhooks/webhooks.schemas.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { timeTag } from '../times.js';
import { label } from '../labels.js';

export const WEBHOOKS_PATH = '/settings/webhooks';

export type WebhookFormValues = { url?: string; event?: string; secret?: string };
type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;

function secretPanel(secret: string, rotated: boolean): SafeHtml {
  return html`<section class="issued" aria-labelledby="secret-title">
<h2 id="secret-title">${rotated ? 'New signing secret' : 'Signing secret'}</h2>
<p><strong>Copy it now: it is shown only this once.</strong>${rotated ? ' The previous secret keeps signing beside it for 24 hours, so your receiver can switch without missing a delivery.' : ''}</p>
<div class="copy-row"><label for="new-secret" class="visually-hidden">Signing secret</label>
<input type="text" id="new-secret" class="secret" readonly value="${secret}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="new-secret" hidden>Copy</button></div>
<p class="hint">Verify deliveries with any Standard Webhooks library (headers <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>).</p>
</section>`;
}

function registerForm(s: SessionView, v: WebhookFormValues, errors: Record<string, string>): SafeHtml {
  const field = (name: string) => (errors[name] ? html`<p class="error-text">${errors[name]}</p>` : '');
  const invalid = (name: string) => (errors[name] ? html`aria-invalid="true"` : '');
  return html`<h2>Add an endpoint</h2>
<form method="post" action="${WEBHOOKS_PATH}" class="narrow">${csrfField(s)}
<div class="field"><label for="url">URL</label>
<input type="url" id="url" name="url" required maxlength="2048" placeholder="https://tickets.example.com/hooks/cradle" value="${v.url ?? ''}" ${invalid('url')}>
<p class="hint">https is strongly advised. Addresses on private networks are refused.</p>${field('url')}</div>
<div class="field"><label for="event">Events</label>
<select id="event" name="event" ${invalid('event')}><option value="">Every event</option>
${EVENT_TYPES.map((e) => html`<option value="${e}" ${v.event === e ? html`selected` : ''}>${e}</option>`)}</select>${field('event')}</div>
<div class="field"><label for="secret">Signing secret (optional)</label>
<input type="text" id="secret" name="secret" autocomplete="off" spellcheck="false" value="${v.secret ?? ''}" ${invalid('secret')}>
<p class="hint">Leave empty and Cradle generates a <code>whsec_</code> secret and shows it once.</p>${field('secret')}</div>
<button type="submit">Add endpoint</button>
</form>`;
}

function status(w: WebhookView): SafeHtml {
  return w.enabled
    ? html`<span class="status status-active">enabled</span>`
    : html`<span class="status status-suspended">disabled</span><br><span class="hint">${w.disabledReason ?? ''}</span>`;
}

/** `/settings/webhooks`: the company's endpoints with a week's delivery health, and the register form. */
export function webhooksPage(o: {
  session: SessionView;
  hooks: WebhookView[];
  health: Map<string, EndpointHealth>;
  issuedSecret?: string | undefined;
  values?: WebhookFormValues;
  errors?: Record<string, string>;
  notice?: Notice;
}): string {
  const s = o.session;
  const dead = [...o.health.values()].reduce((n, h) => n + h.dead, 0);
  return dashboardPage({
    title: 'Webhooks',
    session: s,
    current: WEBHOOKS_PATH,
    notice:
      o.notice ??
      (dead > 0
        ? {
            kind: 'bad',
            text: `${dead} ${dead === 1 ? 'delivery was' : 'deliveries were'} dead-lettered in the last 7 days: open the endpoint to see why and send again.`,
          }
        : undefined),
    withCopyScript: !!o.issuedSecret,
    body: html`<h1>Webhooks</h1>
<p class="lead">Cradle posts signed events (Standard Webhooks) to these endpoints: each filed report, status changes, Article 14 deadlines and filings, ingested SBOMs and scans. Failed deliveries are retried for about three days.</p>
${o.issuedSecret ? secretPanel(o.issuedSecret, false) : ''}
<h2>Endpoints</h2>
${
  o.hooks.length === 0
    ? html`<p>No endpoints yet.</p>`
    : html`<table class="data"><thead><tr><th>URL</th><th>Events</th><th>Status</th><th>Last 7 days</th><th>Last delivery</th></tr></thead>
<tbody>${o.hooks.map((w) => {
        const h = o.health.get(w.id);
        return html`<tr data-webhook-id="${w.id}"><td><a href="${WEBHOOKS_PATH}/${w.id}"><code>${w.url}</code></a></td><td>${w.event ?? html`<em>every event</em>`}</td><td>${status(w)}</td>
<td>${h ? html`${h.succeeded} delivered, ${h.pending} pending${h.dead ? html`, <strong class="error-text">${h.dead} dead-lettered</strong>` : ''}` : html`<span class="hint">none</span>`}</td>
<td>${h?.lastAttemptAt ? html`${timeTag(h.lastAttemptAt)}<br><span class="hint">HTTP ${h.lastStatus ?? 'no answer'}</span>` : ''}</td></tr>`;
      })}</tbody></table>`
}
${sessionMay(s, 'admin') ? registerForm(s, o.values ?? {}, o.errors ?? {}) : html`<p class="hint" id="read-only">Only an administrator of the company changes these.</p>`}`,
  });
}

function deliveryRow(s: SessionView, webhookId: string, d: DeliveryView, enabled: boolean): SafeHtml {
  const result = d.lastStatus !== null ? html`HTTP ${d.lastStatus}` : d.attempts > 0 ? html`no answer` : html`<span class="hint">not tried yet</span>`;
  return html`<tr data-delivery-id="${d.id}"><td>${timeTag(d.createdAt)}</td><td><code>${d.eventType}</code></td>
<td><span class="status status-${d.state === 'succeeded' ? 'active' : d.state === 'pending' ? 'pending' : 'expired'}">${label('webhookDeliveryState', d.state)}</span>${d.nextAttemptAt ? html`<br><span class="hint">next try ${timeTag(d.nextAttemptAt)}</span>` : ''}</td>
<td>${d.attempts}</td><td>${result}${d.lastLatencyMs !== null ? html`<br><span class="hint">${d.lastLatencyMs} ms</span>` : ''}</td>
<td>${d.lastError ? html`<span class="hint">${d.lastError}</span>` : ''}</td>
<td class="actions">${
    enabled && d.state !== 'pending' && sessionMay(s, 'admin')
      ? html`<form method="post" action="${WEBHOOKS_PATH}/${webhookId}/deliveries/${d.id}/redeliver" class="inline">${csrfField(s)}<button type="submit" class="secondary">Send again</button></form>`
      : ''
  }</td></tr>`;
}

/** `/settings/webhooks/{id}`: one endpoint, its delivery log and its actions. */
export function webhookPage(o: {
  session: SessionView;
  hook: WebhookView;
  deliveries: DeliveryView[];
  rotatedSecret?: string | undefined;
  notice?: Notice;
}): string {
  const s = o.session;
  const w = o.hook;
  const base = `${WEBHOOKS_PATH}/${w.id}`;
  return dashboardPage({
    title: 'Webhook endpoint',
    session: s,
    current: WEBHOOKS_PATH,
    notice: o.notice,
    withCopyScript: !!o.rotatedSecret,
    body: html`<p><a href="${WEBHOOKS_PATH}">← Webhooks</a></p>
<h1>Endpoint</h1>
<dl class="facts"><dt>URL</dt><dd><code>${w.url}</code></dd><dt>Events</dt><dd>${w.event ?? 'every event'}</dd>
<dt>Status</dt><dd>${status(w)}</dd><dt>Added</dt><dd>${timeTag(w.createdAt)}</dd></dl>
${o.rotatedSecret ? secretPanel(o.rotatedSecret, true) : ''}
${
  sessionMay(s, 'admin')
    ? html`<div class="actions">
${w.enabled ? html`<form method="post" action="${base}/test" class="inline">${csrfField(s)}<button type="submit">Send test event</button></form>` : ''}
<form method="post" action="${base}/enabled" class="inline">${csrfField(s)}<input type="hidden" name="enabled" value="${w.enabled ? 'false' : 'true'}"><button type="submit" class="secondary">${w.enabled ? 'Disable' : 'Enable'}</button></form>
<form method="post" action="${base}/rotate" class="inline">${csrfField(s)}<button type="submit" class="secondary">Rotate secret</button></form>
<form method="post" action="${base}/delete" class="inline">${csrfField(s)}<button type="submit" class="danger">Delete endpoint</button></form>
</div>`
    : ''
}
<h2>Deliveries</h2>
${
  o.deliveries.length === 0
    ? html`<p>No deliveries yet.</p>`
    : html`<table class="data"><thead><tr><th>Created (UTC)</th><th>Event</th><th>State</th><th>Attempts</th><th>Last result</th><th>Error</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${o.deliveries.map((d) => deliveryRow(s, w.id, d, w.enabled))}</tbody></table>`
}`,
  });
}
