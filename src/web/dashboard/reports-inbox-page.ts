import { INBOX_TABS, type InboxCounts, type InboxPage, type InboxQuery } from '../../modules/article14/list-inbox.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html } from '../html.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { type BulkTyped, bulkFields, type MemberOption, memberSelect, NO_BULK } from './inbox-bulk-form.js';
import { deadlineBadge, openedByCradleTag, responseBadge, statusBadge } from './report-badges.js';
import { savedFiltersPanel, type SavedFiltersView } from './saved-filters-panel.js';
import { label } from '../labels.js';

const TAB_LABEL: Record<string, string> = { open: 'Open', closed: 'Closed', all: 'All', deadlines: 'Article 14 deadlines' };
const tabLabel = (t: string): string => {
  const words = TAB_LABEL[t] ?? label('reportState', t);
  return words.charAt(0).toUpperCase() + words.slice(1);
};
const age = (d: Date, now: Date): string => {
  const h = Math.floor((now.getTime() - d.getTime()) / 3_600_000);
  return h < 1 ? 'under 1 h' : h < 48 ? `${h} h` : `${Math.floor(h / 24)} d`;
};

export type InboxView = {
  members: MemberOption[];
  notices: { kind: 'ok' | 'bad'; text: string }[];
  /** The bulk form as typed, when a change was refused. */
  typed?: BulkTyped;
  saved: SavedFiltersView;
  /** The reports of this page Cradle opened itself (known-vulnerability matches). */
  selfOpened?: ReadonlySet<string>;
};

/**
 * The inbox: tabs by state, filters as a GET form (bookmarkable, no script), paged; members who
 * triage tick reports and change them together (one POST, docs/workflow.md "Bulk actions").
 */
export function reportsInboxPage(s: SessionView, q: InboxQuery, p: InboxPage, counts: InboxCounts, products: string[], now: Date, v: InboxView): string {
  const typed = v.typed ?? NO_BULK;
  const chosen = new Set(typed.ids);
  const people = new Map(v.members.map((m) => [m.id, m.email]));
  const bulk = sessionMay(s, 'triage');
  // Pager and tab links keep the saved filter the page was reached through (its notice, its highlight).
  const link = (over: Partial<Record<keyof InboxQuery, string | number>>) => {
    const params: Record<string, string> = v.saved.applied ? { saved: v.saved.applied } : {};
    for (const [k, x] of Object.entries({ ...q, ...over })) if (x !== undefined && x !== '' && !(k === 'page' && x === 1)) params[k] = String(x);
    return `/reports?${new URLSearchParams(params)}`;
  };
  return dashboardPage({
    title: 'Reports',
    session: s,
    current: '/reports',
    attention: counts.overdue,
    body: html`${v.notices.map((n) => html`<div class="notice ${n.kind}" role="${n.kind === 'bad' ? 'alert' : 'status'}">${n.text}</div>`)}<h1>Reports</h1>
<p class="downloads"><a href="/reports/export" download>Download every report as CSV</a> <span class="hint">(the facts of each: state, severity, CWE, Article 14 facts; not what the reporters wrote)</span></p>
${counts.overdue > 0 ? html`<div class="notice bad" role="alert"><strong>${counts.overdue} report${counts.overdue === 1 ? '' : 's'} with an overdue Article 14 stage.</strong> <a href="/reports?tab=deadlines">Show deadlines</a></div>` : ''}
${counts.responseOverdue > 0 ? html`<div class="notice bad" role="alert"><strong>${counts.responseOverdue} report${counts.responseOverdue === 1 ? '' : 's'} past the response time promised on your portal.</strong></div>` : ''}
${counts.dueSoon > 0 ? html`<div class="notice warn">${counts.dueSoon} Article 14 stage${counts.dueSoon === 1 ? '' : 's'} due within 6 hours.</div>` : ''}
<nav class="tabs" aria-label="Report states">${INBOX_TABS.map((t) => html`<a href="${link({ tab: t, page: 1 })}" ${t === q.tab ? html`aria-current="page"` : ''}>${tabLabel(t)}${t === 'new' ? html` (${counts.new})` : t === 'triaging' ? html` (${counts.triaging})` : ''}</a>`)}
<a href="${link({ assignee: 'me', page: 1 })}" ${q.assignee === 'me' ? html`aria-current="true"` : ''}>My reports</a></nav>
<form method="get" action="/reports" class="filters"><input type="hidden" name="tab" value="${q.tab}">
<div class="field"><label for="severity">Severity</label><select id="severity" name="severity"><option value="">any</option>
${['critical', 'high', 'medium', 'low', 'none', 'unrated'].map((v) => html`<option value="${v}" ${v === q.severity ? html`selected` : ''}>${v}</option>`)}</select></div>
<div class="field"><label for="product">Product</label><select id="product" name="product"><option value="">any</option>
${products.map((v) => html`<option value="${v}" ${v === q.product ? html`selected` : ''}>${v}</option>`)}</select></div>
<div class="field"><label for="assignee">Assignee</label>${memberSelect(
      'assignee',
      'assignee',
      v.members,
      q.assignee === s.user.id ? 'me' : (q.assignee ?? ''),
      [
        ['', 'anyone'],
        ['me', 'my reports'],
        ['none', 'unassigned'],
      ],
    )}</div>
<div class="field"><label for="search">Search</label><input type="text" id="search" name="search" value="${q.search ?? ''}" maxlength="200" placeholder="words in the description or product"></div>
<div class="field"><label for="clock">Clocks</label><select id="clock" name="clock"><option value="">any</option>
${(
  [
    ['due_soon', 'due soon'],
    ['overdue', 'overdue'],
  ] as const
).map(([v, text]) => html`<option value="${v}" ${v === q.clock ? html`selected` : ''}>${text}</option>`)}</select></div>
<div class="field"><label for="sort">Order</label><select id="sort" name="sort"><option value="newest">newest first</option><option value="oldest" ${q.sort === 'oldest' ? html`selected` : ''}>oldest first</option></select></div>
<div class="field"><button type="submit">Filter</button> <a href="/reports?tab=${q.tab}">Clear</a></div>
</form>
${savedFiltersPanel(s, q, v.saved)}
${
  p.items.length === 0
    ? html`<p>No reports here.</p>`
    : html`${bulk ? html`<form method="post" action="/reports/bulk">${csrfField(s)}` : ''}<table class="data inbox"><thead><tr>${bulk ? html`<th><span class="visually-hidden">Select</span></th>` : ''}<th>Report</th><th>Assignee</th><th>Status</th><th>Severity</th><th>Product</th><th>Age</th><th>Response</th><th>Article 14</th></tr></thead><tbody>
${p.items.map(
  (
    r,
  ) => html`<tr class="${r.deadline?.state === 'overdue' || r.response?.state === 'overdue' ? 'overdue' : ''}">${bulk ? html`<td><input type="checkbox" name="ids" value="${r.id}" aria-label="Select report ${r.id.slice(0, 8)}" ${chosen.has(r.id) ? html`checked` : ''}></td>` : ''}<td><a href="/reports/${r.id}">${r.excerpt}</a>${openedByCradleTag(v.selfOpened?.has(r.id) ?? false)}<br><code class="hint">${r.id.slice(0, 8)}</code></td>
<td>${r.assigneeId ? (people.get(r.assigneeId) ?? 'a former member') : html`<span class="hint">nobody</span>`}</td>
<td>${statusBadge(r.status)}</td><td>${r.severity ? label('severity', r.severity) : html`<span class="hint">unrated</span>`}${r.cvssScore !== null ? html` <span class="hint">${r.cvssScore.toFixed(1)}</span>` : ''}</td>
<td>${r.productName ?? html`<span class="hint">not given</span>`}</td><td><time datetime="${r.createdAt.toISOString()}">${age(r.createdAt, now)}</time></td><td>${responseBadge(r.response, now)}</td><td>${deadlineBadge(r.deadline, now)}</td></tr>`,
)}
</tbody></table>${bulk ? html`${bulkFields(v.members, typed)}</form>` : ''}`
}
<p class="pager">${p.page > 1 ? html`<a href="${link({ page: p.page - 1 })}" rel="prev">Newer page</a> ` : ''}Page ${p.page} of ${p.pages} (${p.total} report${p.total === 1 ? '' : 's'})${p.page < p.pages ? html` <a href="${link({ page: p.page + 1 })}" rel="next">Next page</a>` : ''}</p>`,
  });
}
