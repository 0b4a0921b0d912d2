import { type ApiKeyView, DEFAULT_EXPIRY_DAYS, type IssuedKey, MAX_EXPIRY_DAYS, SCOPE_DESCRIPTIONS, SCOPES } from '../../modules/keys/keys.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { authorize } from '../../kernel/access.js';
import { timeTag } from '../times.js';
import { label } from '../labels.js';

export type KeyFormValues = { name?: string; scopes?: string[]; expiresInDays?: string; allowedIps?: string };

function issuedPanel(k: IssuedKey, rotated: boolean): SafeHtml {
  return html`<section class="issued" aria-labelledby="issued-title">
<h2 id="issued-title">${rotated ? 'New value for' : 'Your new key'} “${k.name}”</h2>
<p><strong>Copy it now: it is shown only this once.</strong> Cradle keeps only a digest and cannot show it again.${rotated ? ' The previous value has stopped working.' : ''}</p>
<div class="copy-row"><label for="new-key" class="visually-hidden">API key value</label>
<input type="text" id="new-key" class="secret" readonly value="${k.key}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="new-key" hidden>Copy</button></div>
<p class="hint">Send it as <code>Authorization: Bearer &lt;key&gt;</code>. Never in a URL, a cookie or a request body: those are refused.</p>
</section>`;
}

function createForm(s: SessionView, v: KeyFormValues, errors: Record<string, string>): SafeHtml {
  const chosen = new Set(v.scopes ?? []);
  return html`<h2>Create a key</h2>
<form method="post" action="/settings/api-keys" class="narrow">${csrfField(s)}
<div class="field"><label for="name">Name</label>
<input type="text" id="name" name="name" maxlength="100" required value="${v.name ?? ''}" ${errors.name ? html`aria-invalid="true"` : ''}>
${errors.name ? html`<p class="error-text">${errors.name}</p>` : ''}</div>
<fieldset class="field"><legend>Scopes</legend>
<p class="hint">Choose what the key may do. A key with no scope ticked is unrestricted.</p>
${SCOPES.map((sc) => html`<label class="check"><input type="checkbox" name="scopes" value="${sc}" ${chosen.has(sc) ? html`checked` : ''}> <code>${sc}</code> <span class="hint">${SCOPE_DESCRIPTIONS[sc]}</span></label>`)}
${errors.scopes ? html`<p class="error-text">${errors.scopes}</p>` : ''}</fieldset>
<div class="field"><label for="expiresInDays">Expires after (days)</label>
<input type="number" id="expiresInDays" name="expiresInDays" min="1" max="${MAX_EXPIRY_DAYS}" value="${v.expiresInDays ?? String(DEFAULT_EXPIRY_DAYS)}" ${errors.expiresInDays ? html`aria-invalid="true"` : ''}>
${errors.expiresInDays ? html`<p class="error-text">${errors.expiresInDays}</p>` : ''}</div>
<div class="field"><label for="allowedIps">Allowed source addresses (optional)</label>
<textarea id="allowedIps" name="allowedIps" rows="3" placeholder="203.0.113.7&#10;2001:db8::/32" ${errors.allowedIps ? html`aria-invalid="true"` : ''}>${v.allowedIps ?? ''}</textarea>
<p class="hint">One address or CIDR range per line. Empty: any address.</p>
${errors.allowedIps ? html`<p class="error-text">${errors.allowedIps}</p>` : ''}</div>
<button type="submit">Create key</button>
</form>`;
}

function keyRow(s: SessionView, k: ApiKeyView, canIssue: boolean): SafeHtml {
  return html`<tr data-key-id="${k.id}"><td>${k.name}</td><td><code>…${k.keyHint}</code></td>
<td>${k.scopes.length === 0 ? html`<em>unrestricted</em>` : k.scopes.map((sc) => html`<code>${sc}</code> `)}${k.allowedIps.length ? html`<br><span class="hint">from ${k.allowedIps.join(', ')}</span>` : ''}</td>
<td>${timeTag(k.createdAt)}</td><td>${timeTag(k.expiresAt)}</td>
<td>${k.lastUsedAt ? html`${timeTag(k.lastUsedAt)}<br><span class="hint">${k.lastUsedIp ?? ''}</span>` : html`<span class="hint">never</span>`}</td>
<td><span class="status status-${k.status}">${label('apiKeyStatus', k.status)}</span></td>
<td class="actions">
${canIssue && sessionMay(s, 'admin') ? html`<form method="post" action="/settings/api-keys/${k.id}/rotate" class="inline">${csrfField(s)}<button type="submit" class="secondary">Rotate</button></form>` : ''}
${sessionMay(s, 'admin') ? html`<form method="post" action="/settings/api-keys/${k.id}/revoke" class="inline">${csrfField(s)}<button type="submit" class="danger" aria-label="Revoke ${k.name}">Revoke</button></form>` : ''}
</td></tr>`;
}

export function apiKeysPage(o: {
  session: SessionView;
  keys: ApiKeyView[];
  rateLimit: { limit: number; windowMs: number };
  issued?: { key: IssuedKey; rotated: boolean } | undefined;
  values?: KeyFormValues;
  errors?: Record<string, string>;
  notice?: { kind: 'ok' | 'bad'; text: string } | undefined;
}): string {
  const s = o.session;
  const enterprise = !authorize({ plan: s.company.plan }, {});
  return dashboardPage({
    title: 'API keys',
    session: s,
    current: '/settings/api-keys',
    notice: o.notice,
    withCopyScript: !!o.issued,
    body: html`<h1>API keys</h1>
<p class="lead">Keys authenticate the REST API (<code>/api/v1</code>) and the MCP server (<code>/api/mcp</code>) for ${s.company.name}.
Each key may make ${o.rateLimit.limit} requests per ${o.rateLimit.windowMs / 1000} seconds; every use is written to the <a href="/audit?actorType=api_key">audit log</a>.</p>
${o.issued ? issuedPanel(o.issued.key, o.issued.rotated) : ''}
${enterprise ? (sessionMay(s, 'admin') ? createForm(s, o.values ?? {}, o.errors ?? {}) : html`<p class="hint" id="read-only">Only an administrator of the company changes these.</p>`) : html`<div class="notice">API access requires the Enterprise plan; this company is on the ${s.company.plan} plan. Existing keys stop working below Enterprise.</div>`}
<h2>Keys</h2>
${
  o.keys.length === 0
    ? html`<p>No keys yet.</p>`
    : html`<table class="data"><thead><tr><th>Name</th><th>Ends in</th><th>Scopes</th><th>Created</th><th>Expires</th><th>Last used</th><th>Status</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${o.keys.map((k) => keyRow(s, k, enterprise))}</tbody></table>`
}`,
  });
}
