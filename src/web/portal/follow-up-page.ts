import type { Company } from '../../modules/companies/companies.schemas.js';
import type { MessageView } from '../../modules/messages/messages.js';
import type { ReportStatusView } from '../../modules/reports/get-report-status.js';
import { isReportState, PUBLIC_STATUS } from '../../modules/reports/lifecycle.js';
import type { ErasureRequest } from '../../modules/retention/retention.schemas.js';
import { html } from '../html.js';
import { erasureSection } from './erasure-page.js';
import { fieldError, invalidAttrs, page } from '../layout.js';
import { whatHappensNext } from './portal-text.js';
import { typeLabel } from './report-pages.js';
import { label } from '../labels.js';
import { timeTag } from '../times.js';

export type FollowUpState = { draft?: string; error?: string | undefined; notice?: { kind: 'ok' | 'bad'; text: string } | undefined };

/**
 * The page behind the private status link: the report's public status, the thread with the
 * security team, and a reply form. The form posts to the capability URL itself: a forged
 * cross-site post would need the token, which only the researcher has (no cookie is involved).
 */
export function followUpPage(
  c: Company,
  s: ReportStatusView,
  messages: MessageView[],
  action: string,
  st: FollowUpState = {},
  erasure?: ErasureRequest,
): string {
  const words = isReportState(s.status) ? PUBLIC_STATUS[s.status] : s.status;
  return page({
    title: `Report ${s.submissionId}`,
    brand: c.name,
    nav: [{ href: '/', label: 'Policy and contacts' }],
    body: html`<h1>Status of your report</h1>
${st.notice ? html`<div class="notice ${st.notice.kind}" role="${st.notice.kind === 'bad' ? 'alert' : 'status'}">${st.notice.text}</div>` : ''}
<dl class="facts">
<dt>Submission id</dt><dd><code>${s.submissionId}</code></dd>
<dt>Status</dt><dd id="report-status"><strong>${label('reportState', s.status)}</strong>: ${words}</dd>
<dt>Received at</dt><dd>${timeTag(s.createdAt)}</dd>
<dt>Last change</dt><dd>${timeTag(s.updatedAt)}</dd>
<dt>Product</dt><dd>${s.productName ?? 'Not given'}</dd>
<dt>Type</dt><dd>${typeLabel(s.vulnerabilityType)}</dd>
</dl>
<h2>Messages</h2>
${messages.length === 0 ? html`<p class="hint">No messages yet. ${c.name}'s security team writes here when they have questions or news.</p>` : ''}
<ol class="thread" id="thread">${messages.map((m) => html`<li class="msg msg-${m.author}"><p class="hint">${m.author === 'company' ? `${c.name} security team` : 'You'} · ${timeTag(m.createdAt)}</p><pre>${m.body}</pre></li>`)}</ol>
<form method="post" action="${action}" novalidate>
<div class="field"><label for="body">Add information or answer a question</label>
<textarea id="body" name="body" rows="6" ${invalidAttrs(st.error ? { body: st.error } : {}, 'body')}>${st.draft ?? ''}</textarea>${fieldError(st.error ? { body: st.error } : {}, 'body')}
<p class="hint">Plain text, up to 16 KiB. Only ${c.name}'s security team reads it.</p></div>
<button type="submit">Send message</button>
</form>
<h2>What happens next</h2>
${whatHappensNext(c)}
${erasureSection(c, action, erasure)}
<p class="hint">Keep this link private: anyone who has it can read these messages and write as you.</p>`,
  });
}
