import type { CaseFixView, SharedFixView } from '../../modules/cases/case-fixes.schemas.js';
import { html, type SafeHtml } from '../html.js';
import { label } from '../labels.js';
import { timeTag } from '../times.js';

/** The fixes as a list: kind, date, the text as preformatted (escaped) text, and the OSV draft when there is one. */
export function fixList(fixes: readonly (CaseFixView | SharedFixView)[]): SafeHtml {
  return html`<ol class="fixes" id="fixes">${fixes.map(
    (f, i) => html`<li data-fix="${f.id}"><p class="hint">Fix ${i + 1}: ${label('fixKind', f.kind)} · ${timeTag(f.createdAt)}</p>
<pre class="fix-body">${f.body}</pre>${f.osvDraft ? html`<details><summary>OSV draft of the upstream advisory</summary><pre class="osv-draft">${JSON.stringify(f.osvDraft, null, 2)}</pre></details>` : ''}</li>`,
  )}</ol>`;
}

/** What a participant sees under "Fixes" (the private link and an inbound case): nothing when none is shared with it. */
export function sharedFixesSection(fixes: readonly SharedFixView[]): SafeHtml {
  if (fixes.length === 0) return html``;
  return html`<h2>Fixes shared with you</h2>${fixList(fixes)}`;
}
