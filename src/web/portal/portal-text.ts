import { html, type SafeHtml } from '../html.js';

const names = new Intl.DisplayNames(['en'], { type: 'language' });

/** "German (de)" for a language tag; the bare tag when the runtime does not know it. */
export function languageName(tag: string): string {
  try {
    const name = names.of(tag);
    return name && name !== tag ? `${name} (${tag})` : tag;
  } catch {
    return tag;
  }
}

/** The shared account of what follows a report, on the landing, confirmation and status pages. */
export const whatHappensNext = (companyName: string): SafeHtml => html`<ol class="steps">
<li>${companyName}'s security team receives your report immediately; it is never published by this portal.</li>
<li>They assess and reproduce it, and may contact you at the e-mail address you gave (encrypted when you gave a key).</li>
<li>They fix the vulnerability and coordinate its disclosure, and any credit, with you.</li>
<li>The private status link shows where your report stands at any time.</li>
</ol>`;
