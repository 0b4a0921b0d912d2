import { html } from '../html.js';
import { page } from '../layout.js';

/**
 * A form sent from a browser and refused unread for its size (413) cannot be shown again with what
 * was typed: the page says that nothing was kept, and how to get the text back.
 */
const TOO_LARGE_FORM =
  "Nothing was saved. Go back to the form with your browser's Back button, which usually keeps what you typed, then shorten the text or choose a smaller file.";

export function errorPage(status: number, title: string, detail: string, requestId: string, o: { formPost?: boolean } = {}): string {
  const hint = status === 413 && o.formPost ? html`<p>${TOO_LARGE_FORM}</p>` : html``;
  return page({
    title: `${status} ${title}`,
    brand: 'Cradle',
    body: html`<h1>${title}</h1><p>${detail}</p>${hint}<p class="hint">Request id: <code>${requestId}</code></p>`,
  });
}
