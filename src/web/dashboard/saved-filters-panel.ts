import { INBOX_CRITERIA_FIELDS } from '../../modules/article14/inbox-criteria.js';
import type { InboxQuery } from '../../modules/article14/list-inbox.js';
import type { SavedFilter } from '../../modules/article14/saved-filters.schemas.js';
import { SAVED_FILTER_NAME_MAX } from '../../modules/article14/saved-filters.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField } from './dashboard-layout.js';

/** A saved-filter form as typed, when it was refused: the filter renamed (its id), or '' for a new one. */
export type FilterTyped = { id: string; name: string };
export type SavedFiltersView = { filters: SavedFilter[]; applied?: string | undefined; typed?: FilterTyped };

/**
 * The member's saved filters beside the inbox (docs/workflow.md "Saved filters"): each a link that
 * applies it, with its rename and delete forms folded away; and a form saving the criteria in
 * effect (carried as hidden fields) under a name. Everything works without script.
 */
export function savedFiltersPanel(s: SessionView, q: InboxQuery, v: SavedFiltersView): SafeHtml {
  const typedName = (id: string, fallback: string) => (v.typed && v.typed.id === id ? v.typed.name : fallback);
  return html`<section class="saved-filters" aria-labelledby="saved-filters-title"><h2 id="saved-filters-title">Saved filters</h2>
${
  v.filters.length === 0
    ? html`<p class="hint">None yet: choose filters below, then save them under a name.</p>`
    : html`<ul class="saved-filter-list">${v.filters.map(
        (f) => html`<li><a href="/reports?saved=${f.id}" ${f.id === v.applied ? html`aria-current="true"` : ''}>${f.name}</a>${
          f.missing.length ? html` <span class="hint">(${f.missing.join('; ')})</span>` : ''
        }
<details ${v.typed?.id === f.id ? html`open` : ''}><summary>Rename or delete</summary>
<form method="post" action="/reports/saved-filters/${f.id}">${csrfField(s)}<label for="rename-${f.id}">New name</label> <input type="text" id="rename-${f.id}" name="name" value="${typedName(f.id, f.name)}" maxlength="${SAVED_FILTER_NAME_MAX}" required> <button type="submit" class="secondary">Rename</button></form>
<form method="post" action="/reports/saved-filters/${f.id}/delete">${csrfField(s)}<button type="submit" class="danger">Delete "${f.name}"</button></form></details></li>`,
      )}</ul>`
}
<form method="post" action="/reports/saved-filters" class="filters">${csrfField(s)}${INBOX_CRITERIA_FIELDS.map((k) =>
    q[k] === undefined ? '' : html`<input type="hidden" name="${k}" value="${String(q[k])}">`,
  )}
<div class="field"><label for="filter-name">Save the filters shown as</label><input type="text" id="filter-name" name="name" value="${typedName('', '')}" maxlength="${SAVED_FILTER_NAME_MAX}" required></div>
<div class="field"><button type="submit" class="secondary">Save filter</button></div></form></section>`;
}
