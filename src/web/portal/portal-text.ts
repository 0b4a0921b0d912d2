import { onFirstUse } from '../../kernel/on-first-use.js';
import { html, type SafeHtml } from '../html.js';

// Made on first use: it maps ICU's locale data into the process, which an idle server would
// otherwise keep resident (ADR 0027).
const names = onFirstUse(() => new Intl.DisplayNames(['en'], { type: 'language' }));

/** "German (de)" for a language tag; the bare tag when the runtime does not know it. */
export function languageName(tag: string): string {
  try {
    const name = names().of(tag);
    return name && name !== tag ? `${name} (${tag})` : tag;
  } catch {
    return tag;
  }
}

type Times = { responseAcknowledgeDays: number | null; responseAssessDays: number | null; responseResolveDays: number | null };
const within = (days: number | null): SafeHtml | string => (days ? html` <strong>within ${days} ${days === 1 ? 'day' : 'days'}</strong>` : '');

/**
 * The shared account of what follows a report, on the landing, confirmation and status pages, with
 * the response times the company states in its portal settings (none stated: none promised).
 */
export const whatHappensNext = (c: { name: string } & Partial<Times>): SafeHtml => html`<ol class="steps">
<li>${c.name}'s security team receives your report immediately; it is never published by this portal.${c.responseAcknowledgeDays ? html` They acknowledge it${within(c.responseAcknowledgeDays)}.` : ''}</li>
<li>They assess and reproduce it${within(c.responseAssessDays ?? null)}, and may contact you at the e-mail address you gave (encrypted when you gave a key).</li>
<li>They fix the vulnerability${c.responseResolveDays ? html` (their target:${within(c.responseResolveDays)})` : ''} and coordinate its disclosure, and any credit, with you.</li>
<li>The private status link shows where your report stands at any time.</li>
</ol>`;
