import type { AdvisoryView, UpdateAdvisoryInput } from '../../modules/advisories/advisories.schemas.js';
import type { FieldIssue } from '../../kernel/errors.js';
import { trimmedField, trimmedOrNull } from '../form-fields.js';
import { issueSentence } from '../issue-sentences.js';

/**
 * The advisory edit form of the dashboard as flat fields (`<form>` posts no nesting): the text
 * fields by their input names, the other ids one per line (`System: id`), the remediation as three
 * fields, and the product and acknowledgment lists as numbered rows (`product-{n}-{field}`,
 * `ack-{n}-{field}`) with blank rows to add to and a "remove" box on each. The values are kept as
 * typed, so a refused form comes back exactly as it was sent.
 */
export type AdvisoryFormValues = Record<string, string>;

export const PRODUCT_FIELDS = ['identifier', 'vendor', 'name', 'version', 'status', 'justification', 'impact', 'remove'] as const;
export const ACK_FIELDS = ['name', 'organization', 'consent', 'remove'] as const;
const TEXT_FIELDS = ['title', 'summary', 'description', 'cve', 'cvssVector', 'cwe', 'cweName'] as const;
/** Empty rows offered below the filled ones. */
export const BLANK_PRODUCT_ROWS = 2;
export const BLANK_ACK_ROWS = 1;
/** The most rows a form may carry (the verb's own limits: 500 products, 50 acknowledgments). */
const MAX_ROWS = { product: 500 + BLANK_PRODUCT_ROWS, ack: 50 + BLANK_ACK_ROWS } as const;

const rowCount = (v: AdvisoryFormValues, kind: 'product' | 'ack'): number => {
  const n = Number(v[`${kind}-rows`] ?? 0);
  return Number.isInteger(n) && n > 0 ? Math.min(n, MAX_ROWS[kind]) : 0;
};

/** The form of an advisory as stored, with blank rows to add to. */
export function advisoryFormValues(a: AdvisoryView): AdvisoryFormValues {
  const v: AdvisoryFormValues = {};
  for (const f of TEXT_FIELDS) v[f] = a[f] ?? '';
  v.ids = a.ids.map((i) => `${i.systemName}: ${i.text}`).join('\n');
  v.remediationCategory = a.remediation?.category ?? '';
  v.remediationDetails = a.remediation?.details ?? '';
  v.remediationUrl = a.remediation?.url ?? '';
  a.products.forEach((p, n) => {
    Object.assign(v, {
      [`product-${n}-identifier`]: p.productIdentifier ?? '',
      [`product-${n}-vendor`]: p.vendor,
      [`product-${n}-name`]: p.name,
      [`product-${n}-version`]: p.version,
      [`product-${n}-status`]: p.status,
      [`product-${n}-justification`]: p.justification ?? '',
      [`product-${n}-impact`]: p.impact ?? '',
    });
  });
  v['product-rows'] = String(a.products.length + BLANK_PRODUCT_ROWS);
  a.acknowledgments.forEach((k, n) => {
    Object.assign(v, { [`ack-${n}-name`]: k.name, [`ack-${n}-organization`]: k.organization ?? '', [`ack-${n}-consent`]: 'yes' });
  });
  v['ack-rows'] = String(a.acknowledgments.length + BLANK_ACK_ROWS);
  return v;
}

/** The posted fields as strings (anything else, such as a repeated field, is dropped). */
export function postedValues(body: unknown): AdvisoryFormValues {
  const b = (body ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(b).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== '_csrf'));
}

type Parsed = {
  /** The verb's input (UpdateAdvisoryInput's shape; the verb validates it). */
  input: Record<string, unknown>;
  /** Which form row each list entry came from, to put the verb's messages next to the right field. */
  productRows: number[];
  ackRows: number[];
  /** Problems the form itself finds before the verb sees it (a malformed id line). */
  issues: FieldIssue[];
};

/** The posted form as the verb's input: blank and removed rows left out, empty optional fields null. */
export function parseAdvisoryForm(v: AdvisoryFormValues): Parsed {
  const s = (k: string) => trimmedField(v[k]);
  const issues: FieldIssue[] = [];
  const ids: { systemName: string; text: string }[] = [];
  for (const line of (v.ids ?? '').split('\n').map((l) => l.trim())) {
    if (!line) continue;
    const at = line.indexOf(':');
    if (at <= 0 || !line.slice(at + 1).trim()) issues.push({ path: 'ids', message: `"${line.slice(0, 80)}" is not "System name: id"` });
    else ids.push({ systemName: line.slice(0, at).trim(), text: line.slice(at + 1).trim() });
  }
  const productRows: number[] = [];
  const products = [];
  for (let n = 0; n < rowCount(v, 'product'); n++) {
    const f = (name: string) => s(`product-${n}-${name}`);
    if (f('remove') || !(f('identifier') || f('vendor') || f('name') || f('version') || f('impact'))) continue;
    productRows.push(n);
    products.push({
      productIdentifier: f('identifier') || null,
      ...(f('vendor') ? { vendor: f('vendor') } : {}),
      ...(f('name') ? { name: f('name') } : {}),
      version: f('version'),
      status: f('status'),
      justification: f('justification') || null,
      impact: f('impact') || null,
    });
  }
  const ackRows: number[] = [];
  const acknowledgments = [];
  for (let n = 0; n < rowCount(v, 'ack'); n++) {
    const f = (name: string) => s(`ack-${n}-${name}`);
    if (f('remove') || !(f('name') || f('organization'))) continue;
    ackRows.push(n);
    // Unticked, the verb refuses the row: a researcher is named only with their consent.
    acknowledgments.push({ name: f('name'), organization: f('organization') || null, consent: f('consent') === 'yes' });
  }
  const category = s('remediationCategory');
  const input: Record<string, unknown> = {
    title: s('title'),
    summary: s('summary'),
    description: s('description'),
    cve: trimmedOrNull(v['cve']),
    ids,
    cvssVector: trimmedOrNull(v['cvssVector']),
    cwe: trimmedOrNull(v['cwe']),
    cweName: trimmedOrNull(v['cweName']),
    products,
    remediation: category ? { category, details: s('remediationDetails'), url: trimmedOrNull(v['remediationUrl']) } : null,
    acknowledgments,
  } satisfies Record<keyof UpdateAdvisoryInput, unknown>;
  return { input, productRows, ackRows, issues };
}

const REMEDIATION_FIELD: Record<string, string> = { category: 'remediationCategory', details: 'remediationDetails', url: 'remediationUrl' };

/** The verb's messages keyed by the form field they are about (`products.2.version` -> `product-{row}-version`). */
export function formErrors(issues: readonly FieldIssue[], parsed: Pick<Parsed, 'productRows' | 'ackRows'>): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const i of issues) {
    const [top, index, field] = i.path.split('.');
    let name = top ?? '';
    if (top === 'products' && index !== undefined)
      name = `product-${parsed.productRows[Number(index)] ?? 0}-${field === 'productIdentifier' ? 'identifier' : (field ?? 'version')}`;
    else if (top === 'acknowledgments' && index !== undefined) name = `ack-${parsed.ackRows[Number(index)] ?? 0}-${field ?? 'name'}`;
    else if (top === 'remediation') name = REMEDIATION_FIELD[index ?? 'details'] ?? 'remediationDetails';
    errors[name] ??= issueSentence(i);
  }
  return errors;
}
