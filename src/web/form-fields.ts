/**
 * Readers of posted form fields and query parameters, the one place under `src/web/` that
 * interprets them (test/architecture/web.test.ts refuses a local copy). A field arrives as a string,
 * an array when repeated, or not at all; each reader names how the page treats the absent and
 * repeated cases, so two pages never differ by accident.
 */

/** The field as typed, or undefined when absent (or repeated): for optional parameters. */
export const optionalField = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The field as typed, '' when absent: for values shown back in a re-rendered form. */
export const textField = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The field without surrounding blanks, '' when absent. */
export const trimmedField = (v: unknown): string => textField(v).trim();

/** The field without surrounding blanks, null when blank or absent: an optional value the verb clears with null. */
export const trimmedOrNull = (v: unknown): string | null => trimmedField(v) || null;

/** A typed value kept as typed, null when it is only blanks: the verb still sees (and refuses) stray spacing. */
export const blankAsNull = (s: string): string | null => (s.trim() === '' ? null : s);

/** A repeated field (checkboxes, multi-selects) as its list of strings; one value is a list of one. */
export const listField = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);

/** One named field of a parsed body that may be missing or not an object. */
export const bodyField = (body: unknown, name: string): unknown =>
  body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;

/** A body's named field as typed, '' when absent. */
export const bodyText = (body: unknown, name: string): string => textField(bodyField(body, name));

/** A body's named field without surrounding blanks, '' when absent. */
export const bodyTrimmed = (body: unknown, name: string): string => trimmedField(bodyField(body, name));
