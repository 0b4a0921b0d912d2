import type { ProductCraFacts } from '../../modules/compliance/compliance.schemas.js';
import type { Product } from '../../modules/products/products.schemas.js';
import type { SessionView } from '../../modules/sessions/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { fieldError, invalidAttrs } from '../layout.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { calendarDay as day, timeTag } from '../times.js';
import { label, LABELS } from '../labels.js';

export const PRODUCTS_PATH = '/products';
export const productPath = (identifier: string) => `${PRODUCTS_PATH}/${encodeURIComponent(identifier)}`;

export type ProductFormValues = Partial<
  Record<'name' | 'identifier' | 'producer' | 'firmwareVersion' | 'category' | 'placedOnMarketAt' | 'supportEndsAt' | 'supportJustification', string>
>;
type Facts = Omit<ProductCraFacts, 'productIdentifier'>;
type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;

export const valuesOf = (p: Product, f: Facts | undefined): ProductFormValues => ({
  name: p.name,
  identifier: p.identifier,
  producer: p.producer ?? '',
  firmwareVersion: p.firmwareVersion ?? '',
  category: f?.category ?? 'default',
  placedOnMarketAt: day(f?.placedOnMarketAt),
  supportEndsAt: day(f?.supportEndsAt),
  supportJustification: f?.supportJustification ?? '',
});

/** Links to what the compliance officer looks at next for one product. */
export const productLinks = (p: Product): SafeHtml =>
  html`<a href="/compliance?product=${encodeURIComponent(p.identifier)}">compliance</a> · <a href="/evidence/sboms?product=${encodeURIComponent(p.identifier)}">SBOMs</a> · <a href="/evidence/findings?product=${encodeURIComponent(p.identifier)}">findings</a> · <a href="/evidence?product=${encodeURIComponent(p.identifier)}#upload">upload</a>`;

function fields(v: ProductFormValues, errors: Record<string, string>, withIdentifier: boolean): SafeHtml {
  const input = (
    name: keyof ProductFormValues,
    label: string,
    hint: string,
    attrs: SafeHtml = html``,
  ) => html`<div class="field"><label for="${name}">${label}</label>
<input type="text" id="${name}" name="${name}" maxlength="255" value="${v[name] ?? ''}" ${attrs} ${invalidAttrs(errors, name)}>${hint ? html`<p class="hint">${hint}</p>` : ''}${fieldError(errors, name)}</div>`;
  const date = (name: 'placedOnMarketAt' | 'supportEndsAt', label: string, hint: string) => html`<div class="field"><label for="${name}">${label}</label>
<input type="date" id="${name}" name="${name}" value="${v[name] ?? ''}" ${invalidAttrs(errors, name)}><p class="hint">${hint}</p>${fieldError(errors, name)}</div>`;
  return html`${input('name', 'Name', 'Shown to researchers in the portal form.', html`required`)}
${withIdentifier ? input('identifier', 'Identifier', 'Your stable ID for it (SKU, model number); CI pipelines push SBOMs with ?product=this. It cannot change later.', html`required`) : ''}
${input('producer', 'Producer (optional)', '')}
${input('firmwareVersion', 'Firmware version (optional)', '')}
<fieldset><legend>CRA facts (the compliance check reads these)</legend>
<div class="field"><label for="category">Category</label><select id="category" name="category" ${invalidAttrs(errors, 'category')}>${LABELS.productCategory.values.map((c) => html`<option value="${c}" ${v.category === c ? html`selected` : ''}>${label('productCategory', c)}</option>`)}</select>${fieldError(errors, 'category')}</div>
${date('placedOnMarketAt', 'Placed on the EU market', 'When the first unit was made available (Art. 13(8) counts the support period from here).')}
${date('supportEndsAt', 'Support period ends', 'At least five years after placing on the market, unless shorter use is expected (Art. 13(8)).')}
<div class="field"><label for="supportJustification">Why shorter than five years (if it is)</label><textarea id="supportJustification" name="supportJustification" rows="2" maxlength="4000" ${invalidAttrs(errors, 'supportJustification')}>${v.supportJustification ?? ''}</textarea>${fieldError(errors, 'supportJustification')}</div>
</fieldset>`;
}

/** `/products`: the company's products with their CRA facts and the register form. */
export function productsPage(o: {
  session: SessionView;
  products: Product[];
  facts: Map<string, Facts>;
  values?: ProductFormValues;
  errors?: Record<string, string>;
  notice?: Notice;
}): string {
  const s = o.session;
  const active = o.products.filter((p) => !p.archivedAt);
  const archived = o.products.filter((p) => p.archivedAt);
  const row = (p: Product) => {
    const f = o.facts.get(p.id);
    return html`<tr data-product="${p.identifier}"><td><a href="${productPath(p.identifier)}">${p.name}</a><br><span class="hint"><code>${p.identifier}</code></span></td>
<td>${p.producer ?? ''}</td><td>${p.firmwareVersion ?? ''}</td><td>${label('productCategory', f?.category ?? 'default')}</td>
<td>${f?.supportEndsAt ? day(f.supportEndsAt) : html`<span class="error-text">not declared</span>`}</td><td>${productLinks(p)}</td></tr>`;
  };
  const table = (list: Product[]) =>
    html`<table class="data"><thead><tr><th>Product</th><th>Producer</th><th>Firmware</th><th>Category</th><th>Support ends</th><th>Open</th></tr></thead><tbody>${list.map(row)}</tbody></table>`;
  return dashboardPage({
    title: 'Products',
    session: s,
    current: PRODUCTS_PATH,
    notice: o.notice,
    body: html`<h1>Products</h1>
<p class="lead">Products with digital elements you place on the EU market. Each appears in your portal's report form, and the CRA compliance check judges each one.</p>
${active.length === 0 ? html`<p>No products yet: register your first one below (or from CI with <code>POST /api/v1/products</code>).</p>` : table(active)}
${archived.length ? html`<h2>Archived</h2><p class="hint">Kept for the record; not offered to researchers, not in the compliance overview, no new evidence.</p>${table(archived)}` : ''}
${
  sessionMay(s, 'triage')
    ? html`<h2 id="register">Register a product</h2>
<form method="post" action="${PRODUCTS_PATH}" class="narrow">${csrfField(s)}
${fields(o.values ?? { category: 'default' }, o.errors ?? {}, true)}
<button type="submit">Register product</button></form>`
    : ''
}`,
  });
}

/** `/products/{identifier}`: edit one product and its CRA facts; archive or restore it. */
export function productPage(o: {
  session: SessionView;
  product: Product;
  values: ProductFormValues;
  errors?: Record<string, string>;
  notice?: Notice;
}): string {
  const s = o.session;
  const p = o.product;
  return dashboardPage({
    title: p.name,
    session: s,
    current: PRODUCTS_PATH,
    notice: o.notice,
    body: html`<p><a href="${PRODUCTS_PATH}">← Products</a></p>
<h1>${p.name} <span class="hint"><code>${p.identifier}</code></span>${p.archivedAt ? html` <span class="status status-suspended">archived ${timeTag(p.archivedAt)}</span>` : ''}</h1>
<p>Open: ${productLinks(p)}</p>
${
  sessionMay(s, 'triage')
    ? html`<form method="post" action="${productPath(p.identifier)}" class="narrow">${csrfField(s)}
${fields(o.values, o.errors ?? {}, false)}
<button type="submit">Save</button></form>
<h2>${p.archivedAt ? 'Restore' : 'Archive'}</h2>
<p class="hint">${p.archivedAt ? 'Offer it to researchers again and count it in compliance.' : 'An archived product keeps its reports and evidence, but leaves the portal form, the compliance overview and new SBOM or SARIF pushes.'}</p>
<form method="post" action="${productPath(p.identifier)}/${p.archivedAt ? 'restore' : 'archive'}" class="inline">${csrfField(s)}<button type="submit" class="${p.archivedAt ? 'secondary' : 'danger'}">${p.archivedAt ? 'Restore product' : 'Archive product'}</button></form>`
    : html`<p class="hint" id="read-only">Your role reads this; an administrator or PSIRT member changes it.</p>`
}`,
  });
}
