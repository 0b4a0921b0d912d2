import {
  ACKNOWLEDGMENTS_MAX_CHARS,
  groupDigits,
  POLICY_MAX_CHARS,
  type PortalSettings,
  SAFE_HARBOUR_MAX_CHARS,
} from '../../modules/companies/portal-settings.schemas.js';
import { renderPolicyMarkdown } from '../../modules/companies/policy-markdown.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, raw, type SafeHtml } from '../html.js';
import { fieldError, invalidAttrs } from '../layout.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';

export const PORTAL_SETTINGS_PATH = '/settings/portal';

/** What the form shows: the stored settings, or what was typed when it came back with errors. */
export type PortalFormValues = {
  policyText: string;
  policyUrl: string;
  safeHarbour: string;
  languages: string;
  securityEmail: string;
  preferredReportFormat: string;
  pgpPublicKey: string;
  acknowledgeDays: string;
  assessDays: string;
  resolveDays: string;
  acknowledgmentsText: string;
};

/** The operator's security.txt signing key, when one is configured (it is the same for every portal). */
export type SigningFacts = { fingerprint: string; expiresAt: Date | null };

export const formValuesOf = (s: PortalSettings): PortalFormValues => ({
  policyText: s.policyText ?? '',
  policyUrl: s.policyUrl ?? '',
  safeHarbour: s.safeHarbour ?? '',
  languages: s.languages.join(', '),
  securityEmail: s.securityEmail ?? '',
  preferredReportFormat: s.preferredReportFormat ?? '',
  pgpPublicKey: s.pgpPublicKey ?? '',
  acknowledgeDays: s.responseTimes.acknowledgeDays?.toString() ?? '',
  assessDays: s.responseTimes.assessDays?.toString() ?? '',
  resolveDays: s.responseTimes.resolveDays?.toString() ?? '',
  acknowledgmentsText: s.acknowledgmentsText ?? '',
});

type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;

function published(s: PortalSettings, signing: SigningFacts | undefined): SafeHtml {
  const k = s.pgpKey;
  return html`<section aria-labelledby="published-title"><h2 id="published-title">Published now</h2>
<dl class="facts">
<dt>Portal</dt><dd><a href="${s.portalUrl}/" rel="noopener">${s.portalUrl}/</a></dd>
<dt>security.txt</dt><dd><a href="${s.securityTxtUrl}" rel="noopener">${s.securityTxtUrl}</a></dd>
<dt>security.txt signature</dt><dd id="security-txt-signing">${
    signing
      ? html`OpenPGP key <code>${signing.fingerprint}</code><br><span class="hint">the operator's key of this Cradle instance · ${signing.expiresAt ? `expires ${signing.expiresAt.toISOString().slice(0, 10)}` : 'does not expire'} · <a href="${s.portalUrl}/security-txt-signing-key.txt" rel="noopener">served here</a></span>`
      : 'not signed (the operator has configured no signing key)'
  }</dd>
<dt>Acknowledgments</dt><dd><a href="${s.acknowledgmentsUrl}" rel="noopener">${s.acknowledgmentsUrl}</a><br><span class="hint">researchers credited in your published advisories${s.acknowledgmentsText ? ', and your list below' : ''}</span></dd>
<dt>Disclosure policy</dt><dd>${s.policyUrl ? html`<a href="${s.policyUrl}" rel="noopener noreferrer">${s.policyUrl}</a>` : ''}${s.policyText ? html`${s.policyUrl ? ' and ' : ''}written text (${s.policyText.length} characters)` : ''}${!s.policyText && !s.policyUrl ? html`<strong class="error-text">none yet</strong>` : ''}</dd>
<dt>Security contact</dt><dd>${s.securityEmail ?? html`<strong class="error-text">none yet</strong>`}</dd>
<dt>OpenPGP key</dt><dd id="pgp-fingerprint">${
    k
      ? html`<code>${k.fingerprint}</code><br><span class="hint">${k.userIds.join(', ')} · ${k.algorithm} · created ${k.createdAt.slice(0, 10)} · ${k.expiresAt ? `expires ${k.expiresAt.slice(0, 10)}` : 'does not expire'} · <a href="${s.pgpKeyUrl ?? ''}">served here</a></span>`
      : s.pgpPublicKey
        ? html`<span class="error-text">stored but no longer valid (expired or revoked?): replace it</span>`
        : 'none'
  }</dd>
</dl>
${s.policyText ? html`<details><summary>The policy as researchers see it</summary><div class="policy">${raw(renderPolicyMarkdown(s.policyText))}</div></details>` : ''}
</section>`;
}

function form(sess: SessionView, v: PortalFormValues, errors: Record<string, string>): SafeHtml {
  const text = (
    name: keyof PortalFormValues,
    label: string,
    type: string,
    hint: string,
    extra: SafeHtml = html``,
  ) => html`<div class="field"><label for="${name}">${label}</label>
<input type="${type}" id="${name}" name="${name}" value="${v[name]}" ${extra} ${invalidAttrs(errors, name)}>${hint ? html`<p class="hint">${hint}</p>` : ''}${fieldError(errors, name)}</div>`;
  const area = (
    name: keyof PortalFormValues,
    label: string,
    rows: number,
    hint: SafeHtml | string,
  ) => html`<div class="field"><label for="${name}">${label}</label>
<textarea id="${name}" name="${name}" rows="${rows}" spellcheck="${name === 'pgpPublicKey' ? 'false' : 'true'}" ${invalidAttrs(errors, name)}>${v[name]}</textarea><p class="hint">${hint}</p>${fieldError(errors, name)}</div>`;
  const days = (name: 'acknowledgeDays' | 'assessDays' | 'resolveDays', label: string) => html`<div class="field"><label for="${name}">${label}</label>
<input type="number" id="${name}" name="${name}" min="1" max="365" step="1" value="${v[name]}" ${invalidAttrs(errors, name)}>${fieldError(errors, name)}</div>`;
  return html`<form method="post" action="${PORTAL_SETTINGS_PATH}" class="narrow" novalidate>${csrfField(sess)}
<h2>Disclosure policy</h2>
${area('policyText', 'Policy text (Markdown)', 12, html`Shown on the portal. CommonMark: headings, lists, links, emphasis. HTML is refused and images are not shown. At most ${groupDigits(POLICY_MAX_CHARS)} characters.`)}
${text('policyUrl', 'Or: address of the full policy', 'url', 'https:// only. security.txt names it as Policy; without it, the portal policy page is named.', html`maxlength="2048" placeholder="https://example.com/security/policy"`)}
${area('safeHarbour', 'Safe-harbour statement (Markdown)', 5, `What good-faith researchers may expect from you (no legal action, no account bans). At most ${groupDigits(SAFE_HARBOUR_MAX_CHARS)} characters.`)}
<h2>Contact</h2>
${text('securityEmail', 'Security contact e-mail', 'email', 'A mailbox people read (CRA Art. 13(17)); published on the portal and as Contact: mailto: in security.txt.', html`maxlength="254" autocomplete="email"`)}
${text('languages', 'Languages reports are read in', 'text', 'Language tags, preference first, separated by commas: en, de, fr.')}
${text('preferredReportFormat', 'Preferred report format (optional)', 'text', '', html`maxlength="200"`)}
${area('pgpPublicKey', 'OpenPGP public key (optional)', 8, 'Paste the ASCII-armoured PUBLIC key (gpg --armor --export). It is checked: private, expired or revoked keys and keys that cannot encrypt are refused. Clear the box to stop publishing a key.')}
<h2>Expected response times</h2>
<p class="hint">Shown to researchers on the portal; leave empty to say nothing.</p>
${days('acknowledgeDays', 'Acknowledge a report within (days)')}
${days('assessDays', 'First assessment within (days)')}
${days('resolveDays', 'Fix or mitigation targeted within (days)')}
<h2>Acknowledgments</h2>
${area('acknowledgmentsText', 'Researchers thanked outside Cradle (optional, Markdown)', 5, `The portal's acknowledgments page lists everyone credited in your published advisories by itself; add here those thanked before Cradle or without an advisory, with their consent. At most ${groupDigits(ACKNOWLEDGMENTS_MAX_CHARS)} characters; HTML is refused.`)}
<button type="submit">Save and publish</button>
</form>`;
}

/** `/settings/portal`: what the portal publishes now, and the form that changes it. */
export function portalSettingsPage(o: {
  session: SessionView;
  settings: PortalSettings;
  signing?: SigningFacts | undefined;
  values?: PortalFormValues;
  errors?: Record<string, string>;
  notice?: Notice;
}): string {
  return dashboardPage({
    title: 'Portal and policy',
    session: o.session,
    current: PORTAL_SETTINGS_PATH,
    notice: o.notice,
    body: html`<h1>Portal and disclosure policy</h1>
<p class="lead">What researchers see on your portal and in its security.txt. Changes are published the moment you save; every change is in the <a href="/audit?action=companies.portal_settings">audit log</a>.</p>
${published(o.settings, o.signing)}
${sessionMay(o.session, 'admin') ? form(o.session, o.values ?? formValuesOf(o.settings), o.errors ?? {}) : html`<p class="hint" id="read-only">Only an administrator of the company changes these.</p>`}`,
  });
}
