import type { AuditEntryView, AuditFilter } from '../../modules/audit/list-audit.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { dashboardPage } from './dashboard-layout.js';

const ACTOR_TYPES = ['user', 'api_key', 'operator', 'public', 'system'] as const;
const OUTCOMES = ['success', 'denied', 'failure'] as const;

function select(name: string, label: string, options: readonly string[], value: string | undefined): SafeHtml {
  return html`<div class="field"><label for="${name}">${label}</label><select id="${name}" name="${name}">
<option value="">any</option>${options.map((o) => html`<option value="${o}" ${o === value ? html`selected` : ''}>${o}</option>`)}</select></div>`;
}

function describe(e: AuditEntryView): string {
  const d = e.details;
  if (typeof d.method === 'string' && typeof d.path === 'string') return `${d.method} ${d.path} → ${String(d.status ?? '')}`;
  if (typeof d.tool === 'string') return `tool ${d.tool} → ${String(d.status ?? '')}`;
  return Object.entries(d)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
}

/** The audit viewer: filters as a GET form (bookmarkable, no script), newest first, paged by id. */
export function auditPage(s: SessionView, f: AuditFilter, entries: AuditEntryView[], nextBefore: number | undefined, error?: string): string {
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
${select('actorType', 'Actor', ACTOR_TYPES, f.actorType)}
<div class="field"><label for="actorId">Actor id (e.g. key id)</label><input type="text" id="actorId" name="actorId" value="${f.actorId ?? ''}"></div>
${select('outcome', 'Outcome', OUTCOMES, f.outcome)}
<div class="field"><label for="from">From</label><input type="date" id="from" name="from" value="${f.from ?? ''}"></div>
<div class="field"><label for="to">To</label><input type="date" id="to" name="to" value="${f.to ?? ''}"></div>
<div class="field"><button type="submit">Filter</button> <a href="/audit">Clear</a></div>
</form>
${
  entries.length === 0
    ? html`<p>No entries match.</p>`
    : html`<table class="data"><thead><tr><th>Time (UTC)</th><th>Actor</th><th>Action</th><th>Outcome</th><th>Details</th><th>Address</th><th>User agent</th></tr></thead><tbody>
${entries.map(
  (e) => html`<tr class="outcome-${e.outcome}"><td><time datetime="${e.at.toISOString()}">${e.at.toISOString().replace('T', ' ').slice(0, 23)}</time></td>
<td>${e.actorType}${e.actorId ? html`<br><code>${e.actorId}</code>` : ''}</td><td><code>${e.action}</code></td><td>${e.outcome}</td>
<td>${describe(e)}${e.targetId ? html`<br><span class="hint">${e.targetType ?? ''} ${e.targetId}</span>` : ''}</td><td>${e.ip ?? ''}</td><td class="ua" title="${e.userAgent ?? ''}">${(e.userAgent ?? '').length > 48 ? `${(e.userAgent ?? '').slice(0, 48)}…` : (e.userAgent ?? '')}</td></tr>`,
)}
</tbody></table>`
}
${nextBefore ? html`<p><a href="${q({ before: String(nextBefore) })}">Older entries</a></p>` : ''}`,
  });
}
