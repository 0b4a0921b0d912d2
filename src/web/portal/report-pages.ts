import type { Company } from '../../modules/companies/companies.schemas.js';
import type { ReportStatusView } from '../../modules/reports/get-report-status.js';
import { type FiledReport, VULNERABILITY_TYPE_INFO, type VulnerabilityType } from '../../modules/reports/reports.schemas.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { whatHappensNext } from './portal-text.js';

const typeLabel = (t: string | null | undefined): string =>
  t ? (VULNERABILITY_TYPE_INFO[t as VulnerabilityType]?.label ?? t) : 'Not given';

const STATUS_TEXT: Record<string, string> = {
  new: 'received, waiting for the security team to assess it.',
};

/** Shown once, right after filing: the only place the private status link is ever displayed. */
export function confirmationPage(c: Company, report: Pick<FiledReport, 'submissionId' | 'createdAt' | 'description' | 'productName' | 'vulnerabilityType'>, statusUrl: string): string {
  return page({
    title: 'Report received',
    brand: c.name,
    body: html`<h1>Thank you: your report was received</h1>
<div class="notice ok" role="status">${c.name}'s security team has your report.</div>
<dl class="facts">
<dt>Submission id</dt><dd><code id="submission-id">${report.submissionId}</code></dd>
<dt>Received at</dt><dd><time id="created-at" datetime="${report.createdAt}">${report.createdAt}</time></dd>
<dt>Product</dt><dd>${report.productName ?? 'Not given'}</dd>
<dt>Type</dt><dd>${typeLabel(report.vulnerabilityType)}</dd>
</dl>
<h2>Your private status link</h2>
<p>Bookmark or copy this link now: it is shown only once, and anyone who has it can see the status
of your report (not its text). Quote the submission id when you write to ${c.name}.</p>
<p class="capability"><a id="status-link" href="${statusUrl}">${statusUrl}</a></p>
<h2>What happens next</h2>
${whatHappensNext(c.name)}
<h2>What you sent</h2>
<pre class="sent">${report.description}</pre>`,
  });
}

/** The status page behind the capability link. */
export function statusPage(c: Company, s: ReportStatusView): string {
  return page({
    title: `Report ${s.submissionId}`,
    brand: c.name,
    nav: [{ href: '/', label: 'Policy and contacts' }],
    body: html`<h1>Status of your report</h1>
<dl class="facts">
<dt>Submission id</dt><dd><code>${s.submissionId}</code></dd>
<dt>Status</dt><dd id="report-status"><strong>${s.status}</strong>${STATUS_TEXT[s.status] ? html`: ${STATUS_TEXT[s.status]}` : ''}</dd>
<dt>Received at</dt><dd><time datetime="${s.createdAt}">${s.createdAt}</time></dd>
<dt>Last change</dt><dd><time datetime="${s.updatedAt}">${s.updatedAt}</time></dd>
<dt>Product</dt><dd>${s.productName ?? 'Not given'}</dd>
<dt>Type</dt><dd>${typeLabel(s.vulnerabilityType)}</dd>
</dl>
<h2>What happens next</h2>
${whatHappensNext(c.name)}
<p class="hint">Keep this link private. To add information, write to ${c.securityEmail ?? `${c.name} through the report form`} quoting the submission id.</p>`,
  });
}
