import type { Company } from '../../modules/companies/companies.schemas.js';
import { VULNERABILITY_TYPE_INFO, VULNERABILITY_TYPES } from '../../modules/reports/reports.schemas.js';
import { html, type SafeHtml } from '../html.js';
import { fieldError, invalidAttrs, page } from '../layout.js';

/** The form's inputs, named exactly as the report fields (docs/intake.md "The report form"). */
export const FORM_FIELDS = ['description', 'productName', 'vulnerabilityType', 'stepsToReproduce', 'impact', 'contactEmail', 'pgpKey'] as const;
export type FormField = (typeof FORM_FIELDS)[number];
export type FormValues = Partial<Record<FormField, string>>;

/**
 * The honeypot: an input people never see (hidden off-screen, skipped by keyboard and autofill)
 * and form-filling bots usually do. A filled one files nothing.
 */
export const HONEYPOT_FIELD = 'website';

/** The e-mail opt-in (issue 21): offered only when the operator configured SMTP. */
export const UPDATES_FIELD = 'researcherUpdates';

export type FormState = {
  values: FormValues;
  errors: Record<string, string>;
  notice?: string | undefined;
  /** Whether to offer the e-mail opt-in, and whether it is ticked. */
  updates?: { offered: boolean; checked: boolean };
};

function productSelect(products: readonly string[], value: string, errors: Record<string, string>): SafeHtml {
  // A value no longer in the list (the product was renamed meanwhile) is kept rather than lost.
  const names = value && !products.includes(value) ? [...products, value] : products;
  return html`<select id="productName" name="productName" ${invalidAttrs(errors, 'productName')}>
<option value="">Other / not listed (name it in the description)</option>
${names.map((n) => html`<option value="${n}" ${n === value ? html`selected` : ''}>${n}</option>`)}
</select>`;
}

function typeSelect(value: string, errors: Record<string, string>): SafeHtml {
  return html`<select id="vulnerabilityType" name="vulnerabilityType" ${invalidAttrs(errors, 'vulnerabilityType')}>
<option value="">Not sure</option>
${VULNERABILITY_TYPES.map((t) => html`<option value="${t}" ${t === value ? html`selected` : ''}>${VULNERABILITY_TYPE_INFO[t].label}</option>`)}
</select>`;
}

const textarea = (name: FormField, v: FormValues, errors: Record<string, string>, rows = 6): SafeHtml =>
  html`<textarea id="${name}" name="${name}" rows="${rows}" ${invalidAttrs(errors, name)}>${v[name] ?? ''}</textarea>`;

/** The report form; on a 400 it comes back with every typed value and a message per bad field. */
export function reportFormPage(c: Company, products: readonly string[], s: FormState): string {
  const v = s.values;
  const bad = FORM_FIELDS.filter((f) => s.errors[f]);
  return page({
    title: `Report a vulnerability to ${c.name}`,
    brand: c.name,
    nav: [{ href: '/', label: 'Policy and contacts' }],
    body: html`<h1>Report a vulnerability to ${c.name}</h1>
${s.notice ? html`<div class="notice bad" role="alert">${s.notice}</div>` : ''}
${
  bad.length > 0
    ? html`<div class="notice bad" role="alert"><p>Please correct ${bad.length === 1 ? 'this field' : 'these fields'}:</p>
<ul>${bad.map((f) => html`<li><a href="#${f}">${s.errors[f]}</a></li>`)}</ul></div>`
    : ''
}
<p class="lead">Only the description is required. Everything you send goes to ${c.name}'s security team only.</p>
<form method="post" action="/submit" novalidate>
<div class="field"><label for="description">Description (required)</label>
<p class="hint">What is vulnerable, and how. Up to 64 KiB.</p>
${textarea('description', v, s.errors, 10)}${fieldError(s.errors, 'description')}</div>
<div class="field"><label for="productName">Affected product</label>
${productSelect(products, v.productName ?? '', s.errors)}${fieldError(s.errors, 'productName')}</div>
<div class="field"><label for="vulnerabilityType">Type of vulnerability</label>
${typeSelect(v.vulnerabilityType ?? '', s.errors)}
<p class="hint">A broad class is enough; choose "Not sure" if in doubt.</p>${fieldError(s.errors, 'vulnerabilityType')}</div>
<div class="field"><label for="stepsToReproduce">Steps to reproduce</label>
${textarea('stepsToReproduce', v, s.errors)}${fieldError(s.errors, 'stepsToReproduce')}</div>
<div class="field"><label for="impact">Impact</label>
<p class="hint">What could an attacker achieve?</p>
${textarea('impact', v, s.errors, 4)}${fieldError(s.errors, 'impact')}</div>
<div class="field"><label for="contactEmail">Your e-mail address</label>
<p class="hint">Optional: leave it empty to report anonymously (you can still follow the status link).</p>
<input type="email" id="contactEmail" name="contactEmail" autocomplete="email" maxlength="254" value="${v.contactEmail ?? ''}" ${invalidAttrs(s.errors, 'contactEmail')}>
${fieldError(s.errors, 'contactEmail')}</div>
<div class="field"><label for="pgpKey">Your OpenPGP public key</label>
<p class="hint">Optional: an ASCII-armoured public key block, so replies to you can be encrypted.</p>
${textarea('pgpKey', v, s.errors, 4)}${fieldError(s.errors, 'pgpKey')}</div>
${
  s.updates?.offered
    ? html`<div class="field"><input type="checkbox" id="${UPDATES_FIELD}" name="${UPDATES_FIELD}" value="on" ${s.updates.checked ? html`checked` : ''}>
<label for="${UPDATES_FIELD}">E-mail me a short note when the status changes or the team writes (needs your e-mail address; the first mail asks you to confirm the address; encrypted to your OpenPGP key when you give one; no report text and no status link is e-mailed)</label></div>`
    : ''
}
<div class="visually-hidden" aria-hidden="true"><label for="${HONEYPOT_FIELD}">Leave this field empty</label>
<input type="text" id="${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off" value=""></div>
<button type="submit">Send report</button>
</form>`,
  });
}
