import type { Article14View } from '../../modules/article14/article14.js';
import type { MessageView } from '../../modules/messages/messages.js';
import type { ReportView } from '../../modules/reports/get-report.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import type { HistoryEntry } from '../../modules/reports/report-history.js';
import type { Awareness } from '../../modules/known-vulns/awareness.schemas.js';
import type { SuggestionView } from '../../modules/triage/triage-suggestions.js';
import { ADVISORY_REPORT_STATES } from '../../modules/advisories/create-advisory.js';
import type { AdvisoryRow } from '../../modules/advisories/advisory-rows.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { OPENED_BY_CRADLE, statusBadge } from './report-badges.js';
import { utc } from '../times.js';
import { coordinationPanel, type ReportCoordination } from './case-panel.js';
import { article14Panel, factsForm, severityForm, statusForm, type TypedForm } from './report-forms.js';
import { textField } from '../form-fields.js';
import { label } from '../labels.js';
import type { ReportNote } from '../../modules/reports/report-notes.js';
import type { MemberOption } from './inbox-bulk-form.js';
import { assigneeForm, notesPanel } from './report-team-panel.js';

export type ReportPageData = {
  session: SessionView;
  report: ReportView;
  suggestion: SuggestionView | null;
  article14: Article14View;
  messages: MessageView[];
  notes: ReportNote[];
  members: MemberOption[];
  history: HistoryEntry[];
  /** The report's advisories (newest first; at most one not withdrawn). */
  advisories: Pick<AdvisoryRow, 'id' | 'trackingId' | 'status'>[];
  /** Company user id -> e-mail, to name the people in history and thread. */
  people: Map<string, string>;
  now: Date;
  attention: number;
  coordination: ReportCoordination;
  notice?: { kind: 'ok' | 'bad'; text: string } | undefined;
  /** A refused form's posted values, shown again in that form. */
  typed?: TypedForm;
  /** The awareness decision from which Cradle opened the report itself; null for a filed report. */
  openedBy?: Awareness | null;
};

const text = (label: string, v: string | null): SafeHtml => (v ? html`<h3>${label}</h3><pre class="reporter-text">${v}</pre>` : html``);

/**
 * A report Cradle opened itself from a confirmed known-vulnerability match: its text is Cradle's
 * (and the confirming member's note), so it is labelled as such rather than as a reporter's.
 */
function selfOpened(r: ReportView, a: Awareness): SafeHtml {
  return html`<section class="self-opened" aria-labelledby="opened-title">
<h2 id="opened-title">${OPENED_BY_CRADLE} <span class="tag">known vulnerability</span></h2>
<p class="hint">Cradle opened this report itself when the team confirmed awareness of <a href="/known-vulnerabilities?vulnerability=${encodeURIComponent(a.vulnerability)}">${a.vulnerability}</a> in ${a.productIdentifier}${a.decidedAt ? html` at ${utc(a.decidedAt)}` : ''}. No reporter wrote it.</p>
${text('Description', r.description)}
<dl class="facts"><dt>Product</dt><dd>${r.productName ?? 'not given'}</dd></dl>
</section>`;
}

/** Everything the researcher wrote, escaped and framed as untrusted: reports are hostile input. */
export function untrusted(r: ReportView): SafeHtml {
  return html`<section class="untrusted" aria-labelledby="untrusted-title">
<h2 id="untrusted-title">Written by the reporter <span class="tag">untrusted</span></h2>
<p class="hint">Shown as plain text. Links are not clickable; do not follow instructions in it or run its commands outside a lab.</p>
${text('Description', r.description)}${text('Steps to reproduce', r.stepsToReproduce)}${text('Impact', r.impact)}
<dl class="facts"><dt>Product (as given)</dt><dd>${r.productName ?? 'not given'}</dd><dt>Type (as given)</dt><dd>${r.vulnerabilityType ? label('vulnerabilityType', r.vulnerabilityType) : 'not given'}</dd>
<dt>Contact</dt><dd>${r.contactEmail ?? 'anonymous'}</dd></dl>
${text('OpenPGP key', r.pgpKey)}
</section>`;
}

function suggestionPanel(s: SessionView, id: string, g: SuggestionView | null): SafeHtml {
  if (!g) return html`<h2>Triage suggestion</h2><p class="hint">None: AI triage is off for this company, or it has not run yet.</p>`;
  return html`<section class="suggestion" aria-labelledby="suggestion-title"><h2 id="suggestion-title">Triage suggestion <span class="tag">${g.source}</span> <span class="tag">${label('suggestionDecision', g.decision)}</span></h2>
<p class="hint">A suggestion only: nothing here is applied until you act on it with the forms below.</p>
<dl class="facts">
<dt>Type</dt><dd>${g.vulnerabilityType ? html`${label('vulnerabilityType', g.vulnerabilityType.value)} <span class="hint">(confidence ${g.vulnerabilityType.confidence})</span>` : 'no guess'}</dd>
<dt>Severity</dt><dd>${label('severity', g.severity.level)}: ${g.severity.reason}</dd>
${g.cwe ? html`<dt>CWE</dt><dd>${g.cwe}</dd>` : ''}
<dt>Likely duplicates</dt><dd>${g.duplicates.length === 0 ? 'none found' : g.duplicates.map((d) => html`<a href="/reports/${d.reportId}">${d.reportId.slice(0, 8)}</a> (${Math.round(d.similarity * 100)} % similar) `)}</dd>
<dt>Spam likelihood</dt><dd>${Math.round(g.spam.likelihood * 100)} %${g.spam.signals.length ? html` <span class="hint">${g.spam.signals.join('; ')}</span>` : ''}</dd>
<dt>Summary</dt><dd>${g.summary}</dd>
${g.note ? html`<dt>Note</dt><dd>${g.note}</dd>` : ''}
</dl>
${
  g.decision === 'pending'
    ? !sessionMay(s, 'triage')
      ? html`<p class="hint">pending a decision</p>`
      : html`<form method="post" action="/reports/${id}/suggestion" class="inline">${csrfField(s)}<button type="submit" name="decision" value="accepted" class="secondary">Accept</button> <button type="submit" name="decision" value="dismissed" class="secondary">Dismiss</button></form>`
    : html`<p class="hint">${label('suggestionDecision', g.decision)} by ${g.decidedBy ?? ''} at ${g.decidedAt ? utc(g.decidedAt) : ''}</p>`
}
</section>`;
}

function thread(s: SessionView, id: string, messages: MessageView[], people: Map<string, string>, typed: TypedForm): SafeHtml {
  return html`<section aria-labelledby="thread-title"><h2 id="thread-title">Messages with the reporter</h2>
${messages.length === 0 ? html`<p class="hint">No messages yet. The reporter reads and answers them through their private status link.</p>` : ''}
<ol class="thread">${messages.map((m) => html`<li class="msg msg-${m.author}"><p class="hint">${m.author === 'researcher' ? html`Reporter <span class="tag">untrusted</span>` : `You (${m.authorId ? (people.get(m.authorId) ?? 'a team member') : 'the team'})`} · <time datetime="${m.createdAt}">${utc(m.createdAt)}</time></p><pre class="reporter-text">${m.body}</pre></li>`)}</ol>
${
  sessionMay(s, 'triage')
    ? html`<form method="post" action="/reports/${id}/messages" class="narrow">${csrfField(s)}
<div class="field"><label for="reply-body">Reply to the reporter</label><textarea id="reply-body" name="body" rows="4" required>${typed?.form === 'message' ? textField(typed.values.body) : ''}</textarea>
<p class="hint">The reporter sees it on their status page. Never paste secrets here.</p></div>
<button type="submit">Send reply</button></form>`
    : ''
}</section>`;
}

/** The report's facts as the history names them. */
const FACTS: Record<string, string> = {
  cvssVector: 'CVSS vector',
  cvssScore: 'CVSS score',
  severity: 'severity',
  cwe: 'CWE',
  duplicateOf: 'duplicate of',
  activelyExploited: 'actively exploited',
  exploitationEvidence: 'evidence of exploitation',
  awareAt: 'aware at',
  severeIncident: 'severe incident',
  fixAvailableAt: 'fix available since',
  memberStates: 'Member States',
  componentPurl: 'third-party component',
};
const factValue = (k: string, v: unknown): string =>
  v === null
    ? 'cleared'
    : typeof v === 'boolean'
      ? v
        ? 'yes'
        : 'no'
      : Array.isArray(v)
        ? v.join(', ') || 'none'
        : k === 'severity'
          ? label('severity', String(v))
          : k.endsWith('At') && typeof v === 'string'
            ? utc(v)
            : String(v);

function describeChange(h: HistoryEntry, people: Map<string, string>): string {
  const facts = Object.entries(h.changes)
    .filter(([k]) => k !== 'status')
    // An assignee is named by address, as everywhere on the page.
    .map(([k, v]) =>
      k === 'assigneeId' ? `assignee: ${typeof v === 'string' ? (people.get(v) ?? 'a former member') : 'cleared'}` : `${FACTS[k] ?? k}: ${factValue(k, v)}`,
    );
  return [h.fromStatus && h.toStatus ? `${label('reportState', h.fromStatus)} → ${label('reportState', h.toStatus)}` : '', ...facts].filter(Boolean).join('; ');
}

function historyList(r: ReportView, history: HistoryEntry[], people: Map<string, string>): SafeHtml {
  const who = (actor: string) => (actor.startsWith('user:') ? (people.get(actor.slice(5)) ?? actor) : actor);
  return html`<section aria-labelledby="history-title"><h2 id="history-title">History</h2><ol class="timeline">
<li><time datetime="${r.createdAt}">${utc(r.createdAt)}</time> filed through ${label('reportSource', r.source)}</li>
${history.map((h) => html`<li><time datetime="${h.at.toISOString()}">${utc(h.at)}</time> ${who(h.actor)}: ${describeChange(h, people)}</li>`)}
</ol></section>`;
}

/** The report's advisory: a link to it, or (fixed or disclosed, none live) the button that drafts one. */
function advisoryPanel(s: SessionView, r: ReportView, list: ReportPageData['advisories']): SafeHtml {
  const live = list.find((a) => a.status !== 'withdrawn');
  const links = list.map((a) => html`<li><a href="/advisories/${a.id}"><code>${a.trackingId}</code></a> ${label('advisoryState', a.status)}</li>`);
  const canDraft = !live && (ADVISORY_REPORT_STATES as readonly string[]).includes(r.status) && sessionMay(s, 'triage');
  return html`<section aria-labelledby="advisory-title"><h2 id="advisory-title">Advisory</h2>
${list.length ? html`<ul>${links}</ul>` : canDraft ? '' : html`<p class="hint">An advisory is drafted once the report is ${ADVISORY_REPORT_STATES.map((st) => label('reportState', st)).join(' or ')}.</p>`}
${
  canDraft
    ? html`<form method="post" action="/advisories" class="inline">${csrfField(s)}<input type="hidden" name="vulnerabilityId" value="${r.submissionId}">
<button type="submit">Create advisory</button> <span class="hint">A CSAF 2.0 draft prefilled from this report, its products and SBOMs; nothing is public until you publish it.</span></form>`
    : ''
}</section>`;
}

/** The report page: the full report (untrusted text escaped), suggestion, actions, clocks, thread, history. */
export function reportPage(d: ReportPageData): string {
  const r = d.report;
  const s = d.session;
  return dashboardPage({
    title: `Report ${r.submissionId.slice(0, 8)}`,
    session: s,
    current: '/reports',
    attention: d.attention,
    notice: d.notice,
    body: html`<p><a href="/reports">← Reports</a></p>
<h1>Report <code>${r.submissionId.slice(0, 8)}</code> ${statusBadge(r.status)}</h1>
<dl class="facts"><dt>Submission id</dt><dd><code>${r.submissionId}</code></dd><dt>Received</dt><dd>${utc(r.createdAt)} ${d.openedBy ? 'opened by Cradle from a known-vulnerability match, confirmed in' : 'through'} ${label('reportSource', r.source)}</dd>
<dt>Last change</dt><dd>${utc(r.updatedAt)}</dd>
<dt>Severity</dt><dd id="severity">${r.severity ? html`${label('severity', r.severity)} (${r.cvssScore}) <code>${r.cvssVector}</code>` : 'not rated'}</dd>
<dt>CWE</dt><dd>${r.cwe ?? 'not set'}</dd>
<dt>Assignee</dt><dd id="assignee">${r.assigneeId ? (d.people.get(r.assigneeId) ?? 'a former member') : 'nobody'}</dd>
${r.duplicateOf ? html`<dt>Duplicate of</dt><dd><a href="/reports/${r.duplicateOf}">${r.duplicateOf}</a></dd>` : ''}</dl>
${d.openedBy ? selfOpened(r, d.openedBy) : untrusted(r)}
${suggestionPanel(s, r.submissionId, d.suggestion)}
<h2>Triage</h2>
<div class="forms">${statusForm(s, r, d.typed)}${severityForm(s, r, d.typed)}${assigneeForm(s, r, d.members)}</div>
${article14Panel(s, r, d.article14, d.now, d.typed)}
${factsForm(s, r, d.typed)}
${advisoryPanel(s, r, d.advisories)}
${coordinationPanel(s, r.submissionId, d.coordination)}
${thread(s, r.submissionId, d.messages, d.people, d.typed)}
${notesPanel(s, r.submissionId, d.notes, d.people)}
${historyList(r, d.history, d.people)}`,
  });
}
