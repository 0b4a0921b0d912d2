import type { ReportView } from '../../modules/reports/get-report.js';
import type { ReportNote } from '../../modules/reports/report-notes.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, sessionMay } from './dashboard-layout.js';
import { type MemberOption, memberSelect } from './inbox-bulk-form.js';
import { utc } from '../times.js';

/** Who handles the report, and (for members who triage) the form that changes it. */
export function assigneeForm(s: SessionView, r: ReportView, members: MemberOption[]): SafeHtml {
  if (!sessionMay(s, 'triage')) return html``;
  return html`<form method="post" action="/reports/${r.submissionId}/assignee" class="narrow">${csrfField(s)}
<div class="field"><label for="assigneeId">Assignee</label>${memberSelect('assigneeId', 'assigneeId', members, r.assigneeId ?? 'none', [['none', 'nobody']])}</div>
<button type="submit">Assign</button></form>`;
}

/** The team's notes beside the thread: never shown to the reporter, never mailed. */
export function notesPanel(s: SessionView, id: string, notes: ReportNote[], people: Map<string, string>): SafeHtml {
  return html`<section aria-labelledby="notes-title"><h2 id="notes-title">Team notes <span class="tag">team only</span></h2>
<p class="hint">Only members of your company see these: not the reporter, not their status page, not any mail.</p>
${notes.length === 0 ? html`<p class="hint">No notes yet.</p>` : ''}
<ol class="thread">${notes.map((n) => html`<li class="msg msg-note"><p class="hint">${n.authorId ? (people.get(n.authorId) ?? 'a former member') : 'an API key'} · <time datetime="${n.createdAt}">${utc(n.createdAt)}</time></p><pre class="reporter-text">${n.body}</pre></li>`)}</ol>
${
  sessionMay(s, 'triage')
    ? html`<form method="post" action="/reports/${id}/notes" class="narrow">${csrfField(s)}
<div class="field"><label for="note-body">Add a team note</label><textarea id="note-body" name="body" rows="3" required></textarea></div>
<button type="submit">Add note</button></form>`
    : ''
}</section>`;
}
