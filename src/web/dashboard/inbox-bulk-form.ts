import { REPORT_STATES } from '../../modules/reports/lifecycle.js';
import { html, type SafeHtml } from '../html.js';

/** A member as the inbox's pickers name them. */
export type MemberOption = { id: string; email: string };

/** What was typed into the bulk form, shown again when the change was refused. */
export type BulkTyped = { ids: string[]; status: string; duplicateOf: string; assigneeId: string; reason: string };
export const NO_BULK: BulkTyped = { ids: [], status: '', duplicateOf: '', assigneeId: '', reason: '' };

/** The assignee picker: `extra` options first (anyone, me, unassigned ...), then each member. */
export const memberSelect = (id: string, name: string, members: MemberOption[], chosen: string, extra: [string, string][]): SafeHtml =>
  html`<select id="${id}" name="${name}">${extra.map(([v, label]) => html`<option value="${v}" ${v === chosen ? html`selected` : ''}>${label}</option>`)}
${members.map((m) => html`<option value="${m.id}" ${m.id === chosen ? html`selected` : ''}>${m.email}</option>`)}</select>`;

/** The selected reports' change (docs/workflow.md "Bulk actions"): state, duplicate, assignee, reason. */
export function bulkFields(members: MemberOption[], typed: BulkTyped): SafeHtml {
  return html`<fieldset class="bulk"><legend>With the selected reports</legend>
<div class="field"><label for="bulk-status">Move to</label><select id="bulk-status" name="status"><option value="">(keep the state)</option>
${REPORT_STATES.map((t) => html`<option value="${t}" ${t === typed.status ? html`selected` : ''}>${t.replaceAll('_', ' ')}</option>`)}</select></div>
<div class="field"><label for="bulk-duplicateOf">Original report id (when closing as duplicate)</label><input type="text" id="bulk-duplicateOf" name="duplicateOf" value="${typed.duplicateOf}" spellcheck="false"></div>
<div class="field"><label for="bulk-assignee">Assign to</label>${memberSelect('bulk-assignee', 'assigneeId', members, typed.assigneeId, [
    ['', '(keep the assignee)'],
    ['none', 'nobody (unassign)'],
  ])}</div>
<div class="field"><label for="bulk-reason">Reason (kept as a team note on each report)</label><textarea id="bulk-reason" name="reason" rows="2">${typed.reason}</textarea></div>
<button type="submit">Apply to selected</button></fieldset>`;
}
