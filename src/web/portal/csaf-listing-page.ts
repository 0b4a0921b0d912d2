import type { ListingEntry } from '../../modules/advisories/csaf-provider.js';
import { html } from '../html.js';

/**
 * A directory listing as web servers generate them (CSAF 2.0 requirement 14: "server-side generated
 * directory listing"), one link per entry. `folder` is the folder's absolute path with its trailing
 * slash; links are absolute paths, so they resolve the same from any base (csaf_checker resolves
 * a year folder's links against the folder above it).
 */
export function directoryListingPage(folder: string, distribution: string, entries: readonly ListingEntry[], parent?: string): string {
  const links = entries.map((e) => html`<li><a href="${distribution}${e.path}">${e.name}</a></li>\n`);
  const up = parent === undefined ? '' : html`<li><a href="${parent}">../</a></li>\n`;
  return `<!DOCTYPE html>\n${html`<html lang="en">
<head><meta charset="utf-8"><title>Index of ${folder}</title></head>
<body>
<h1>Index of ${folder}</h1>
<ul>
${up}${links}</ul>
</body>
</html>
`}`;
}
