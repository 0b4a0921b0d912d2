import { STYLESHEET_PATH } from './assets.js';
import { html, type SafeHtml } from './html.js';

export type PageOptions = {
  title: string;
  /** Text beside the logo: the company name on a portal, "Cradle" on the site. */
  brand: string;
  brandHref?: string;
  nav?: { href: string; label: string }[];
  body: SafeHtml;
  lang?: string;
};

/** The one document shell of every server-rendered page: no script, local stylesheet only. */
export function page(o: PageOptions): string {
  return html`<!doctype html>
<html lang="${o.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${o.title}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<header class="top"><div class="inner">
<a class="brand" href="${o.brandHref ?? '/'}">${o.brand}</a>
<nav>${(o.nav ?? []).map((n) => html`<a href="${n.href}">${n.label}</a>`)}</nav>
</div></header>
<main>
${o.body}
</main>
<footer><div class="inner">Powered by Cradle: coordinated vulnerability disclosure and CRA compliance.</div></footer>
</body>
</html>
`.value;
}

/** A field's error message and the attributes that mark it invalid, from a path-to-message map. */
export function fieldError(errors: Record<string, string>, name: string): SafeHtml {
  const msg = errors[name];
  return msg ? html`<p class="error-text" id="${name}-error">${msg}</p>` : html``;
}

export const invalidAttrs = (errors: Record<string, string>, name: string): SafeHtml =>
  errors[name] ? html`aria-invalid="true" aria-describedby="${name}-error"` : html``;
