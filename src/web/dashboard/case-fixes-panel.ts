import type { CaseFixView } from '../../modules/cases/case-fixes.schemas.js';
import { fixList } from '../coordination/shared-fixes.js';
import { FIX_KINDS } from '../../modules/cases/case-fixes.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { label } from '../labels.js';
import { csrfField, sessionMay } from './dashboard-layout.js';

/** The case page's "Sharing the fix" (CRA Article 13(6)): the fixes and, for the team, the form to attach one. */
export function caseFixesPanel(
  s: SessionView,
  caseId: string,
  open: boolean,
  fixes: readonly CaseFixView[],
  v: Record<string, string>,
  e: Record<string, string>,
): SafeHtml {
  const kind = v.fixKind ?? 'patch';
  return html`<section aria-labelledby="fixes-title"><h2 id="fixes-title">Sharing the fix</h2>
<p class="hint">Upstream maintainers among the participants see these through their private link or their inbound case; e-mail carries them only when it is encrypted.</p>
${fixes.length === 0 ? html`<p class="hint">No fix shared yet.</p>` : fixList(fixes)}
${
  sessionMay(s, 'triage') && open
    ? html`<form method="post" action="/cases/${caseId}/fixes" novalidate>${csrfField(s)}
<div class="field"><label for="fix-kind">Kind</label><select id="fix-kind" name="fixKind">${FIX_KINDS.map((k) => html`<option value="${k}" ${k === kind ? html`selected` : ''}>${label('fixKind', k)}</option>`)}</select></div>
<div class="field"><label for="fix-body">Patch or description</label><textarea id="fix-body" name="fixBody" rows="10" spellcheck="false" ${e.fixBody ? html`aria-invalid="true" aria-describedby="fix-body-error"` : ''}>${v.fixBody ?? ''}</textarea>${e.fixBody ? html`<p class="error" id="fix-body-error">${e.fixBody}</p>` : ''}
<p class="hint">A patch is a unified diff (git diff, diff -u), at most 262,144 characters; a description is plain text, at most 16,384.</p></div>
<div class="field"><label class="check"><input type="checkbox" id="fix-osv" name="osvDraft" value="yes" ${v.osvDraft === 'yes' ? html`checked` : ''}> Attach an OSV draft of the upstream advisory, made from the case's first report</label>${e.osvDraft ? html`<p class="error" id="fix-osv-error">${e.osvDraft}</p>` : ''}</div>
<button type="submit" id="add-fix">Share the fix</button></form>`
    : ''
}</section>`;
}
