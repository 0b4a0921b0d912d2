import type { AuditEntryView, AuditFilter } from '../../modules/audit/list-audit.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { dashboardPage } from './dashboard-layout.js';
import { timeTag } from '../times.js';
import { label, LABELS, type LabelKind } from '../labels.js';

function select(name: string, title: string, kind: LabelKind, value: string | undefined): SafeHtml {
  return html`<div class="field"><label for="${name}">${title}</label><select id="${name}" name="${name}">
<option value="">any</option>${LABELS[kind].values.map((o) => html`<option value="${o}" ${o === value ? html`selected` : ''}>${label(kind, o)}</option>`)}</select></div>`;
}

function describe(e: AuditEntryView): string {
  const d = e.details;
  if (typeof d.method === 'string' && typeof d.path === 'string') return `${d.method} ${d.path} → ${String(d.status ?? '')}`;
  if (typeof d.tool === 'string') return `tool ${d.tool} → ${String(d.status ?? '')}`;
  return Object.entries(d)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
}

/** Who acted, in words: a member by address, a key by name, Cradle itself; an id only where nothing names it any more. */
function actor(e: AuditEntryView, names: ReadonlyMap<string, string>): SafeHtml {
  const named = e.actorId ? names.get(e.actorId) : undefined;
  if (e.actorType === 'user') return named ? html`${named}` : html`a former member <span class="hint">${e.actorId?.slice(0, 8) ?? ''}</span>`;
  if (e.actorType === 'api_key')
    return named ? html`API key <q>${named}</q>` : html`a deleted API key <span class="hint">${e.actorId?.slice(0, 8) ?? ''}</span>`;
  return html`${label('auditActor', e.actorType)}`;
}

/**
 * The audit viewer: filters as a GET form (bookmarkable, no script), newest first, paged by id.
 * `names`: member ids to their address and key ids to their name, so people read who acted.
 */
export function auditPage(
  s: SessionView,
  f: AuditFilter,
  entries: AuditEntryView[],
  nextBefore: number | undefined,
  names: ReadonlyMap<string, string>,
  error?: string,
): string {
  const q = (extra: Record<string, string>) =>
    `/audit?${new URLSearchParams({
      ...Object.fromEntries(
        Object.entries(f)
          .filter(([k, v]) => v !== undefined && k !== 'before')
          .map(([k, v]) => [k, String(v)]),
      ),
      ...extra,
    })}`;
  return dashboardPage({
    title: 'Audit log',
    session: s,
    current: '/audit',
    notice: error ? { kind: 'bad', text: error } : undefined,
    body: html`<h1>Audit log</h1>
<p class="lead">Every sign-in, key change and API key use of ${s.company.name}, newest first.</p>
<form method="get" action="/audit" class="filters">
<div class="field"><label for="action">Action</label><input type="text" id="action" name="action" value="${f.action ?? ''}" placeholder="api.request, keys., session.sign_in"></div>
${select('actorType', 'Actor', 'auditActor', f.actorType)}
<div class="field"><label for="actorId">Actor id (e.g. key id)</label><input type="text" id="actorId" name="actorId" value="${f.actorId ?? ''}"></div>
${select('outcome', 'Outcome', 'auditOutcome', f.outcome)}
<div class="field"><label for="from">From</label><input type="date" id="from" name="from" value="${f.from ?? ''}"></div>
<div class="field"><label for="to">To</label><input type="date" id="to" name="to" value="${f.to ?? ''}"></div>
<div class="field"><button type="submit">Filter</button> <a href="/audit">Clear</a></div>
</form>
${
  entries.length === 0
    ? html`<p>No entries match.</p>`
    : html`<table class="data audit"><thead><tr><th>Time</th><th>Who</th><th>Action</th><th>Outcome</th><th>Details</th><th>From</th></tr></thead><tbody>
${entries.map(
  (e) => html`<tr class="outcome-${e.outcome}"><td>${timeTag(e.at)}</td>
<td>${actor(e, names)}</td><td><code>${e.action}</code></td><td>${label('auditOutcome', e.outcome)}</td>
<td>${describe(e)}${e.targetId ? html`<br><span class="hint">${e.targetType ?? ''} ${e.targetId}</span>` : ''}</td>
<td>${e.ip ?? ''}${e.userAgent ? html`<br><span class="hint ua" title="${e.userAgent}">${e.userAgent.length > 40 ? `${e.userAgent.slice(0, 40)}…` : e.userAgent}</span>` : ''}</td></tr>`,
)}
</tbody></table>`
}
${nextBefore ? html`<p><a href="${q({ before: String(nextBefore) })}">Older entries</a></p>` : ''}`,
  });
}
