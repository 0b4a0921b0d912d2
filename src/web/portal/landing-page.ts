import type { Company } from '../../modules/companies/companies.schemas.js';
import { renderPolicyMarkdown } from '../../modules/companies/policy-markdown.js';
import { html, raw, type SafeHtml } from '../html.js';
import { page } from '../layout.js';
import { languageName, whatHappensNext } from './portal-text.js';

export type PortalUrls = { portal: string; bulk: string };
/** The operator's security.txt signing key, when configured: its fingerprint and where the portal serves it. */
export type SigningKeyRef = { fingerprint: string; keyPath: string };

/**
 * Markdown written by the company, rendered with raw HTML off (src/modules/companies/policy-markdown.ts):
 * the one place a portal page inserts markup that is not built by `html`.
 */
export const markdown = (text: string): SafeHtml => raw(renderPolicyMarkdown(text));

/** The disclosure policy, safe harbour and response times: on the landing page and on /policy. */
export function policySection(c: Company): SafeHtml {
  return html`${c.policyText ? html`<div class="policy">${markdown(c.policyText)}</div>` : ''}
${c.policyUrl ? html`<p>Full policy: <a href="${c.policyUrl}" rel="noopener noreferrer">${c.policyUrl}</a></p>` : ''}
${!c.policyText && !c.policyUrl ? html`<p>${c.name} has not published a written policy here yet. Reports are handled as below.</p>` : ''}
${c.safeHarbour ? html`<h3 id="safe-harbour">Safe harbour</h3><div class="policy">${markdown(c.safeHarbour)}</div>` : ''}`;
}

/** The portal's front page: who, how to reach them (never automated-only: Art. 13(17)), policy, key. */
export function landingPage(c: Company, urls: PortalUrls, o: { signing?: SigningKeyRef | undefined } = {}): string {
  return page({
    title: `Report a vulnerability to ${c.name}`,
    brand: c.name,
    nav: [
      { href: '/submit', label: 'Report' },
      { href: '/policy', label: 'Policy' },
      { href: '/acknowledgments', label: 'Acknowledgments' },
    ],
    body: html`<h1>Report a security vulnerability to ${c.name}</h1>
<p class="lead">Found a security problem in a product of ${c.name}? Tell their security team here. No account is
needed, and the form works without JavaScript.</p>
<p><a class="button" href="/submit">Report a vulnerability</a></p>
<h2>Ways to reach the security team</h2>
<ul class="contact">
<li>Web form: <a href="/submit">${urls.portal}/submit</a></li>
${c.securityEmail ? html`<li>E-mail, read by people: <a href="mailto:${c.securityEmail}">${c.securityEmail}</a></li>` : ''}
<li>For scripts and agents: <code>POST ${urls.bulk}</code> with <code>"slug": "${c.slug}"</code> (JSON, up to 20 reports at once).</li>
<li>Machine-readable contact details: <a href="/.well-known/security.txt">security.txt</a>${
      o.signing
        ? html`, signed with the OpenPGP key <code id="security-txt-fingerprint">${o.signing.fingerprint}</code> (<a href="${o.signing.keyPath}">key</a>)`
        : ''
    }</li>
<li>Published security advisories: <a href="/advisories">advisories</a></li>
<li>Researchers we thank: <a href="/acknowledgments">acknowledgments</a></li>
</ul>
<h2>Languages</h2>
<p>Reports are read in: ${c.languages.map(languageName).join(', ')}.</p>
${c.preferredReportFormat ? html`<p>Preferred report format: ${c.preferredReportFormat}</p>` : ''}
<h2 id="policy">Disclosure policy</h2>
${policySection(c)}
<h2>What happens after you report</h2>
${whatHappensNext(c)}
${
  c.pgpPublicKey
    ? html`<h2 id="openpgp">OpenPGP key</h2>
<p>Encrypt sensitive details to this key (also at <a href="/pgp-key.txt">/pgp-key.txt</a>).</p>
<pre class="key">${c.pgpPublicKey}</pre>`
    : ''
}`,
  });
}

/** `{portal_url}/policy`: the written policy on a page of its own (security.txt names it as Policy). */
export function policyPage(c: Company): string {
  return page({
    title: `Vulnerability disclosure policy of ${c.name}`,
    brand: c.name,
    nav: [
      { href: '/submit', label: 'Report' },
      { href: '/policy', label: 'Policy' },
    ],
    body: html`<h1>Vulnerability disclosure policy</h1>
${policySection(c)}
<h2>What happens after you report</h2>
${whatHappensNext(c)}
<p><a class="button" href="/submit">Report a vulnerability</a></p>`,
  });
}
