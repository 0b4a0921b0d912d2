import type { Product } from '../../modules/products/products.schemas.js';
import { ANALYSIS_STATES, type KnownVuln, type KnownVulnPage, type ListKnownVulnsFilter } from '../../modules/known-vulns/known-vulns.schemas.js';
import type { AwarenessGroup } from '../../modules/known-vulns/awareness-groups.schemas.js';
import { awarenessGroupsSection, type AwarenessTyped } from './awareness-groups-panel.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import type { FeedStatus } from '../../modules/vulndb/feed-status.js';
import { DOWNLOADS } from './download-routes.js';
import { html, type SafeHtml } from '../html.js';
import { dashboardPage } from './dashboard-layout.js';
import { link, pager } from './evidence-pages.js';
import { label } from '../labels.js';
import { timeTag } from '../times.js';

export const KNOWN_VULNS_PATH = '/known-vulnerabilities';

export const kevBadge = (m: KnownVuln): SafeHtml =>
  m.kev ? html`<span class="badge overdue" title="In the CISA Known Exploited Vulnerabilities catalog since ${m.kev.dateAdded}">KEV</span>` : html``;
export const analysisLabel = (m: KnownVuln): SafeHtml =>
  m.analysis ? html`<span class="tag">${label('analysisState', m.analysis.state)}</span>` : html`<span class="tag due-soon">untriaged</span>`;

function select(name: string, label: string, options: readonly (readonly [string, string])[], value: string | undefined, any = 'any'): SafeHtml {
  return html`<div class="field"><label for="${name}">${label}</label><select id="${name}" name="${name}">
${any ? html`<option value="">${any}</option>` : ''}${options.map(([v, text]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${text}</option>`)}</select></div>`;
}

function coverage(page: KnownVulnPage): SafeHtml {
  const c = page.coverage;
  if (!c) return html``;
  const reasons = Object.entries(c.unmatched);
  return html`<p class="hint">Latest SBOM: ${c.matchable} of ${c.components} components could be matched by package URL${
    reasons.length ? html`; not matched: ${reasons.map(([r, n], i) => html`${i ? ', ' : ''}${n} ${r.replaceAll('-', ' ')}`)}` : ''
  }.</p>`;
}

/** The vulnerability feeds (administrators): when each was last imported or asked, its records and last error. */
function feedsSection(feeds: FeedStatus[]): SafeHtml {
  return html`<details class="card" id="feeds"><summary>Vulnerability feeds (${feeds.length})${feeds.some((f) => f.lastError) ? html` <span class="badge overdue">failing</span>` : ''}</summary>
${
  feeds.length === 0
    ? html`<p>No feed imported yet: run <code>cradle vulndb sync</code> (docs/known-vulnerabilities.md).</p>`
    : html`<table><thead><tr><th>feed</th><th>last imported</th><th>last asked</th><th>records</th><th>last error</th></tr></thead><tbody>
${feeds.map(
  (f) =>
    html`<tr><td><code>${f.source}</code></td><td>${timeTag(f.importedAt, 'never')}</td><td>${timeTag(f.checkedAt)}</td><td>${f.records}</td><td>${f.lastError ?? ''}</td></tr>`,
)}</tbody></table>`
}</details>`;
}

/**
 * Known vulnerabilities in the components of the products' latest SBOMs, most urgent first, with
 * filters as a GET form (bookmarkable, no script). The `vulnerability` filter answers "where are
 * we exposed to CVE-…?" across every product.
 */
export function knownVulnsPage(
  s: SessionView,
  o: {
    filter: ListKnownVulnsFilter;
    products: Product[];
    page: KnownVulnPage;
    offset: number;
    limit: number;
    awareness: AwarenessGroup[];
    /** The awareness form as typed, when it was refused. */
    awarenessTyped?: AwarenessTyped | undefined;
    /** Administrators only: each feed's last sync, records and last error. */
    feeds?: FeedStatus[] | undefined;
    notice?: { kind: 'ok' | 'bad'; text: string } | undefined;
  },
): string {
  const f = o.filter;
  const query = {
    product: f.product,
    state: f.state,
    kev: f.kev,
    analysis: f.analysis,
    vulnerability: f.vulnerability,
    minEpss: f.minEpss?.toString(),
    minCvss: f.minCvss?.toString(),
  };
  return dashboardPage({
    title: 'Known vulnerabilities',
    session: s,
    current: KNOWN_VULNS_PATH,
    notice: o.notice,
    body: html`<h1>Known vulnerabilities</h1>
${awarenessGroupsSection(s, o.awareness, o.awarenessTyped)}
${o.feeds ? feedsSection(o.feeds) : ''}
<p class="lead">Published advisories (OSV, with CISA KEV and EPSS) that name a component version in a product's latest SBOM. KEV first, then by exploit probability (EPSS) and CVSS. Decide on each: the decision lasts while later SBOMs keep that component version.</p>
${
  f.product
    ? html`<p class="downloads">VEX of <code>${f.product}</code> (its open known vulnerabilities with your decisions, for customers): <a href="${DOWNLOADS.knownVulnVex}?product=${encodeURIComponent(f.product)}&amp;format=cyclonedx" download>CycloneDX 1.6</a> · <a href="${DOWNLOADS.knownVulnVex}?product=${encodeURIComponent(f.product)}&amp;format=openvex" download>OpenVEX 0.2.0</a></p>`
    : html`<p class="hint">Choose a product below to download its VEX.</p>`
}
<form method="get" action="${KNOWN_VULNS_PATH}" class="filters">
<div class="field"><label for="vulnerability">Where are we exposed to</label><input type="text" id="vulnerability" name="vulnerability" value="${f.vulnerability ?? ''}" placeholder="CVE-2021-44228, GHSA-…"></div>
${select(
  'product',
  'Product',
  o.products.map((p) => [p.identifier, `${p.name} (${p.identifier})`] as const),
  f.product,
)}
${select(
  'state',
  'State',
  [
    ['open', 'open'],
    ['resolved', 'resolved'],
    ['all', 'all'],
  ],
  f.state,
  '',
)}
${select(
  'kev',
  'CISA KEV',
  [
    ['true', 'in KEV'],
    ['false', 'not in KEV'],
  ],
  f.kev,
)}
${select('analysis', 'Decision', [['untriaged', 'untriaged'], ...ANALYSIS_STATES.map((a) => [a, label('analysisState', a)] as const)], f.analysis)}
<div class="field"><label for="minEpss">EPSS at least</label><input type="number" id="minEpss" name="minEpss" min="0" max="1" step="0.01" value="${f.minEpss?.toString() ?? ''}"></div>
<div class="field"><label for="minCvss">CVSS at least</label><input type="number" id="minCvss" name="minCvss" min="0" max="10" step="0.1" value="${f.minCvss?.toString() ?? ''}"></div>
<div class="field"><button type="submit">Filter</button> <a href="${KNOWN_VULNS_PATH}">Clear</a></div>
</form>
${coverage(o.page)}
${
  o.page.items.length === 0
    ? html`<p>No known vulnerability matches. Push an SBOM for a product (Evidence), and have the operator import the advisory feeds (<code>cradle vulndb import</code>).</p>`
    : html`<table class="data"><thead><tr><th>Vulnerability</th><th>Product</th><th>Component</th><th>Fixed in</th><th>EPSS</th><th>CVSS</th><th>Decision</th><th>First seen</th></tr></thead><tbody>
${o.page.items.map(
  (
    m,
  ) => html`<tr><td>${kevBadge(m)} <a href="${KNOWN_VULNS_PATH}/${m.id}">${m.vulnerability}</a>${m.summary ? html`<br><span class="hint">${m.summary}</span>` : ''}</td>
<td><a href="${link(KNOWN_VULNS_PATH, { product: m.productIdentifier })}"><code>${m.productIdentifier}</code></a></td>
<td>${m.component.name} <code>${m.component.version}</code></td><td>${m.fixedVersion ? html`<code>${m.fixedVersion}</code>` : html`<span class="hint">none known</span>`}</td>
<td>${m.epss ? html`${(m.epss.score * 100).toFixed(1)}%` : ''}</td><td>${m.cvss ? m.cvss.score.toFixed(1) : ''}</td>
<td>${analysisLabel(m)}${m.state === 'resolved' ? html`<br><span class="hint">gone from the latest SBOM</span>` : ''}</td><td>${timeTag(m.firstSeenAt)}</td></tr>`,
)}
</tbody></table>`
}
${pager(KNOWN_VULNS_PATH, query, o.offset, o.limit, o.page.nextOffset)}`,
  });
}
