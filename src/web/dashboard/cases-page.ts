import type { CaseSummaryView, CaseView, NoticeView } from '../../modules/cases/cases.schemas.js';
import { PARTICIPANT_ROLES, PARTICIPANT_STATUSES } from '../../modules/cases/cases.schemas.js';
import type { InboundSummary } from '../../modules/cases/shared-thread.js';
import type { CaseMessageView } from '../../modules/cases/cases.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { embargoText } from '../coordination/shared-case-page.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { label } from '../labels.js';
import type { CaseFixView } from '../../modules/cases/case-fixes.schemas.js';
import { caseFixesPanel } from './case-fixes-panel.js';
import { attachmentField, attachmentList } from '../coordination/attachment-list.js';
import { timeTag } from '../times.js';
import { openedByCradleTag } from './report-badges.js';

export const CASES_PATH = '/cases';
type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;

/** The company's cases, and the cases of other companies on this instance that notified it. */
export function casesPage(
  s: SessionView,
  cases: CaseSummaryView[],
  inbound: InboundSummary[],
  notice?: Notice,
  values: { title?: string } = {},
  errors: Record<string, string> = {},
): string {
  return dashboardPage({
    title: 'Cases',
    session: s,
    current: CASES_PATH,
    notice,
    body: html`<h1>Coordination cases</h1>
<p class="lead">Vulnerabilities worked with the people outside the company who must hear of them: upstream maintainers (CRA Article 13(6)), other vendors, coordinators.</p>
${
  sessionMay(s, 'triage')
    ? html`<form method="post" action="${CASES_PATH}" novalidate>${csrfField(s)}
<div class="field"><label for="title">Open a case from scratch</label><input id="title" name="title" value="${values.title ?? ''}" ${errors.title ? html`aria-invalid="true" aria-describedby="title-error"` : ''}>${errors.title ? html`<p class="error" id="title-error">${errors.title}</p>` : ''}</div>
<button type="submit">Open a case</button></form>`
    : ''
}
${
  cases.length === 0
    ? html`<p class="hint">No cases yet. Open one from a report page ("Open a case") or above.</p>`
    : html`<table id="cases"><thead><tr><th>Case</th><th>Origin</th><th>Participants</th><th>Embargo</th><th>Changed</th></tr></thead><tbody>
${cases.map((c) => html`<tr><td><a href="${CASES_PATH}/${c.id}">${c.title}</a>${c.state === 'closed' ? html` <span class="tag">closed</span>` : ''}</td><td>${label('caseOrigin', c.origin)}</td><td>${c.participants}</td><td>${embargoText(c.embargo)}</td><td>${timeTag(c.updatedAt, '—')}</td></tr>`)}
</tbody></table>`
}
<h2>Cases notified to you</h2>
${
  inbound.length === 0
    ? html`<p class="hint">No other company on this instance has notified you of a case.</p>`
    : html`<table id="inbound-cases"><thead><tr><th>Case</th><th>From</th><th>Your status</th><th>Embargo</th><th>Notified</th></tr></thead><tbody>
${inbound.map((i) => html`<tr><td><a href="${CASES_PATH}/inbound/${i.participantId}">${i.title}</a></td><td>${i.from}</td><td>${label('participantStatus', i.status)}</td><td>${embargoText(i.embargo)}</td><td>${timeTag(i.notifiedAt, '—')}</td></tr>`)}
</tbody></table>`
}`,
  });
}

export type CasePageData = {
  c: CaseView;
  notices: NoticeView[];
  messages: CaseMessageView[];
  fixes: CaseFixView[];
  /** The case's reports Cradle opened itself (known-vulnerability matches). */
  selfOpened?: ReadonlySet<string>;
  prepared?: NoticeView[];
  notice?: Notice;
  errors?: Record<string, string>;
  values?: Record<string, string>;
};

function participantsTable(d: CasePageData): SafeHtml {
  const { c } = d;
  if (c.participants.length === 0) return html`<p class="hint">No participants yet.</p>`;
  return html`<table id="participants"><thead><tr><th>Participant</th><th>Role</th><th>Channel</th><th>Status</th><th>Notified</th><th>Acknowledged</th><th>Embargo answer</th></tr></thead><tbody>
${c.participants.map(
  (p) =>
    html`<tr data-participant="${p.id}"><td>${p.name}${p.encrypted ? html` <span class="tag">OpenPGP</span>` : ''}</td><td>${label('participantRole', p.role)}</td><td>${label('channel', p.channel)}${p.address ? html` <code>${p.address}</code>` : ''}${p.advisory ? html` <span class="advisory">${p.advisory.url ? html`<a href="${p.advisory.url}" rel="noreferrer">${p.advisory.ghsaId}</a>` : p.advisory.ghsaId}</span>` : ''}</td><td class="status"><strong>${label('participantStatus', p.status)}</strong></td><td>${timeTag(p.notifiedAt, '—')}</td><td class="acknowledged">${timeTag(p.acknowledgedAt, '—')}</td><td class="embargo-answer">${label('embargoResponse', p.embargoResponse)}${p.embargoCounterUntil ? html` (proposes ${p.embargoCounterUntil})` : ''}</td></tr>`,
)}
</tbody></table>`;
}

function preparedPanel(s: SessionView, d: CasePageData): SafeHtml {
  const list = d.prepared ?? [];
  if (list.length === 0) return html``;
  return html`<section id="prepared" aria-labelledby="prepared-title"><h2 id="prepared-title">Check the notices before they go out</h2>
<p>Nothing has been sent. This is exactly what each participant will get.</p>
${list.map(
  (
    n,
  ) => html`<article class="notice-text"><dl class="facts"><dt>To</dt><dd>${n.recipient} (${label('channel', n.channel)})</dd><dt>Encrypted</dt><dd>${n.encrypted ? 'yes, OpenPGP' : 'no'}</dd><dt>Subject</dt><dd>${n.subject}</dd></dl>
<pre>${n.body}</pre>${n.sharedBody ? html`<details><summary>Shown behind the private link</summary><pre>${n.sharedBody}</pre></details>` : ''}</article>`,
)}
<form method="post" action="${CASES_PATH}/${d.c.id}/notices/confirm">${csrfField(s)}${list.map((n) => html`<input type="hidden" name="noticeIds" value="${n.id}">`)}
<button type="submit" id="confirm-notices">Send ${list.length === 1 ? 'this notice' : `these ${list.length} notices`}</button></form></section>`;
}

function forms(s: SessionView, d: CasePageData): SafeHtml {
  if (!sessionMay(s, 'triage') || d.c.state !== 'open') return html``;
  const e = d.errors ?? {};
  const v = d.values ?? {};
  const err = (name: string) => (e[name] ? html`<p class="error" id="${name}-error">${e[name]}</p>` : '');
  const inv = (name: string) => (e[name] ? html`aria-invalid="true" aria-describedby="${name}-error"` : '');
  return html`<h2>Add a participant</h2>
<form method="post" action="${CASES_PATH}/${d.c.id}/participants" novalidate>${csrfField(s)}
<div class="field"><label for="role">Role</label><select id="role" name="role">${PARTICIPANT_ROLES.map((r) => html`<option value="${r}" ${(v.role ?? 'upstream_maintainer') === r ? 'selected' : ''}>${label('participantRole', r)}</option>`)}</select></div>
<div class="field"><label for="address">Company slug on this instance, e-mail address, or repository URL</label><input id="address" name="address" value="${v.address ?? ''}" ${inv('address')}>${err('address')}</div>
<div class="field"><label for="pgpKey">OpenPGP public key for the e-mail address (optional)</label><textarea id="pgpKey" name="pgpKey" rows="3" ${inv('pgpKey')}>${v.pgpKey ?? ''}</textarea>${err('pgpKey')}</div>
<button type="submit" id="add-participant">Add participant</button></form>
<h2>Notify</h2>
<form method="post" action="${CASES_PATH}/${d.c.id}/notices">${csrfField(s)}<button type="submit" id="prepare-notices">Prepare notices for participants not yet notified</button></form>
<h2>Embargo</h2>
<form method="post" action="${CASES_PATH}/${d.c.id}/embargo" novalidate>${csrfField(s)}
<div class="field"><label for="until">Proposed public disclosure day</label><input type="date" id="until" name="until" value="${v.until ?? d.c.embargo.until ?? ''}" ${inv('until')}>${err('until')}</div>
<button type="submit">Propose</button></form>
${
  d.c.embargo.state === 'proposed' || d.c.embargo.state === 'agreed'
    ? html`<form method="post" action="${CASES_PATH}/${d.c.id}/embargo/end" novalidate>${csrfField(s)}
<div class="field"><label for="reason">End the embargo early: the reason</label><input id="reason" name="reason" value="${v.reason ?? ''}" ${inv('reason')}>${err('reason')}</div>
<button type="submit" class="danger">End the embargo</button></form>`
    : ''
}
${
  d.c.participants.length > 0
    ? html`<h2>Write to a participant</h2>
<form method="post" action="${CASES_PATH}/${d.c.id}/messages" enctype="multipart/form-data" novalidate>${csrfField(s)}
<div class="field"><label for="participantId">To</label><select id="participantId" name="participantId">${d.c.participants.map((p) => html`<option value="${p.id}" ${v.participantId === p.id ? 'selected' : ''}>${p.name}</option>`)}</select></div>
<div class="field"><label for="body">Message</label><textarea id="body" name="body" rows="4" ${inv('body')}>${v.body ?? ''}</textarea>${err('body')}</div>
${attachmentField(d.errors?.attachments)}
<button type="submit">Send message</button></form>`
    : ''
}
<h2>Record a participant's status</h2>
<form method="post" action="${CASES_PATH}/${d.c.id}/participant-status" novalidate>${csrfField(s)}
<div class="field"><label for="status-participant">Participant</label><select id="status-participant" name="participantId">${d.c.participants.map((p) => html`<option value="${p.id}">${p.name}</option>`)}</select></div>
<div class="field"><label for="status">Status</label><select id="status" name="status">${PARTICIPANT_STATUSES.map((st) => html`<option value="${st}">${label('participantStatus', st)}</option>`)}</select></div>
<button type="submit">Record</button></form>`;
}

const outgoing = (notices: NoticeView[]) => notices.filter((n) => n.state === 'sent' || n.state === 'queued' || n.state === 'failed');

/** A confirmed notice's state: sent, waiting for the GitHub delivery job, or failed with GitHub's reason. */
function noticeState(n: NoticeView) {
  if (n.state === 'sent') return html`${timeTag(n.sentAt, '—')}`;
  if (n.state === 'queued') return html`<strong>queued for GitHub</strong>${n.failure ? html` <span class="hint">(retrying: ${n.failure})</span>` : ''}`;
  return html`<strong class="failed">not delivered</strong>: <span class="failure">${n.failure ?? ''}</span> <span class="hint">Fix the cause and prepare the notice again.</span>`;
}

/** One case: participants and their status, the embargo countdown, notices, threads and the timeline. */
export function casePage(s: SessionView, d: CasePageData): string {
  const { c } = d;
  const name = new Map(c.participants.map((p) => [p.id, p.name]));
  return dashboardPage({
    title: c.title,
    session: s,
    current: CASES_PATH,
    notice: d.notice,
    body: html`<p><a href="${CASES_PATH}">Cases</a></p><h1>${c.title}</h1>
<dl class="facts">
<dt>Origin</dt><dd>${label('caseOrigin', c.origin)}${c.originRef ? html` (<a href="/known-vulnerabilities/${c.originRef}">match</a>)` : ''}</dd>
<dt>Reports</dt><dd>${c.reportIds.length === 0 ? 'none' : c.reportIds.map((r) => html`<a href="/reports/${r}"><code>${r.slice(0, 8)}</code></a>${openedByCradleTag(d.selfOpened?.has(r) ?? false)} `)}</dd>
<dt>Embargo</dt><dd id="embargo">${embargoText(c.embargo)}${c.embargo.endReason ? html`: ${c.embargo.endReason}` : ''}</dd>
</dl>
${c.summary ? html`<pre>${c.summary}</pre>` : ''}
${
  c.coordinatorSuggestedAt
    ? html`<div class="notice" role="status" id="coordinator-suggested"><p>A participant has not acknowledged in two reminder periods (since ${timeTag(c.coordinatorSuggestedAt, '—')}): consider bringing in a coordinator such as your national CSIRT. Hand over the <a href="${CASES_PATH}/${c.id}/coordinator-pack" download>coordinator pack</a> (participants, dates, embargo and log; no report text, no secrets).</p></div>`
    : ''
}
<h2>Participants</h2>
${participantsTable(d)}
${preparedPanel(s, d)}
${forms(s, d)}
${caseFixesPanel(s, c.id, c.state === 'open', d.fixes, d.values ?? {}, d.errors ?? {})}
<h2>Threads</h2>
${d.messages.length === 0 ? html`<p class="hint">No messages yet.</p>` : ''}
<ol class="thread" id="thread">${d.messages.map((m) => html`<li class="msg msg-${m.author}"><p class="hint">${m.author === 'company' ? `You to ${name.get(m.participantId) ?? 'participant'}` : `${name.get(m.participantId) ?? 'Participant'} (untrusted)`} · ${timeTag(m.createdAt, '—')}</p>${m.body ? html`<pre>${m.body}</pre>` : ''}${attachmentList(m.attachments, `${CASES_PATH}/${c.id}`)}</li>`)}</ol>
<h2>Notices sent</h2>
${outgoing(d.notices).length === 0 ? html`<p class="hint">None yet.</p>` : ''}
<ul id="notices-sent">${outgoing(d.notices).map((n) => html`<li data-notice="${n.id}">${name.get(n.participantId) ?? n.recipient}: ${label('channel', n.channel)}${n.encrypted ? ', encrypted' : ''}, ${noticeState(n)}</li>`)}</ul>
<h2>Timeline</h2>
<ol class="timeline" id="timeline">${c.log.map((e) => html`<li>${timeTag(e.createdAt)} ${label('caseEvent', e.kind)}${e.participantId ? html` · ${name.get(e.participantId) ?? ''}` : ''} <span class="hint">${e.actor}</span></li>`)}</ol>`,
  });
}
