import { AppError, ErrorCode } from '../../kernel/errors.js';
import { commonPasswords } from './common-passwords.js';

/**
 * The password policy, NIST SP 800-63B-4 section 3.1.1.2 (docs/access.md "Passwords"). One place
 * for every password that is set: first-run set-up, `cradle admin create`, changing a password,
 * and an invited member's first password. Sign-in checks only the hash, so passwords set under an
 * older policy keep working.
 *
 * - Length in Unicode code points after NFKC normalisation (the form that is hashed): at least 15,
 *   because a second factor is optional here and 63B-4 requires 15 for a password used alone; at
 *   most 1024 (63B-4: allow at least 64).
 * - Every printable character, space and Unicode allowed; no composition rules (63B-4: SHALL NOT).
 * - Refused: a password on the blocklist of common and breached passwords, also lower-cased, with
 *   spaces and separators taken out, or with trailing digits and symbols taken off
 *   (`password12345678`); one short pattern repeated (`abcabcabcabcabc`) or a run of sequential
 *   characters (`123456789012345`); and context words (63B-4: "the name of the service, the
 *   username, and derivatives thereof"): the e-mail address's name, the company's name or portal
 *   name, and "cradle".
 */
export const PASSWORD_MIN = 15;
export const PASSWORD_MAX = 1024;

export type PasswordContext = { email?: string | undefined; companyName?: string | undefined; companySlug?: string | undefined };

const codePoints = (s: string): number => [...s].length;
/** Letters and digits only, lower case: how context words are compared. */
const letters = (s: string): string =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

function isRepetition(s: string): boolean {
  for (let unit = 1; unit <= s.length / 2; unit++) {
    if (s.length % unit === 0 && s.slice(0, unit).repeat(s.length / unit) === s) return true;
  }
  return false;
}

/** Each neighbour one up (or one down) from the last: `abcdefghijklmno`, `123456789012345` (digits wrap). */
function isSequence(s: string): boolean {
  const cps = [...s].map((c) => c.codePointAt(0) ?? 0);
  const step = (a: number, b: number): number => {
    const digits = a >= 48 && a <= 57 && b >= 48 && b <= 57;
    return digits ? (((b - a) % 10) + 10) % 10 : b - a;
  };
  const first = step(cps[0] ?? 0, cps[1] ?? 0);
  if (first !== 1 && first !== -1 && first !== 9) return false;
  return cps.every((c, i) => i === 0 || step(cps[i - 1] ?? 0, c) === first);
}

function blocklisted(normalised: string): boolean {
  const list = commonPasswords();
  const lower = normalised.toLowerCase();
  const compact = lower.replace(/[\s._\-+]/gu, '');
  const stem = compact.replace(/[\p{N}\p{P}\p{S}]+$/u, '');
  return list.has(lower) || list.has(compact) || (stem.length > 0 && list.has(stem));
}

function contextWords(c: PasswordContext): { word: string; says: string }[] {
  const local = c.email?.split('@')[0] ?? '';
  const out = [{ word: 'cradle', says: 'the name of this service' }];
  for (const part of [local, ...local.split(/[._+-]/)]) out.push({ word: letters(part), says: 'the name in your e-mail address' });
  if (c.companyName) out.push({ word: letters(c.companyName), says: "your company's name" });
  if (c.companySlug) out.push({ word: letters(c.companySlug), says: "your company's portal name" });
  return out.filter((w) => w.word.length >= 4);
}

/** What is wrong with a new password, as a sentence for the form, or undefined when it may be used. */
export function passwordProblem(password: string, context: PasswordContext = {}): string | undefined {
  if (password.length === 0) return 'password must not be empty';
  // A code point is at most two UTF-16 units: longer input is refused before any normalising.
  if (password.length > PASSWORD_MAX * 2) return `password must be at most ${PASSWORD_MAX} characters`;
  const normalised = password.normalize('NFKC');
  const length = codePoints(normalised);
  if (length < PASSWORD_MIN) return `password must be at least ${PASSWORD_MIN} characters (it has ${length}); a few unrelated words make a good one`;
  if (length > PASSWORD_MAX) return `password must be at most ${PASSWORD_MAX} characters`;
  if (blocklisted(normalised)) return 'this password is on the list of common or breached passwords; choose another';
  const compact = normalised.toLowerCase().replace(/\s/gu, '');
  if (isRepetition(compact)) return 'password repeats one short pattern; choose another';
  if (isSequence(compact)) return 'password is a run of sequential characters; choose another';
  const key = letters(normalised);
  const hit = contextWords(context).find((w) => key.includes(w.word));
  if (hit) return `password must not contain ${hit.says}`;
  return undefined;
}

/** Throws VALIDATION naming `field` when the new password breaks the policy. */
export function assertPasswordPolicy(password: string, context: PasswordContext, field = 'password'): void {
  const problem = passwordProblem(password, context);
  if (problem) throw new AppError(ErrorCode.VALIDATION, `${field}: ${problem}`, { issues: [{ path: field, message: problem }] });
}
