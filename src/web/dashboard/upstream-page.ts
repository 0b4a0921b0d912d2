import type { SessionView } from '../../modules/sessions/sessions.js';
import type { UpstreamDiscovery } from '../../modules/upstream/upstream.schemas.js';
import type { UpstreamSettings } from '../../modules/upstream/upstream-settings.js';
import { html, type SafeHtml } from '../html.js';
import { fieldError, invalidAttrs } from '../layout.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { timeTag } from '../times.js';
import { label } from '../labels.js';

export const UPSTREAM_CONTACTS_PATH = '/upstream-contacts';
export const UPSTREAM_SETTINGS_PATH = '/settings/upstream';

type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;

function results(r: UpstreamDiscovery): SafeHtml {
  return html`<section aria-labelledby="found-title"><h2 id="found-title">Who to tell about ${r.purl}</h2>
<dl class="facts"><dt>Repository</dt><dd>${r.repository ?? 'not known'}</dd><dt>Project site</dt><dd>${r.website ?? 'not known'}</dd></dl>
${
  r.contacts.length
    ? html`<table id="contacts"><thead><tr><th scope="col">Channel</th><th scope="col">Address</th><th scope="col">Encryption</th><th scope="col">Found in</th></tr></thead><tbody>
${r.contacts.map(
  (c) =>
    html`<tr><td>${label('upstreamChannel', c.channel)}</td><td>${c.address}</td><td>${c.encryptionKey ? 'OpenPGP key published' : c.channel === 'email' ? 'none: send no report text in clear' : ''}</td><td>${label('upstreamSource', c.source.kind)}<br><span class="hint">${c.source.url}</span></td></tr>`,
)}</tbody></table>`
    : html`<p id="contacts" class="error-text">No contact was found. Check the sources below, or reach the maintainer by hand.</p>`
}
<h3>Sources asked, in order</h3>
<table id="sources"><thead><tr><th scope="col">Source</th><th scope="col">Outcome</th><th scope="col">Detail</th></tr></thead><tbody>
${r.sources.map((s) => html`<tr><td>${label('upstreamSource', s.kind)}${s.url ? html`<br><span class="hint">${s.url}</span>` : ''}</td><td>${label('upstreamOutcome', s.outcome)}</td><td>${s.detail}</td></tr>`)}
</tbody></table></section>`;
}

/** `/upstream-contacts`: look up a component's maintainer by package URL (a GET form, no state changes). */
export function upstreamContactsPage(o: { session: SessionView; purl: string; result?: UpstreamDiscovery; error?: string }): string {
  const errors: Record<string, string> = o.error ? { purl: o.error } : {};
  return dashboardPage({
    title: 'Upstream maintainers',
    session: o.session,
    current: UPSTREAM_CONTACTS_PATH,
    body: html`<h1>Upstream maintainers</h1>
<p class="lead">When a flaw sits in a component someone else maintains, CRA Article 13(6) asks you to tell them. Cradle looks up the component's repository and site in your SBOMs and asks GitHub, the project's security.txt, its SECURITY.md and security-insights.yml, and the companies on this instance, in that order.${sessionMay(o.session, 'read-admin') ? html` Settings: <a href="${UPSTREAM_SETTINGS_PATH}">GitHub token and the packages you maintain</a>.` : ''}</p>
<form method="get" action="${UPSTREAM_CONTACTS_PATH}" class="narrow" novalidate>
<div class="field"><label for="purl">Package URL of the component</label>
<input type="text" id="purl" name="purl" value="${o.purl}" placeholder="pkg:npm/left-pad@1.3.0" maxlength="2048" spellcheck="false" ${invalidAttrs(errors, 'purl')}>${fieldError(errors, 'purl')}</div>
<button type="submit">Find the maintainer</button>
</form>
${o.result ? results(o.result) : ''}`,
  });
}

export type UpstreamFormValues = { prefixes?: string; days?: string };

/** `/settings/upstream`: the GitHub token (set or not, never shown) and the declared packages. */
export function upstreamSettingsPage(o: {
  session: SessionView;
  settings: UpstreamSettings;
  values?: UpstreamFormValues;
  errors?: Record<string, string>;
  notice?: Notice;
}): string {
  const s = o.settings;
  const errors = o.errors ?? {};
  const admin = sessionMay(o.session, 'admin');
  const prefixes = o.values?.prefixes ?? s.maintainedPurlPrefixes.join('\n');
  return dashboardPage({
    title: 'Upstream settings',
    session: o.session,
    current: UPSTREAM_CONTACTS_PATH,
    notice: o.notice,
    body: html`<h1>Upstream settings</h1>
<section aria-labelledby="token-title"><h2 id="token-title">GitHub token</h2>
<p id="token-state">${s.githubToken.set ? html`A token is set (since ${timeTag(s.githubToken.setAt)}). It is sealed and never shown again.` : 'No token is set: reports cannot be sent through GitHub, and GitHub is asked anonymously.'}</p>
<p class="hint">GitHub API: ${s.githubApiUrl}</p>
${
  admin
    ? html`<form method="post" action="${UPSTREAM_SETTINGS_PATH}/github-token" class="narrow" novalidate>${csrfField(o.session)}
<div class="field"><label for="githubToken">${s.githubToken.set ? 'Replace the token' : 'Token'}</label>
<input type="password" id="githubToken" name="githubToken" autocomplete="off" spellcheck="false" maxlength="255" ${invalidAttrs(errors, 'githubToken')}>
<p class="hint">A fine-grained or classic token of your GitHub account; it is sealed with the operator key.</p>${fieldError(errors, 'githubToken')}</div>
<button type="submit">Save the token</button></form>
${s.githubToken.set ? html`<form method="post" action="${UPSTREAM_SETTINGS_PATH}/github-token/remove" class="inline">${csrfField(o.session)}<button type="submit" class="danger">Remove the token</button></form>` : ''}`
    : ''
}
</section>
<section aria-labelledby="packages-title"><h2 id="packages-title">Packages you maintain</h2>
<p class="hint">Other companies on this instance that find a flaw in one of these are pointed at you. One package URL per line: a package without version (pkg:npm/@acme/widget) or a namespace ending in / (pkg:maven/com.acme/).</p>
${
  admin
    ? html`<form method="post" action="${UPSTREAM_SETTINGS_PATH}/packages" class="narrow" novalidate>${csrfField(o.session)}
<div class="field"><label for="prefixes">Package URLs</label>
<textarea id="prefixes" name="prefixes" rows="6" spellcheck="false" ${invalidAttrs(errors, 'prefixes')}>${prefixes}</textarea>${fieldError(errors, 'prefixes')}</div>
<button type="submit">Save the packages</button></form>`
    : html`<ul id="prefix-list">${s.maintainedPurlPrefixes.map((p) => html`<li><code>${p}</code></li>`)}</ul><p class="hint" id="read-only">Only an administrator of the company changes these.</p>`
}
</section>
${remindersSection(o.session, s, o.values?.days, errors)}`,
  });
}

/** The case reminder period (docs/coordination.md "Reminders and escalation"): administrators change it. */
function remindersSection(session: SessionView, s: UpstreamSettings, typed: string | undefined, errors: Record<string, string>): SafeHtml {
  return html`<section aria-labelledby="reminders-title"><h2 id="reminders-title">Case reminders</h2>
<p class="hint">A participant notified of a coordination case that has not acknowledged within this many days is reminded once; after twice as many the case suggests bringing in a coordinator.</p>
${
  sessionMay(session, 'admin')
    ? html`<form method="post" action="${UPSTREAM_SETTINGS_PATH}/case-reminders" class="narrow" novalidate>${csrfField(session)}
<div class="field"><label for="days">Days to acknowledge (1 to 90)</label>
<input type="number" id="days" name="days" min="1" max="90" step="1" value="${typed ?? String(s.caseReminderDays)}" ${invalidAttrs(errors, 'days')}>${fieldError(errors, 'days')}</div>
<button type="submit">Save the reminder period</button></form>`
    : html`<p id="reminder-days">${s.caseReminderDays} days.</p>`
}
</section>`;
}
