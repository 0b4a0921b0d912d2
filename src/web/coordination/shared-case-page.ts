import type { SharedCaseView } from '../../modules/cases/cases.schemas.js';
import { html, type SafeHtml } from '../html.js';
import { sharedFixesSection } from './shared-fixes.js';
import { attachmentField, attachmentList } from './attachment-list.js';
import { timeTag } from '../times.js';
import { label } from '../labels.js';

/** How the message form's fields are named in its error sentences. */
export const MESSAGE_LABELS: Readonly<Record<string, string>> = { body: 'Your message', attachments: 'Files' };

export type SharedCaseState = { draft?: string; errors?: Record<string, string>; notice?: { kind: 'ok' | 'bad'; text: string } | undefined; counter?: string };

/** Days from today to an embargo day (negative once past): the countdown every case view shows. */
export function embargoCountdown(until: string | null, now = new Date()): string {
  if (!until) return '';
  const days = Math.ceil((Date.parse(`${until}T00:00:00Z`) - now.getTime()) / 86_400_000);
  return days > 1 ? `${days} days left` : days === 1 ? '1 day left' : days === 0 ? 'ends today' : `ended ${-days} days ago`;
}

export function embargoText(e: SharedCaseView['embargo']): SafeHtml {
  if (e.state === 'none' || !e.until) return html`No embargo proposed yet.`;
  if (e.state === 'ended') return html`Ended early${e.endedAt ? html` on ${timeTag(e.endedAt)}` : ''}.`;
  return html`<strong>${e.state === 'agreed' ? 'Agreed' : 'Proposed'}</strong>: no public disclosure before <time datetime="${e.until}">${e.until}</time> (<span class="countdown">${embargoCountdown(e.until)}</span>)`;
}

/**
 * What one participant sees of a case, for the private link and for a company notified on this
 * instance: the notices sent to it, its thread, the embargo, and its answers. `base` is where the
 * forms post (the capability URL, or the dashboard's inbound case path with its CSRF field).
 */
export function sharedCaseBody(s: SharedCaseView, base: string, st: SharedCaseState = {}, csrf: SafeHtml | '' = '', canAct = true): SafeHtml {
  const errors = st.errors ?? {};
  const canAnswerEmbargo = canAct && (s.embargo.state === 'proposed' || s.embargo.state === 'agreed');
  return html`<h1>${s.title}</h1>
${st.notice ? html`<div class="notice ${st.notice.kind}" role="${st.notice.kind === 'bad' ? 'alert' : 'status'}">${st.notice.text}</div>` : ''}
<dl class="facts">
<dt>Coordinated by</dt><dd>${s.from}</dd>
<dt>Your role</dt><dd>${s.role.replace('_', ' ')}</dd>
<dt>Your status</dt><dd id="participant-status"><strong>${label('participantStatus', s.status)}</strong>${s.acknowledgedAt ? html` · acknowledged ${timeTag(s.acknowledgedAt)}` : ''}</dd>
<dt>Embargo</dt><dd id="embargo">${embargoText(s.embargo)}</dd>
<dt>Your answer</dt><dd id="embargo-answer">${s.embargoResponse}${s.embargoCounterUntil ? html` (you proposed ${s.embargoCounterUntil})` : ''}</dd>
</dl>
${
  s.acknowledgedAt || !canAct
    ? ''
    : html`<form method="post" action="${base}/acknowledge">${csrf}<button type="submit" id="acknowledge">Acknowledge the notice</button></form>`
}
${
  canAnswerEmbargo
    ? html`<h2>Answer the embargo</h2>
<form method="post" action="${base}/embargo" class="inline">${csrf}<input type="hidden" name="response" value="accept"><button type="submit" id="accept-embargo">Accept ${s.embargo.until ?? ''}</button></form>
<form method="post" action="${base}/embargo" novalidate>${csrf}<input type="hidden" name="response" value="counter">
<div class="field"><label for="until">Propose another date</label>
<input type="date" id="until" name="until" value="${st.counter ?? ''}" ${errors.until ? html`aria-invalid="true" aria-describedby="until-error"` : ''}>${errors.until ? html`<p class="error" id="until-error">${errors.until}</p>` : ''}</div>
<button type="submit" id="counter-embargo">Propose this date</button></form>`
    : ''
}
<h2>Notices</h2>
${s.notices.map((n) => html`<article class="notice-text"><p class="hint">${n.subject} · ${timeTag(n.sentAt)}</p><pre>${n.body}</pre></article>`)}
${sharedFixesSection(s.fixes)}
<h2>Messages</h2>
${s.messages.length === 0 ? html`<p class="hint">No messages yet.</p>` : ''}
<ol class="thread" id="thread">${s.messages.map((m) => html`<li class="msg msg-${m.author}"><p class="hint">${m.author === 'company' ? s.from : 'You'} · ${timeTag(m.createdAt)}</p>${m.body ? html`<pre>${m.body}</pre>` : ''}${attachmentList(m.attachments, base)}</li>`)}</ol>
${
  canAct
    ? html`<form method="post" action="${base}/messages" enctype="multipart/form-data" novalidate>${csrf}
<div class="field"><label for="body">Write to ${s.from}</label>
<textarea id="body" name="body" rows="5" ${errors.body ? html`aria-invalid="true" aria-describedby="body-error"` : ''}>${st.draft ?? ''}</textarea>${errors.body ? html`<p class="error" id="body-error">${errors.body}</p>` : ''}</div>
${attachmentField(errors.attachments)}
<button type="submit">Send message</button>
</form>`
    : ''
}`;
}
