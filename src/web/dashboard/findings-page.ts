import type { Page } from '../../kernel/paging.js';
import type { Finding, ListFindingsFilter } from '../../modules/findings/findings.schemas.js';
import { SEVERITIES } from '../../modules/findings/findings.severity.js';
import type { Product } from '../../modules/products/products.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { dashboardPage } from './dashboard-layout.js';
import { EVIDENCE_PATH, pager } from './evidence-pages.js';
import { timeTag } from '../times.js';
import { label, LABELS } from '../labels.js';

const PATH = `${EVIDENCE_PATH}/findings`;

function select(name: string, title: string, options: readonly (readonly [string, string])[], value: string | undefined): SafeHtml {
  return html`<div class="field"><label for="${name}">${title}</label><select id="${name}" name="${name}">
<option value="">any</option>${options.map(([v, text]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${text}</option>`)}</select></div>`;
}

/** Findings with product, state, severity and tool filters as a GET form (bookmarkable, no script). */
export function findingsPage(
  s: SessionView,
  o: { filter: ListFindingsFilter; products: Product[]; page: Page<Finding>; offset: number; limit: number; error?: string | undefined },
): string {
  const f = o.filter;
  const query = { product: f.product, state: f.state, severity: f.severity, tool: f.tool };
  return dashboardPage({
    title: 'Findings',
    session: s,
    current: EVIDENCE_PATH,
    notice: o.error ? { kind: 'bad', text: o.error } : undefined,
    body: html`<p><a href="${EVIDENCE_PATH}">Evidence</a> › findings</p>
<h1>Scan findings</h1>
<p class="lead">Failing results of the SARIF logs pushed for your products, most severe first. A finding absent from a newer scan of its tool is fixed; one that comes back is reopened.</p>
<form method="get" action="${PATH}" class="filters">
${select(
  'product',
  'Product',
  o.products.map((p) => [p.identifier, `${p.name} (${p.identifier})`] as const),
  f.product,
)}
${select(
  'state',
  'State',
  LABELS.findingState.values.map((x) => [x, label('findingState', x)] as const),
  f.state,
)}
${select(
  'severity',
  'Severity',
  SEVERITIES.map((x) => [x, label('findingSeverity', x)] as const),
  f.severity,
)}
<div class="field"><label for="tool">Tool</label><input type="text" id="tool" name="tool" value="${f.tool ?? ''}" placeholder="ESLint, CodeQL, Semgrep"></div>
<div class="field"><button type="submit">Filter</button> <a href="${PATH}">Clear</a></div>
</form>
${
  o.page.items.length === 0
    ? html`<p>No findings match.</p>`
    : html`<table class="data"><thead><tr><th>Severity</th><th>State</th><th>Product</th><th>Tool and rule</th><th>Where</th><th>Message</th><th>First seen (UTC)</th></tr></thead><tbody>
${o.page.items.map(
  (
    x,
  ) => html`<tr class="sev-${x.severity}"><td><span class="sev sev-${x.severity}">${label('findingSeverity', x.severity)}</span>${x.securitySeverity ? html`<br><span class="hint">${x.securitySeverity}</span>` : ''}</td>
<td>${label('findingState', x.state)}${x.state === 'fixed' && x.fixedAt ? html`<br><span class="hint">${timeTag(x.fixedAt)}</span>` : ''}${x.reopenCount > 0 ? html`<br><span class="hint">reopened ${x.reopenCount}×</span>` : ''}</td>
<td><code>${x.productIdentifier}</code></td><td>${x.tool}<br><code>${x.ruleId}</code></td>
<td><code>${x.artifactUri ?? ''}</code>${x.startLine !== null ? html`:${x.startLine}` : ''}</td><td>${x.message}</td>
<td>${timeTag(x.firstSeenAt)}</td></tr>`,
)}
</tbody></table>`
}
${pager(PATH, query, o.offset, o.limit, o.page.nextOffset)}`,
  });
}
