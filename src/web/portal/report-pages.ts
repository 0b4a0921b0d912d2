import type { Company } from '../../modules/companies/companies.schemas.js';
import type { FiledReport } from '../../modules/reports/reports.schemas.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { whatHappensNext } from './portal-text.js';
import { label } from '../labels.js';
import { utc } from '../times.js';

export const typeLabel = (t: string | null | undefined): string => (t ? label('vulnerabilityType', t) : 'Not given');

/** Shown once, right after filing: the only place the private status link is ever displayed. */
export function confirmationPage(
  c: Company,
  report: Pick<FiledReport, 'submissionId' | 'createdAt' | 'description' | 'productName' | 'vulnerabilityType'>,
  statusUrl: string,
): string {
  return page({
    title: 'Report received',
    brand: c.name,
    body: html`<h1>Thank you: your report was received</h1>
<div class="notice ok" role="status">${c.name}'s security team has your report.</div>
<dl class="facts">
<dt>Submission id</dt><dd><code id="submission-id">${report.submissionId}</code></dd>
<dt>Received at</dt><dd><time id="created-at" datetime="${report.createdAt}">${utc(report.createdAt)}</time></dd>
<dt>Product</dt><dd>${report.productName ?? 'Not given'}</dd>
<dt>Type</dt><dd>${typeLabel(report.vulnerabilityType)}</dd>
</dl>
<h2>Your private status link</h2>
<p>Bookmark or copy this link now: it is shown only once. On it you can follow the status of your
report, read the security team's questions and answer them. Anyone who has the link can do the same
(it does not show your report's text), so keep it private. Quote the submission id when you write to ${c.name}.</p>
<p class="capability"><a id="status-link" href="${statusUrl}">${statusUrl}</a></p>
<h2>What happens next</h2>
${whatHappensNext(c)}
<h2>What you sent</h2>
<pre class="sent">${report.description}</pre>`,
  });
}
