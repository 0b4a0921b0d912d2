import type MarkdownIt from 'markdown-it';
import { onFirstUse, requireOnFirstUse } from '../../kernel/on-first-use.js';

/**
 * Disclosure policies and safe-harbour statements are written in Markdown by an administrator and
 * shown to the public on the portal. markdown-it (CommonMark, maintained, no dependencies with
 * native code) renders them with raw HTML switched off, so any `<tag>` in the text comes out as
 * text; its link validator already refuses `javascript:`, `vbscript:`, `file:` and `data:` links.
 * We also switch off images (the portal's CSP loads nothing from elsewhere, and a tracking pixel in
 * a policy would leak researchers' addresses) and mark every link `nofollow noopener noreferrer`.
 * No second sanitiser is needed because nothing the renderer emits comes from raw HTML; a test
 * feeds it the usual XSS vectors.
 *
 * Raw HTML is refused at save time rather than silently escaped, so the author learns it will not
 * render (`findHtml`); the renderer's own setting is the safety net.
 */
// markdown-it and both parsers are made by the first policy rendered or checked, not at start
// (ADR 0027): about 1.1 MiB of heap an idle server never uses.
const library = requireOnFirstUse<typeof MarkdownIt>('markdown-it');
const markdown = onFirstUse(() => {
  const Markdown = library();
  const renderer = new Markdown('commonmark', { html: false, linkify: false, typographer: false }).disable('image');
  renderer.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
    const t = tokens[idx];
    t?.attrSet('rel', 'nofollow noopener noreferrer');
    return self.renderToken(tokens, idx, options);
  };
  return { renderer, detector: new Markdown('commonmark', { html: true }) };
});

/** The policy as HTML, safe to place in a page as is. */
export function renderPolicyMarkdown(text: string): string {
  return markdown().renderer.render(text);
}

/** The first raw HTML tag in the Markdown (as the CommonMark parser sees it), or undefined. */
export function findHtml(text: string): string | undefined {
  for (const t of markdown().detector.parse(text, {})) {
    if (t.type === 'html_block') return t.content.trim().split('\n')[0];
    for (const c of t.children ?? []) if (c.type === 'html_inline') return c.content;
  }
  return undefined;
}
