import type { AdvisoryView } from '../../modules/advisories/advisories.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html } from '../html.js';
import { dashboardPage } from './dashboard-layout.js';

const STATE_TEXT: Record<AdvisoryView['status'], string> = { draft: 'Draft (not public)', published: 'Published', withdrawn: 'Withdrawn' };

/**
 * The company's advisories at a glance: state, version, edits waiting for a revision, and where the
 * released document is. Editing goes through the API (`/api/v1/advisories`), documented on the page.
 */
export function advisoriesPage(s: SessionView, list: AdvisoryView[], portal: string): string {
  return dashboardPage({
    title: 'Advisories',
    session: s,
    current: '/advisories',
    body: html`<h1>Security advisories</h1>
<p class="lead">CSAF 2.0 advisories and VEX of ${s.company.name}. Released ones are public on the
<a href="${portal}/advisories">portal</a> and in its <a href="${portal}/.well-known/csaf/provider-metadata.json">CSAF provider</a>.
Create, edit, publish, revise and withdraw them with the API: <code>POST /api/v1/advisories</code> and the operations below it in <a href="/openapi.json">openapi.json</a>.</p>
${
  list.length === 0
    ? html`<p>No advisories yet. Create a draft from a fixed report with <code>POST /api/v1/advisories {"vulnerabilityId": "..."}</code>.</p>`
    : html`<table class="data"><thead><tr><th>Advisory</th><th>Title</th><th>State</th><th>Version</th><th>Last release</th><th>Document</th></tr></thead><tbody>
${list.map(
  (
    a,
  ) => html`<tr><td><code>${a.trackingId}</code></td><td>${a.title}</td><td>${STATE_TEXT[a.status]}${a.pendingChanges ? html`<br><span class="hint">edits waiting for a revision</span>` : ''}</td>
<td>${a.version ?? ''}</td><td>${a.currentReleaseAt ? html`<time datetime="${a.currentReleaseAt}">${a.currentReleaseAt.slice(0, 10)}</time>` : ''}</td>
<td>${a.publicUrl ? html`<a href="${a.publicUrl}">CSAF</a>` : ''}</td></tr>`,
)}
</tbody></table>`
}`,
  });
}
