import { html, type SafeHtml } from './html.js';

/**
 * Times as people read them on every page (dashboard, portal, participant pages): to the second,
 * with their zone, `2026-11-20 08:00:17 UTC`. Cradle stores instants in UTC and the pages say so
 * rather than guess the reader's zone; the `<time datetime>` element keeps the exact instant for
 * machines. One formatter for all pages, so no page prints minutes or leaves the zone unsaid.
 */
export function utc(at: string | Date): string {
  const d = typeof at === 'string' ? new Date(at) : at;
  // A stored value that is not a time (never expected) is shown as it is rather than crash the page.
  return Number.isNaN(d.getTime()) ? String(at) : `${d.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** `utc` inside a `<time datetime>` element; an empty or missing time renders `empty`. */
export const timeTag = (at: string | Date | null | undefined, empty = ''): SafeHtml =>
  at ? html`<time datetime="${typeof at === 'string' ? at : at.toISOString()}">${utc(at)}</time>` : html`${empty}`;

/**
 * The calendar day of a date people think of as a day (placed on the market, end of support, a
 * review or deadline day, a form's `type="date"` value): `2026-11-20`; empty when there is none.
 * Instants (something happened, someone acted) go through `utc`/`timeTag` instead.
 */
export const calendarDay = (at: string | null | undefined): string => (at ? at.slice(0, 10) : '');
