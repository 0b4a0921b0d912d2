import type { FieldIssue } from '../kernel/errors.js';

/**
 * Refusals in sentences for people (the dashboard and the portal). A verb's field issues carry
 * the field's JSON path and either its own message ("must not be in the future", "description
 * must be at most 64 KiB") or Zod's ("Too big: expected string to have <=255 characters"), which
 * the API keeps as they are; a page names the field by the label the person saw and says what is
 * wrong in words.
 */

/** Labels of field names that several forms share; a form passes its own for the rest. */
const COMMON_FIELDS: Readonly<Record<string, string>> = {
  awareAt: 'Awareness time',
  componentPurl: 'Third-party component',
  cve: 'CVE',
  cvssVector: 'CVSS vector',
  cwe: 'CWE',
  duplicateOf: 'Original report id',
  email: 'E-mail address',
  fixAvailableAt: 'Fix available since',
  identifier: 'Identifier',
  memberStates: 'Member States',
  url: 'URL',
};

/** `productName` -> `Product name`: the last resort for a field no table names. */
const fromIdentifier = (name: string): string => {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replaceAll('_', ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** The label of an issue's field: the form's own, a shared one, or its name in words. */
export function fieldLabel(path: string, labels: Readonly<Record<string, string>> = {}): string {
  const top = path.split('.')[0] ?? '';
  return labels[path] ?? labels[top] ?? COMMON_FIELDS[path] ?? COMMON_FIELDS[top] ?? (top ? fromIdentifier(top) : 'This form');
}

const UNITS: Readonly<Record<string, string>> = { string: 'characters', array: 'entries', set: 'entries', map: 'entries', file: 'bytes' };
const FORMATS: Readonly<Record<string, string>> = {
  'email address': 'an e-mail address such as name@example.org',
  URL: 'a web address such as https://example.org',
  UUID: 'an id',
  'ISO datetime': 'a date and time',
  'ISO date': 'a date',
};
const TYPES: Readonly<Record<string, string>> = { string: 'text', number: 'a number', boolean: 'yes or no', array: 'a list', object: 'a set of fields' };

/** Zod's English messages (its `en` locale) as the rest of a sentence that starts with the field. */
function zodWords(message: string): string | undefined {
  let m = /^Too (big|small): expected (\w+) to (?:have|be) (<=|>=|<|>|exactly )(-?[\d.]+)(?: (\w+))?$/.exec(message);
  if (m) {
    const [, dir, origin = '', adj, n = ''] = m;
    const unit = UNITS[origin] ? ` ${UNITS[origin]}` : '';
    if (dir === 'small' && adj === '>=' && n === '1' && unit) return origin === 'string' ? 'must not be empty' : 'needs at least one entry';
    const bound = adj === 'exactly ' ? 'exactly' : adj === '<=' ? 'at most' : adj === '>=' ? 'at least' : adj === '<' ? 'less than' : 'more than';
    return `must be ${bound} ${n}${unit}`;
  }
  if (/^Invalid option: expected one of /.test(message) || /^Invalid input: expected "/.test(message)) return 'must be one of the offered choices';
  m = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (m) return m[2] === 'undefined' ? 'is required' : `must be ${TYPES[m[1] ?? ''] ?? m[1]}`;
  m = /^Invalid (.+)$/.exec(message);
  if (m && FORMATS[m[1] ?? '']) return `must be ${FORMATS[m[1] ?? '']}`;
  if (/^Invalid string: must match pattern /.test(message)) return 'is not in the expected form';
  if (message === 'Invalid input') return 'is not valid';
  // Our own verbs' "expected ..." (what the field should hold) reads as "must be ...".
  m = /^expected (.+)$/.exec(message);
  if (m) return `must be ${m[1]}`;
  if (/^at (most|least) /.test(message)) return `must be ${message}`;
  return undefined;
}

const VERB_START = /^(must|is|are|has|have|needs?|cannot|can't|may|should|was|does|do)\b/;

/**
 * One issue as a sentence naming its field: "CVSS vector must be at most 200 characters.",
 * "Original report id: no such report of this company."
 */
export function issueSentence(issue: FieldIssue, labels: Readonly<Record<string, string>> = {}): string {
  const unknown = /^Unrecognized keys?: (.*)$/.exec(issue.message);
  if (unknown) return `This form does not take ${unknown[1]}.`;
  const field = fieldLabel(issue.path, labels);
  const top = issue.path.split('.')[0] ?? '';
  // A verb's own message often starts with the field's JSON name: the label replaces it.
  const own = top && issue.message.startsWith(`${top} `) ? issue.message.slice(top.length + 1) : issue.message;
  const rest = zodWords(own) ?? own;
  const sentence = VERB_START.test(rest) ? `${field} ${rest}` : `${field}: ${rest}`;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Every issue in sentences, one after the other, for a notice above a form. */
export const issuesSentences = (issues: readonly FieldIssue[], labels: Readonly<Record<string, string>> = {}, max = Infinity): string =>
  issues
    .slice(0, max)
    .map((i) => issueSentence(i, labels))
    .join(' ');

/**
 * The issues by the form field they belong to (the first segment of the path), each field's first
 * issue as a sentence; issues without a path go under `fallback`.
 */
export function fieldSentences(issues: readonly FieldIssue[], labels: Readonly<Record<string, string>> = {}, fallback = 'form'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) out[i.path.split('.')[0] || fallback] ??= issueSentence(i, labels);
  return out;
}
