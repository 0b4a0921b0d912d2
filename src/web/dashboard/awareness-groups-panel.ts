import { awarenessTally } from '../../modules/known-vulns/awareness-groups.js';
import type { AwarenessGroup } from '../../modules/known-vulns/awareness-groups.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, sessionMay } from './dashboard-layout.js';

export const AWARENESS_BULK_PATH = '/known-vulnerabilities/awareness/bulk';

/** The awareness form as typed, when it was refused: the ticked decisions and the fields. */
export type AwarenessTyped = { ids: string[]; awareAt: string; note: string; reason: string };

/** The overview's line on the awareness decisions waiting, to their grouped form; nothing when none waits. */
export function awarenessWaiting(t: { decisions: number; groups: number }): SafeHtml {
  if (t.decisions === 0) return html``;
  const one = t.decisions === 1;
  return html`<div class="notice warn" id="awareness-waiting"><a href="/known-vulnerabilities#awareness-h"><strong>${t.decisions}</strong> known-vulnerability awareness decision${one ? '' : 's'} (CISA KEV, CRA Article 14) wait${one ? 's' : ''}</a>, in ${t.groups} vulnerability and component group${t.groups === 1 ? '' : 's'}: each group is confirmed or dismissed at once.</div>`;
}

/**
 * Pending awareness decisions (CRA Article 14) grouped by vulnerability and component package
 * (docs/known-vulnerabilities.md "Awareness decisions"): each group lists the products it reaches,
 * ticked, and members who triage confirm or dismiss the ticked ones in one post. Viewers see the
 * groups without a control.
 */
export function awarenessGroupsSection(s: SessionView, groups: AwarenessGroup[], typed?: AwarenessTyped): SafeHtml {
  if (groups.length === 0) return html``;
  const may = sessionMay(s, 'triage');
  const total = awarenessTally(groups).decisions;
  return html`<section class="attention" aria-labelledby="awareness-h"><h2 id="awareness-h">Awareness decisions waiting (CRA Article 14)</h2>
<p>These vulnerabilities are in the CISA KEV catalog (actively exploited) and in a component of a product on the market: ${total} decision${total === 1 ? '' : 's'} in ${groups.length} group${groups.length === 1 ? '' : 's'}. Confirm to record when you became aware and open an Article 14 case per product (its 24-hour early warning clock starts then), or dismiss with the reason. Cradle reports nothing to anyone by itself.</p>
${groups.map((g, i) => {
  const mine = typed && g.decisions.some((d) => typed.ids.includes(d.id)) ? typed : undefined;
  const ticked = (id: string) => (typed ? typed.ids.includes(id) : true);
  const rows = g.decisions.map(
    (d) =>
      html`<li>${may ? html`<label class="check"><input type="checkbox" name="ids" value="${d.id}" ${ticked(d.id) ? html`checked` : ''}> ` : ''}<code>${d.productIdentifier}</code> ${d.versions.length ? html`<span class="hint">${d.versions.join(', ')}</span>` : html`<span class="hint">no open match left</span>`}${may ? html`</label>` : ''}</li>`,
  );
  const heading = html`<h3><span class="badge overdue">KEV</span> ${g.vulnerability} in ${g.package ? html`<code>${g.package}</code>` : html`<span class="hint">no open component</span>`}</h3>
<p>${g.productCount} product${g.productCount === 1 ? '' : 's'}, ${g.sbomCount} SBOM${g.sbomCount === 1 ? '' : 's'}${g.versions.length ? html`; versions ${g.versions.join(', ')}` : ''}${g.kevDateAdded ? html`; in KEV since ${g.kevDateAdded}` : ''}.</p>`;
  if (!may) return html`<article class="card">${heading}<ul>${rows}</ul></article>`;
  return html`<article class="card"><form method="post" action="${AWARENESS_BULK_PATH}">${csrfField(s)}${heading}
<fieldset><legend>Products</legend><ul>${rows}</ul></fieldset>
<fieldset><legend>Confirm awareness</legend>
<div class="field"><label for="awareAt-${i}">Aware since (UTC, empty: now)</label><input type="datetime-local" step="1" id="awareAt-${i}" name="awareAt" value="${mine?.awareAt ?? ''}"></div>
<div class="field"><label for="note-${i}">Note for the reports</label><input type="text" id="note-${i}" name="note" maxlength="4000" value="${mine?.note ?? ''}"></div>
<button type="submit" name="action" value="confirm">Confirm for the ticked products and open their Article 14 cases</button></fieldset>
<fieldset><legend>Or dismiss</legend>
<div class="field"><label for="reason-${i}">Reason (kept with each decision)</label><input type="text" id="reason-${i}" name="reason" maxlength="4000" value="${mine?.reason ?? ''}"></div>
<button type="submit" name="action" value="dismiss" class="secondary">Dismiss for the ticked products</button></fieldset></form></article>`;
})}
</section>`;
}
