/**
 * Auto-escaping HTML templates. Every interpolated value is escaped unless it is itself the
 * product of `html` (or `raw`, which is only for constant markup written in this code base).
 * Written here rather than taken from a package: it is twenty lines, and the escaping rule is the
 * security boundary of every page, so we want it in plain sight.
 */
const SAFE = Symbol('safe-html');
export type SafeHtml = { readonly [SAFE]: true; readonly value: string; toString(): string };

const make = (value: string): SafeHtml => ({ [SAFE]: true, value, toString: () => value });

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"'`]/g, (c) => ESC[c] ?? c);

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (Array.isArray(v)) return v.map(render).join('');
  if (typeof v === 'object' && SAFE in v) return (v as SafeHtml).value;
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return make(out);
}

/** Constant markup only; never pass request data here. */
export const raw = (constant: string): SafeHtml => make(constant);
