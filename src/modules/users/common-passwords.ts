import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The blocklist of commonly used and breached passwords (NIST SP 800-63B-4 section 3.1.1.2): the
 * 49,233 most common passwords of leaked-password corpora as shipped by the maintained
 * `@zxcvbn-ts/language-common` package (MIT; the zxcvbn frequency list). Read once, on the first
 * password that is set, into a Set of lower-cased entries; nothing is fetched at run time.
 * Measured: 40-120 ms once, 2.4 MiB of heap.
 */
let blocklist: Set<string> | undefined;

export function commonPasswords(): Set<string> {
  if (!blocklist) {
    const file = createRequire(import.meta.url).resolve('@zxcvbn-ts/language-common/src/passwords.json');
    const entries = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!Array.isArray(entries) || entries.length < 10_000) throw new Error('the common-password list is missing or damaged');
    blocklist = new Set(entries.filter((e): e is string => typeof e === 'string').map((e) => e.toLowerCase()));
  }
  return blocklist;
}
