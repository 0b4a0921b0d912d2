import type { AdvisoryView } from '../../modules/advisories/advisories.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html } from '../html.js';
import { dashboardPage } from './dashboard-layout.js';
import { timeTag } from '../times.js';

const STATE_TEXT: Record<AdvisoryView['status'], string> = { draft: 'Draft (not public)', published: 'Published', withdrawn: 'Withdrawn' };

/**
 * The company's advisories at a glance: state, version, edits waiting for a revision, and where the
 * released document is. Each opens its own page (advisory-page.ts) to edit and release it.
 */
export function advisoriesPage(s: SessionView, list: AdvisoryView[], portal: string, notice?: { kind: 'ok' | 'bad'; text: string }): string {
  return dashboardPage({
    title: 'Advisories',
    session: s,
    current: '/advisories',
    notice,
    body: html`<h1>Security advisories</h1>
<p class="lead">CSAF 2.0 advisories and VEX of ${s.company.name}. Released ones are public on the
<a href="${portal}/advisories">portal</a> and in its <a href="${portal}/.well-known/csaf/provider-metadata.json">CSAF provider</a>.
A draft is made from a fixed report (the <em>Create advisory</em> button on the report's page), edited and published here;
the API does the same (<code>/api/v1/advisories</code>, <a href="/openapi.json">openapi.json</a>).</p>
${
  list.length === 0
    ? html`<p>No advisories yet. Open a fixed report in <a href="/reports">Reports</a> and create its advisory there.</p>`
    : html`<table class="data"><thead><tr><th>Advisory</th><th>Title</th><th>State</th><th>Version</th><th>Last release</th><th>Document</th></tr></thead><tbody>
${list.map(
  (
    a,
  ) => html`<tr><td><a href="/advisories/${a.id}"><code>${a.trackingId}</code></a></td><td>${a.title}</td><td>${STATE_TEXT[a.status]}${a.pendingChanges ? html`<br><span class="hint">edits waiting for a revision</span>` : ''}</td>
<td>${a.version ?? ''}</td><td>${timeTag(a.currentReleaseAt)}</td>
<td>${a.publicUrl ? html`<a href="${a.publicUrl}">CSAF</a>` : ''}</td></tr>`,
)}
</tbody></table>`
}`,
  });
}
