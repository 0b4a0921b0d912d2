import type { Page } from '../../kernel/paging.js';
import type { OpenFindingCounts } from '../../modules/findings/count-findings.js';
import { SEVERITIES } from '../../modules/findings/findings.severity.js';
import type { Product } from '../../modules/products/products.schemas.js';
import type { SbomDiff } from '../../modules/sboms/sboms.diff.js';
import type { Sbom, SbomComponent } from '../../modules/sboms/sboms.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { timeTag } from '../times.js';
import { label } from '../labels.js';

export const EVIDENCE_PATH = '/evidence';
/** A diff list longer than this is cut on the page (the API gives it whole). */
const DIFF_SHOWN = 200;

export const link = (path: string, query: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams(
    Object.entries(query)
      .filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== '')
      .map(([k, v]): [string, string] => [k, String(v)]),
  );
  const s = q.toString();
  return s ? `${path}?${s}` : path;
};
const diffCounts = (s: Sbom): SafeHtml =>
  s.previousId
    ? html`<span class="added">+${s.added}</span> <span class="removed">−${s.removed}</span> <span class="changed">~${s.changed}</span>`
    : html`first version`;

/** "Next"/"Previous" links of an offset page. */
export function pager(path: string, query: Record<string, string | undefined>, offset: number, limit: number, nextOffset: number | null): SafeHtml {
  const prev = offset > 0 ? html`<a href="${link(path, { ...query, offset: Math.max(0, offset - limit) })}" rel="prev">Previous</a>` : '';
  const next = nextOffset !== null ? html`<a href="${link(path, { ...query, offset: nextOffset })}" rel="next">Next</a>` : '';
  return prev || next ? html`<p class="pager">${prev} ${next}</p>` : html``;
}

const severitySummary = (c: OpenFindingCounts | undefined): SafeHtml => {
  const parts = SEVERITIES.filter((s) => (c?.[s] ?? 0) > 0).map((s) => html`<span class="sev sev-${s}">${c?.[s] ?? 0} ${s}</span> `);
  return parts.length ? html`${parts}` : html`none`;
};

/** An SBOM and a SARIF upload form (multipart; the CSRF field first, so it is read before the file). */
function uploadForms(s: SessionView, products: Product[], chosen: string | undefined): SafeHtml {
  if (products.length === 0) return html``;
  const form = (
    action: string,
    id: string,
    legend: string,
    hint: string,
  ) => html`<form method="post" action="${action}" enctype="multipart/form-data" class="narrow">${csrfField(s)}
<fieldset><legend>${legend}</legend>
<div class="field"><label for="${id}-product">Product</label><select id="${id}-product" name="product" required>${products.map((p) => html`<option value="${p.identifier}" ${p.identifier === chosen ? html`selected` : ''}>${p.name} (${p.identifier})</option>`)}</select></div>
<div class="field"><label for="${id}-document">File</label><input type="file" id="${id}-document" name="document" accept=".json,application/json" required><p class="hint">${hint}</p></div>
<button type="submit">Upload</button></fieldset></form>`;
  return html`<div class="forms" id="upload">${form(`${EVIDENCE_PATH}/sboms`, 'sbom', 'Upload an SBOM', "CycloneDX 1.4-1.7 or SPDX 2.3, JSON. It becomes the product's next SBOM version and is matched against the known vulnerabilities.")}
${form(`${EVIDENCE_PATH}/findings`, 'sarif', 'Upload a scan (SARIF)', 'SARIF 2.1.0 JSON from a scanner: its failing results become findings, reconciled with the last scan of the same tool.')}</div>`;
}

/** Every product with its newest SBOM and its open findings by severity, and the upload forms. */
export function evidenceOverviewPage(
  s: SessionView,
  rows: { product: Product; latest: Sbom | undefined; open: OpenFindingCounts | undefined }[],
  o: { notice?: { kind: 'ok' | 'bad'; text: string } | undefined; chosen?: string | undefined } = {},
): string {
  return dashboardPage({
    title: 'Evidence',
    session: s,
    current: EVIDENCE_PATH,
    notice: o.notice,
    body: html`<h1>Evidence</h1>
<p class="lead">SBOMs and scan findings per product, pushed from CI (<code>POST /api/v1/sboms</code>, <code>POST /api/v1/sarif</code>) or uploaded here.
<a href="${link(`${EVIDENCE_PATH}/findings`, { state: 'open' })}">All open findings</a>.</p>
${
  sessionMay(s, 'triage')
    ? uploadForms(
        s,
        rows.map((r) => r.product).filter((p) => !p.archivedAt),
        o.chosen,
      )
    : ''
}
${
  rows.length === 0
    ? html`<p>No products yet. Register one with <code>POST /api/v1/products</code>, then push its SBOM from CI.</p>`
    : html`<table class="data"><thead><tr><th>Product</th><th>Latest SBOM</th><th>Components</th><th>Change from previous</th><th>Open findings</th></tr></thead><tbody>
${rows.map(
  ({ product: p, latest, open }) => html`<tr><td>${p.name}<br><code>${p.identifier}</code></td>
<td>${latest ? html`<a href="${link(`${EVIDENCE_PATH}/sboms`, { product: p.identifier })}">version ${latest.version}</a> (${label('sbomFormat', latest.format)} ${latest.specVersion}), ${timeTag(latest.createdAt)}` : 'none'}</td>
<td>${latest ? html`<a href="${EVIDENCE_PATH}/sboms/${latest.id}">${latest.componentCount}</a>` : ''}</td>
<td>${latest ? diffCounts(latest) : ''}</td>
<td><a href="${link(`${EVIDENCE_PATH}/findings`, { product: p.identifier, state: 'open' })}">${severitySummary(open)}</a></td></tr>`,
)}
</tbody></table>`
}`,
  });
}

/** One product's SBOM versions, newest first. */
export function sbomVersionsPage(s: SessionView, product: Product, page: Page<Sbom>, offset: number, limit: number): string {
  return dashboardPage({
    title: `SBOMs of ${product.name}`,
    session: s,
    current: EVIDENCE_PATH,
    body: html`<p><a href="${EVIDENCE_PATH}">Evidence</a> › ${product.name}</p>
<h1>SBOM versions of ${product.name} <code>${product.identifier}</code></h1>
${
  page.items.length === 0
    ? html`<p>No SBOM has been pushed for this product.</p>`
    : html`<table class="data"><thead><tr><th>Version</th><th>Pushed (UTC)</th><th>Format</th><th>Subject</th><th>Components</th><th>Change from previous</th><th>Original</th></tr></thead><tbody>
${page.items.map(
  (
    v,
  ) => html`<tr><td><a href="${EVIDENCE_PATH}/sboms/${v.id}">${v.version}</a></td><td>${timeTag(v.createdAt)}</td><td>${label('sbomFormat', v.format)} ${v.specVersion}</td>
<td>${v.subjectName ?? ''} ${v.subjectVersion ?? ''}</td><td>${v.componentCount}</td><td>${diffCounts(v)}</td>
<td><a href="${EVIDENCE_PATH}/sboms/${v.id}/document" download>download</a></td></tr>`,
)}
</tbody></table>`
}
${pager(`${EVIDENCE_PATH}/sboms`, { product: product.identifier }, offset, limit, page.nextOffset)}`,
  });
}

function diffSection(diff: SbomDiff): SafeHtml {
  const ref = (c: { name: string; version: string | null }) => html`${c.name} <code>${c.version ?? ''}</code>`;
  const more = (n: number) => (n > DIFF_SHOWN ? html`<li>… and ${n - DIFF_SHOWN} more (the API gives the whole list)</li>` : '');
  const list = <T>(title: string, items: T[], item: (x: T) => SafeHtml) =>
    html`<h3>${title} (${items.length})</h3>${items.length ? html`<ul class="diff">${items.slice(0, DIFF_SHOWN).map((x) => html`<li>${item(x)}</li>`)}${more(items.length)}</ul>` : html`<p>None.</p>`}`;
  return html`${list('Added', diff.added, ref)}${list('Removed', diff.removed, ref)}
${list('Changed', diff.changed, (c) => html`${c.after.name} <code>${c.before.version ?? ''}</code> → <code>${c.after.version ?? ''}</code> <span class="hint">${c.fields.join(', ')}</span>`)}`;
}

/** One SBOM version: facts, the difference from the previous version, and its components page by page. */
export function sbomPage(s: SessionView, sbom: Sbom, diff: SbomDiff | null, components: Page<SbomComponent>, offset: number, limit: number): string {
  const base = `${EVIDENCE_PATH}/sboms/${sbom.id}`;
  return dashboardPage({
    title: `SBOM ${sbom.productIdentifier} v${sbom.version}`,
    session: s,
    current: EVIDENCE_PATH,
    body: html`<p><a href="${EVIDENCE_PATH}">Evidence</a> › <a href="${link(`${EVIDENCE_PATH}/sboms`, { product: sbom.productIdentifier })}">${sbom.productIdentifier}</a> › version ${sbom.version}</p>
<h1>SBOM version ${sbom.version} of <code>${sbom.productIdentifier}</code></h1>
<dl class="facts"><dt>Pushed</dt><dd>${timeTag(sbom.createdAt)}</dd><dt>Format</dt><dd>${label('sbomFormat', sbom.format)} ${sbom.specVersion}</dd>
<dt>Subject</dt><dd>${sbom.subjectName ?? 'not named'} ${sbom.subjectVersion ?? ''}</dd><dt>Serial number</dt><dd><code>${sbom.serialNumber ?? 'none'}</code></dd>
<dt>Components</dt><dd>${sbom.componentCount} (${sbom.dependencyCount} dependency edges)</dd>
<dt>Original</dt><dd><a href="${base}/document" download>download</a> (${sbom.byteSize} bytes, SHA-256 <code>${sbom.sha256}</code>)</dd></dl>
<h2>Change from the previous version</h2>
${diff ? diffSection(diff) : html`<p>This is the product's first SBOM: there is nothing to compare with.</p>`}
<h2 id="components">Components</h2>
<table class="data"><thead><tr><th>#</th><th>Name</th><th>Version</th><th>Package URL</th><th>Licences</th><th>Supplier</th><th>Dependency</th></tr></thead><tbody>
${components.items.map(
  (c) => html`<tr><td>${c.ordinal + 1}</td><td>${c.group ? `${c.group}/` : ''}${c.name}</td><td><code>${c.version ?? ''}</code></td>
<td><code>${c.purl ?? ''}</code>${c.cpe ? html`<br><code>${c.cpe}</code>` : ''}</td><td>${c.licenses.join(', ')}</td><td>${c.supplier ?? ''}</td><td>${c.relationship}</td></tr>`,
)}
</tbody></table>
${pager(base, {}, offset, limit, components.nextOffset)}`,
  });
}
