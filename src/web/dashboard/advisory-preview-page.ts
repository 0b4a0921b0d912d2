import type { PublishPreview } from '../../modules/advisories/release-advisory.js';
import type { AdvisoryView } from '../../modules/advisories/advisories.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html } from '../html.js';
import { advisoryBody } from '../portal/advisory-pages.js';
import { advisoryPath } from './advisory-page.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';

/**
 * `/advisories/{id}/preview`: what publishing a draft now releases, before anything is public: the
 * portal's page in the same markup the portal serves, and the CSAF document byte for byte as it
 * would be stored (dated now, version 1). The only Publish button of the dashboard sits below both
 * and names the working copy it shows, so a change made meanwhile is refused, not published unseen.
 */
export function advisoryPreviewPage(s: SessionView, a: AdvisoryView, p: PublishPreview, notice?: { kind: 'ok' | 'bad'; text: string }): string {
  const blocked = p.issues.length > 0;
  return dashboardPage({
    title: `Preview ${a.trackingId}`,
    session: s,
    current: '/advisories',
    notice,
    body: html`<p><a href="${advisoryPath(a.id)}">← Back to editing ${a.trackingId}</a></p>
<h1>Preview before publishing</h1>
<p class="lead">This is exactly what becomes public on your portal and in its CSAF feed when you publish: read it as a stranger would.</p>
${
  blocked
    ? html`<div class="notice bad" role="alert" id="release-issues"><strong>Not ready to publish.</strong><ul>${p.issues.map((i) => html`<li><code>${i.path}</code>: ${i.message}</li>`)}</ul></div>`
    : ''
}
<h2>The public page</h2>
<section class="public-preview" aria-label="The public page as the portal will show it">${advisoryBody(p.doc, p.selfUrl)}</section>
<h2>The CSAF document</h2>
<p class="hint">Served at <code>${p.selfUrl}</code> with its hashes; the VEX twin is released beside it.</p>
<pre class="document" id="csaf-preview">${p.content}</pre>
${
  sessionMay(s, 'triage') && !blocked
    ? html`<form method="post" action="${advisoryPath(a.id)}/publish" class="narrow">${csrfField(s)}<input type="hidden" name="previewedAt" value="${p.previewedAt}">
<p>Publishing releases version 1 of both documents, checked against the official CSAF 2.0 schema, and moves the report to disclosed.</p>
<button type="submit">Publish advisory</button></form>`
    : ''
}`,
  });
}
