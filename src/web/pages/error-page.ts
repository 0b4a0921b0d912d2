import { html } from '../html.js';
import { page } from '../layout.js';

export function errorPage(status: number, title: string, detail: string, requestId: string): string {
  return page({
    title: `${status} ${title}`,
    brand: 'Cradle',
    body: html`<h1>${title}</h1><p>${detail}</p><p class="hint">Request id: <code>${requestId}</code></p>`,
  });
}
