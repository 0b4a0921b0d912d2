/**
 * An RFC 9116 reader written from the RFC's text, independent of the generator: section 4 grammar
 * (field lines `name: value`, `#` comments, blank lines, CRLF or LF), section 2.5 field rules.
 */
export type Parsed = { fields: { name: string; value: string }[]; errors: string[] };
const URI_FIELDS = new Set(['acknowledgments', 'canonical', 'contact', 'encryption', 'hiring', 'policy', 'csaf']);
const LANG_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseSecurityTxt(text: string, now: Date): Parsed {
  const fields: Parsed['fields'] = [];
  const errors: string[] = [];
  if (!text.endsWith('\n')) errors.push('the last line must end with a line break');
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    const m = /^([A-Za-z0-9-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!m) return void errors.push(`line ${i + 1} is neither a field, a comment nor blank: ${line}`);
    fields.push({ name: (m[1] as string).toLowerCase(), value: m[2] as string });
  });
  const all = (n: string) => fields.filter((f) => f.name === n);
  for (const f of fields) {
    if (!URI_FIELDS.has(f.name)) continue;
    let u: URL;
    try {
      u = new URL(f.value);
    } catch {
      errors.push(`${f.name} is not a URI: ${f.value}`);
      continue;
    }
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.protocol !== 'https:') errors.push(`${f.name}: web URIs must use https: ${f.value}`);
    if (f.name === 'contact' && !['https:', 'mailto:', 'tel:'].includes(u.protocol)) errors.push(`contact scheme ${u.protocol}`);
    if (f.name === 'encryption' && /BEGIN PGP/.test(f.value)) errors.push('encryption must reference a key, not hold it');
  }
  if (all('contact').length === 0) errors.push('Contact is required');
  const expires = all('expires');
  if (expires.length !== 1) errors.push(`Expires must appear exactly once (found ${expires.length})`);
  else if (!RFC3339.test(expires[0]?.value ?? '')) errors.push('Expires is not an RFC 3339 date-time');
  else {
    const at = Date.parse(expires[0]?.value ?? '');
    if (at <= now.getTime()) errors.push('the file has expired');
    if (at - now.getTime() > 366 * 24 * 3600 * 1000) errors.push('Expires is more than a year ahead');
  }
  const langs = all('preferred-languages');
  if (langs.length > 1) errors.push('Preferred-Languages must appear at most once');
  for (const l of langs) for (const tag of l.value.split(',').map((s) => s.trim())) if (!LANG_TAG.test(tag)) errors.push(`bad language tag ${tag}`);
  return { fields, errors };
}

/** The values of one field, in file order (names compared lower-case). */
export const fieldValues = (p: Parsed, name: string): string[] => p.fields.filter((f) => f.name === name.toLowerCase()).map((f) => f.value);
