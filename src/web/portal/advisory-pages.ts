import type { ReleasedDocument } from '../../modules/advisories/released-documents.js';
import type { Company } from '../../modules/companies/companies.schemas.js';
import { html, type SafeHtml } from '../html.js';
import { page } from '../layout.js';
import { label } from '../labels.js';

/** A released advisory as the portal shows it: its distribution entry and its parsed CSAF document. */
export type PublicAdvisory = { doc: ReleasedDocument; csaf: Record<string, unknown> };

type Note = { category: string; title?: string; text: string };
type Vuln = {
  cve?: string;
  cwe?: { id: string; name: string };
  notes?: Note[];
  product_status?: Record<string, string[]>;
  scores?: { cvss_v3?: { vectorString: string; baseScore: number; baseSeverity: string } }[];
  remediations?: { category: string; details: string; url?: string; product_ids?: string[] }[];
  flags?: { label: string; product_ids?: string[] }[];
  threats?: { category: string; details: string; product_ids?: string[] }[];
  acknowledgments?: { names?: string[]; organization?: string }[];
};
type Doc = {
  document: {
    title: string;
    notes?: Note[];
    tracking: {
      id: string;
      version: string;
      initial_release_date: string;
      current_release_date: string;
      revision_history: { number: string; date: string; summary: string }[];
    };
  };
  product_tree?: { branches?: Branch[] };
  vulnerabilities?: Vuln[];
};
type Branch = { branches?: Branch[]; product?: { product_id: string; name: string } };

const STATUS_LABEL: Record<string, string> = {
  fixed: 'Fixed',
  known_affected: 'Affected',
  known_not_affected: 'Not affected',
  under_investigation: 'Under investigation',
};

function productNames(d: Doc): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (b: Branch) => {
    if (b.product) out.set(b.product.product_id, b.product.name);
    b.branches?.forEach(walk);
  };
  d.product_tree?.branches?.forEach(walk);
  return out;
}

const withdrawnNote = (d: Doc): Note | undefined => d.document.notes?.find((n) => n.category === 'general' && n.title === 'Withdrawn');
const slugOf = (a: PublicAdvisory) => a.doc.path.split('/')[1]?.replace(/\.json$/, '') ?? '';
const date = (iso: string): SafeHtml => html`<time datetime="${iso}">${iso.slice(0, 10)}</time>`;

/** The portal's advisory index: every released advisory, newest first; no script. */
export function advisoryListPage(c: Company, list: PublicAdvisory[]): string {
  return page({
    title: `Security advisories of ${c.name}`,
    brand: c.name,
    nav: [
      { href: '/', label: 'Policy and contacts' },
      { href: '/submit', label: 'Report' },
    ],
    body: html`<h1>Security advisories</h1>
<p>Fixed vulnerabilities in products of ${c.name}, with what to do. Machine-readable as CSAF 2.0:
<a href="/.well-known/csaf/provider-metadata.json">provider metadata</a>.</p>
${
  list.length === 0
    ? html`<p id="no-advisories">No advisories have been published yet.</p>`
    : html`<table class="advisories">
<thead><tr><th>Advisory</th><th>Title</th><th>First published</th><th>Last updated</th></tr></thead>
<tbody>${list.map((a) => {
        const d = a.csaf as unknown as Doc;
        return html`<tr><td><a href="/advisories/${slugOf(a)}">${d.document.tracking.id}</a></td><td>${d.document.title}${withdrawnNote(d) ? html` <strong>(withdrawn)</strong>` : ''}</td><td>${date(d.document.tracking.initial_release_date)}</td><td>${date(d.document.tracking.current_release_date)}</td></tr>`;
      })}</tbody>
</table>`
}`,
  });
}

/** One advisory in words: status per product, what to do, scores, credits, history, and the files. */
export function advisoryPage(c: Company, a: PublicAdvisory, documentPath: string): string {
  const d = a.csaf as unknown as Doc;
  return page({
    title: `${d.document.tracking.id}: ${d.document.title}`,
    brand: c.name,
    nav: [
      { href: '/advisories', label: 'All advisories' },
      { href: '/', label: 'Policy and contacts' },
    ],
    body: advisoryBody(a.csaf, documentPath),
  });
}

/**
 * The body of an advisory's public page, from its CSAF document: the portal serves it, and the
 * dashboard shows the same markup as the preview before publishing (docs/advisories.md).
 */
export function advisoryBody(csaf: Record<string, unknown>, documentPath: string): SafeHtml {
  const d = csaf as unknown as Doc;
  const t = d.document.tracking;
  const names = productNames(d);
  const withdrawn = withdrawnNote(d);
  const summary = d.document.notes?.find((n) => n.category === 'summary');
  return html`<h1>${d.document.title}</h1>
${withdrawn ? html`<div class="notice error" role="status" id="withdrawn"><strong>Withdrawn.</strong> ${withdrawn.text}</div>` : ''}
<dl class="facts">
<dt>Advisory</dt><dd><code>${t.id}</code>, version ${t.version}</dd>
<dt>First published</dt><dd>${date(t.initial_release_date)}</dd>
<dt>Last updated</dt><dd>${date(t.current_release_date)}</dd>
</dl>
${summary ? html`<h2>Summary</h2><p>${summary.text}</p>` : ''}
${(d.vulnerabilities ?? []).map((v) => vulnerabilitySection(v, names))}
<h2>Revision history</h2>
<ol class="revisions">${t.revision_history.map((r) => html`<li>Version ${r.number}, ${date(r.date)}: ${r.summary}</li>`)}</ol>
<h2>Machine-readable</h2>
<ul><li><a href="${documentPath}">CSAF 2.0 document</a> (<a href="${documentPath}.sha256">SHA-256</a>, <a href="${documentPath}.sha512">SHA-512</a>)</li></ul>`;
}

function vulnerabilitySection(v: Vuln, names: Map<string, string>): SafeHtml {
  const named = (ids: string[] | undefined) => (ids ?? []).map((id) => names.get(id) ?? id).join(', ');
  const description = v.notes?.find((n) => n.category === 'description');
  const score = v.scores?.[0]?.cvss_v3;
  const ack = (v.acknowledgments ?? []).flatMap((x) => x.names ?? []);
  return html`<h2>Details</h2>
<dl class="facts">
${v.cve ? html`<dt>CVE</dt><dd>${v.cve}</dd>` : ''}
${v.cwe ? html`<dt>Weakness</dt><dd>${v.cwe.id}: ${v.cwe.name}</dd>` : ''}
${score ? html`<dt>CVSS 3.1</dt><dd>${score.baseScore} (${score.baseSeverity}) <code>${score.vectorString}</code></dd>` : ''}
</dl>
${description ? html`<pre class="sent">${description.text}</pre>` : ''}
<h2>Affected products</h2>
<table class="products"><thead><tr><th>Product</th><th>Status</th></tr></thead><tbody>
${Object.entries(v.product_status ?? {}).flatMap(([status, ids]) => ids.map((id) => html`<tr><td>${names.get(id) ?? id}</td><td>${STATUS_LABEL[status] ?? status}</td></tr>`))}
</tbody></table>
${(v.flags ?? []).map((f) => html`<p>Not affected (${label('notAffectedJustification', f.label)}): ${named(f.product_ids)}</p>`)}
${(v.threats ?? []).map((x) => html`<p>Impact for ${named(x.product_ids)}: ${x.details}</p>`)}
<h2>What to do</h2>
${
  (v.remediations ?? []).length === 0
    ? html`<p>No remediation is listed.</p>`
    : (v.remediations ?? []).map(
        (r) =>
          html`<p><strong>${label('remediationCategory', r.category)}</strong> (${named(r.product_ids)}): ${r.details}${r.url ? html` <a href="${r.url}" rel="noopener noreferrer">${r.url}</a>` : ''}</p>`,
      )
}
${ack.length ? html`<h2>Acknowledgments</h2><p>${ack.join(', ')}</p>` : ''}`;
}
