import type { StageStatus } from '../../modules/article14/article14-clock.js';
import type { InboxCounts } from '../../modules/article14/list-inbox.js';
import type { ResponseClock } from '../../modules/reports/response-clocks.js';
import { html, type SafeHtml } from '../html.js';
import { label } from '../labels.js';
import { utc } from '../times.js';

export const stageLabel = (s: string): string => label('article14Stage', s);

/** "in 3 h 20 min" / "5 h 2 min overdue": the distance to a due time, in words. */
export function untilText(dueAt: string, now: Date): string {
  const ms = Date.parse(dueAt) - now.getTime();
  const mins = Math.round(Math.abs(ms) / 60_000);
  const d = Math.floor(mins / 1440);
  const h = Math.floor((mins % 1440) / 60);
  const m = mins % 60;
  const span = d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min`;
  return ms < 0 ? `${span} overdue` : `in ${span}`;
}

/** The Article 14 badge of a report: next stage, its due time, overdue and due-soon marked. */
export function deadlineBadge(s: StageStatus | null, now: Date): SafeHtml {
  if (!s?.dueAt) return html``;
  const cls = s.state === 'overdue' ? 'badge overdue' : s.state === 'due_soon' ? 'badge due-soon' : 'badge';
  return html`<span class="${cls}" title="Article 14 ${stageLabel(s.stage)} due ${utc(s.dueAt)}">Art. 14 ${stageLabel(s.stage)}: <time datetime="${s.dueAt}">${untilText(s.dueAt, now)}</time></span>`;
}

const CLOCK_LABEL: Record<ResponseClock['clock'], string> = { acknowledge: 'Acknowledge', assess: 'Assess' };

/** The response-time badge of a report: the promised acknowledgement or assessment, due soon and overdue marked. */
export function responseBadge(c: ResponseClock | null, now: Date): SafeHtml {
  if (!c) return html``;
  const cls = c.state === 'overdue' ? 'badge overdue' : c.state === 'due_soon' ? 'badge due-soon' : 'badge';
  return html`<span class="${cls}" title="Promised on the portal: due ${utc(c.dueAt)}">${CLOCK_LABEL[c.clock]}: <time datetime="${c.dueAt}">${untilText(c.dueAt, now)}</time></span>`;
}

/**
 * The mark of a report Cradle opened itself from a confirmed known-vulnerability match, wherever a
 * report is listed: the company's own record, not an untrusted reporter's submission.
 */
export const OPENED_BY_CRADLE = 'Opened by Cradle';
export const openedByCradleTag = (opened: boolean): SafeHtml => (opened ? html` <span class="tag opened-by-cradle">${OPENED_BY_CRADLE}</span>` : html``);

export const statusBadge = (status: string): SafeHtml => html`<span class="state state-${status}">${label('reportState', status)}</span>`;

/** The dashboard home's figures, each a link into the inbox. */
export const reportCounts = (c: InboxCounts): SafeHtml => html`<ul class="counts" aria-label="Reports">
<li><a href="/reports?tab=new"><strong id="count-new">${c.new}</strong> new</a></li>
<li><a href="/reports?tab=triaging"><strong id="count-triaging">${c.triaging}</strong> in triage</a></li>
<li class="${c.overdue > 0 ? 'overdue' : ''}"><a href="/reports?tab=deadlines"><strong id="count-overdue">${c.overdue}</strong> overdue Article 14</a></li>
<li class="${c.dueSoon > 0 ? 'due-soon' : ''}"><a href="/reports?tab=deadlines"><strong>${c.dueSoon}</strong> due within 6 h</a></li>
<li><a href="/reports"><strong>${c.open}</strong> open in all</a></li>
<li class="${c.responseOverdue > 0 ? 'overdue' : ''}"><a href="/reports?tab=open"><strong id="count-response-overdue">${c.responseOverdue}</strong> past a promised response time</a></li>
<li class="${c.responseDueSoon > 0 ? 'due-soon' : ''}"><a href="/reports?tab=open"><strong>${c.responseDueSoon}</strong> response due within a day</a></li>
<li><a href="/reports?assignee=none"><strong id="count-unassigned">${c.unassigned}</strong> open unassigned</a></li>
<li><a href="/reports?assignee=me"><strong id="count-mine">${c.mine}</strong> open assigned to me</a></li>
</ul>`;
