import type { Company } from '../../modules/companies/companies.schemas.js';
import type { ErasureRequest } from '../../modules/retention/retention.schemas.js';
import { html, type SafeHtml } from '../html.js';
import { page } from '../layout.js';
import { timeTag } from '../times.js';

/** What is kept after an erasure, and why (docs/intake.md "Erasing your personal data"). */
const kept = (c: Company): SafeHtml => html`<ul>
<li>The technical content of your report and of the thread (what the vulnerability is and how it was handled): ${c.name} must keep its
technical documentation under the EU Cyber Resilience Act (Article 13(13)), and the GDPR allows keeping what such a legal obligation
requires (Article 17(3)(b)). Your name and addresses in that text are replaced by your pseudonym.</li>
<li>Advisories already published stay as released; any credit to you is dropped from their next revision.</li>
<li>A record that you asked for erasure, with the date and your pseudonym, never your address or browser.</li>
</ul>`;

/** The section of the status page about the researcher's personal data: the request link, or what was done. */
export function erasureSection(c: Company, action: string, e: ErasureRequest | undefined): SafeHtml {
  if (!e) {
    return html`<h2>Your personal data</h2>
<p>You can ask ${c.name} to erase your personal data (your e-mail address, OpenPGP key and the address and browser your reports were sent from).
<a href="${action}/erase">Ask for erasure</a></p>`;
  }
  return html`<h2>Your personal data</h2>
<div class="notice ok" role="status" id="erasure-notice">${
    e.state === 'held'
      ? html`Your erasure request of ${timeTag(e.requestedAt)} is recorded. Part of this data is under a legal hold, which
forbids erasing it for now; it will be erased as soon as the hold is released. Nothing else will be done with it meanwhile.`
      : html`Your personal data was erased on ${timeTag(e.appliedAt ?? e.requestedAt)}. This report and the thread now call you
<strong>${e.pseudonym}</strong>. ${c.name} can no longer write to you by e-mail.`
  }</div>
<p>What was erased: your e-mail address, your OpenPGP key, the client address and browser string of your requests, your e-mail
preferences, and your name and addresses wherever they appeared in your reports, the thread and advisory drafts. What is kept, and why:</p>
${kept(c)}`;
}

/** The confirmation step before an erasure: what will be erased, what is kept, and one button. */
export function erasureConfirmPage(c: Company, action: string): string {
  return page({
    title: 'Erase your personal data',
    brand: c.name,
    nav: [{ href: '/', label: 'Policy and contacts' }],
    body: html`<h1>Erase your personal data?</h1>
<p>${c.name} will replace your personal data on this report, and on every other report you sent from the same e-mail address,
with a pseudonym. This cannot be undone: ${c.name} will no longer be able to e-mail you about your reports, and only this status
link will still show them.</p>
<p>Erased: your e-mail address, your OpenPGP key, the client address and browser string of your requests, your e-mail preferences,
and your name and addresses wherever they appear in your reports and the thread.</p>
<p>Kept, and why:</p>
${kept(c)}
<form method="post" action="${action}" novalidate>
<input type="hidden" name="confirm" value="yes">
<button type="submit">Erase my personal data</button>
</form>
<p><a href="${action.replace(/\/erase$/, '')}">Keep my data and go back</a></p>`,
  });
}
