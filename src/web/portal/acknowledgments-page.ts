import type { PublicCredit } from '../../modules/advisories/public-credits.js';
import type { Company } from '../../modules/companies/companies.schemas.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { markdown } from './landing-page.js';

/**
 * `{portal_url}/acknowledgments` (security.txt `Acknowledgments`, RFC 9116 2.5.1): the researchers
 * credited, with their consent, in the company's published advisories, each with the advisories
 * that name them; then the company's own list of those thanked outside Cradle. No script.
 */
export function acknowledgmentsPage(c: Company, credits: PublicCredit[]): string {
  return page({
    title: `Acknowledgments of ${c.name}`,
    brand: c.name,
    nav: [
      { href: '/', label: 'Policy and contacts' },
      { href: '/advisories', label: 'Advisories' },
      { href: '/submit', label: 'Report' },
    ],
    body: html`<h1>Acknowledgments</h1>
<p class="lead">${c.name} thanks the researchers who reported vulnerabilities and agreed to be named.</p>
${
  credits.length === 0 && !c.acknowledgmentsText
    ? html`<p id="no-acknowledgments">No one has been credited yet.</p>`
    : credits.length === 0
      ? ''
      : html`<h2>Credited in published advisories</h2>
<ul class="credits" id="credits">${credits.map(
          (r) =>
            html`<li><strong>${r.name}</strong>: ${r.advisories.map(
              (a, i) =>
                html`${i > 0 ? ', ' : ''}<a href="/advisories/${a.pageName}">${a.trackingId}</a> (${a.title}, <time datetime="${a.initialReleaseDate}">${a.initialReleaseDate.slice(0, 10)}</time>)`,
            )}</li>`,
        )}</ul>`
}
${c.acknowledgmentsText ? html`<h2>Also thanked</h2><div class="policy" id="earlier-acknowledgments">${markdown(c.acknowledgmentsText)}</div>` : ''}
<p>Found something? <a href="/submit">Report a vulnerability</a>.</p>`,
  });
}
