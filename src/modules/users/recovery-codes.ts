import { randomBytes } from 'node:crypto';
import { and, count, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { recoveryCodes } from '../../db/schema/index.js';
import { newId, sha256Hex } from '../../kernel/ids.js';

/**
 * Ten one-time recovery codes per second factor, shown once. Each is 80 random bits (16 characters
 * of a 32-letter alphabet, grouped by four), so a SHA-256 digest is enough at rest, as for API
 * keys: a copy of the table cannot be turned back into codes.
 */
export const RECOVERY_CODE_COUNT = 10;
// 32 characters without i, l, o and 1, which are read as one another.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz023456789';

const canonical = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');
export const looksLikeRecoveryCode = (code: string): boolean => /^[a-z0-9]{16}$/.test(canonical(code));

function newCode(): string {
  const bytes = randomBytes(16);
  const chars = [...bytes].map((b) => ALPHABET[b & 31] ?? 'a').join('');
  return chars.match(/.{4}/g)?.join('-') ?? chars;
}

/** Replaces a user's codes with ten new ones; returns them (the only time they exist in clear). */
export async function replaceRecoveryCodes(tx: Executor, userId: string, companyId: string, now: Date): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await tx.insert(recoveryCodes).values(codes.map((c) => ({ id: newId(), userId, companyId, codeDigest: sha256Hex(canonical(c)), createdAt: now })));
  return codes;
}

export async function deleteRecoveryCodes(tx: Executor, userId: string): Promise<void> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
}

export async function unusedRecoveryCodes(db: Executor, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return Number(row?.n ?? 0);
}

/**
 * Uses a code: one conditional update, so two requests with the same code cannot both succeed.
 * The lookup is an indexed equality on the digest of the code (a digest, not the code, is
 * compared; a match by digest is a match). Returns how many remain, or undefined for no match.
 */
export async function useRecoveryCode(tx: Executor, userId: string, code: string, now: Date): Promise<number | undefined> {
  if (!looksLikeRecoveryCode(code)) return undefined;
  const used = await tx
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeDigest, sha256Hex(canonical(code))), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  if (used.length === 0) return undefined;
  return unusedRecoveryCodes(tx, userId);
}
