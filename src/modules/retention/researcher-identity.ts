import { createHmac } from 'node:crypto';

/**
 * The pseudonym of one researcher in one company: "Researcher 7F3A", four hex digits of an HMAC of
 * their lower-cased contact address under the company's own salt (docs/retention.md "Pseudonyms").
 * The same person gets the same name on every report, so a thread still reads as a conversation,
 * while 16 bits cannot name anyone back. A report filed without an address is its own person.
 */
export function pseudonymFor(salt: string, email: string | null, reportId: string): string {
  const who = email ? `mail:${email.trim().toLowerCase()}` : `report:${reportId}`;
  return `Researcher ${createHmac('sha256', salt).update(who).digest('hex').slice(0, 4).toUpperCase()}`;
}

/** The names and addresses an armoured public key's user IDs carry ("Ada Lovelace <ada@example.org>"). */
export async function keyIdentities(armoured: string | null): Promise<string[]> {
  if (!armoured) return [];
  try {
    // Loaded on first use, like every use of the library: 2.3 MiB of source the idle server would keep (ADR 0020).
    const { readKey } = await import('openpgp');
    const key = await readKey({ armoredKey: armoured });
    return key.getUserIDs().flatMap((uid) => {
      const m = /^(.*?)\s*(?:\(([^)]*)\))?\s*(?:<([^>]*)>)?$/.exec(uid);
      return [m?.[1], m?.[3]].filter((s): s is string => typeof s === 'string' && s.trim().length >= 3).map((s) => s.trim());
    });
  } catch {
    // A key Cradle could not read carries no identity it could find; the key itself is dropped anyway.
    return [];
  }
}

/**
 * A case-insensitive PostgreSQL regular expression (ARE) matching `needle` literally: every
 * character that is not a letter, digit or space is escaped. `json` matches it as it appears
 * inside a JSON string.
 */
export function literalPattern(needle: string, json = false): string {
  const text = json ? JSON.stringify(needle).slice(1, -1) : needle;
  return text.replace(/[^\p{L}\p{N} ]/gu, (c) => `\\${c}`);
}

/** The needles longest first, so "Ada Lovelace" is replaced before "Ada" could split it. */
export const identityNeedles = (values: Iterable<string | null | undefined>): string[] =>
  [...new Set([...values].filter((v): v is string => typeof v === 'string' && v.trim().length >= 3).map((v) => v.trim()))].sort((a, b) => b.length - a.length);
