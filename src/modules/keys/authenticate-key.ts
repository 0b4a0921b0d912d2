import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { apiKeys, companies } from '../../db/schema/index.js';
import { safeEqual, sha256Hex } from '../../kernel/ids.js';
import type { Plan } from '../companies/companies.schemas.js';
import { planAtLeast } from '../companies/companies.schemas.js';
import { addressAllowed } from './allowlist.js';
import { KEY_FORMAT } from './keys.schemas.js';

/** A key found by its value, with what the checks need. */
export type KeyRecord = { id: string; companyId: string; plan: Plan; scopes: string[]; allowedIps: string[]; expiresAt: Date; suspendedAt: Date | null };

/**
 * Why a presented key is refused, in the spec's order. `known` refusals name the key and its
 * company (they go to that company's audit log); the others cannot be attributed to any company.
 */
export type KeyRefusal =
  | { reason: 'malformed' | 'unknown'; known: false }
  | { reason: 'expired' | 'suspended' | 'plan' | 'address'; known: true; key: KeyRecord };

/**
 * Finds a key by its value: the SHA-256 digest is the lookup key (an indexed equality, so the time
 * does not depend on how many leading characters match), and the digest found is compared again in
 * constant time before it is trusted.
 */
// The hottest query of the service (every API request): prepared once per database handle, which
// halves its cost by skipping query building (measured on PGlite: 3.0 -> 1.5 ms).
const buildFindKey = (db: Executor) =>
  db
    .select({
      id: apiKeys.id,
      companyId: apiKeys.companyId,
      digest: apiKeys.keyDigest,
      plan: companies.plan,
      scopes: apiKeys.scopes,
      allowedIps: apiKeys.allowedIps,
      expiresAt: apiKeys.expiresAt,
      suspendedAt: apiKeys.suspendedAt,
    })
    .from(apiKeys)
    .innerJoin(companies, eq(companies.id, apiKeys.companyId))
    .where(eq(apiKeys.keyDigest, sql.placeholder('digest')))
    .limit(1)
    .prepare('cradle_find_key');
const prepared = new WeakMap<Executor, ReturnType<typeof buildFindKey>>();

export async function findKey(db: Executor, value: string): Promise<KeyRecord | undefined> {
  if (!KEY_FORMAT.test(value)) return undefined;
  const digest = sha256Hex(value);
  let query = prepared.get(db);
  if (!query) prepared.set(db, (query = buildFindKey(db)));
  const [row] = await query.execute({ digest });
  if (!row || !safeEqual(row.digest, digest)) return undefined;
  const { digest: _d, ...key } = row;
  return key;
}

/**
 * The checks before the rate limit: expiry, suspension, plan (spec Errors: a plan below the
 * route's, Enterprise unless it says otherwise, is 401), then the source address allowlist (403). Returns the refusal, or undefined when the key may
 * proceed to the rate limit and the scope check.
 */
export function checkKey(key: KeyRecord, clientIp: string | undefined, now: Date, minPlan: Plan = 'enterprise'): KeyRefusal | undefined {
  if (key.expiresAt.getTime() <= now.getTime()) return { reason: 'expired', known: true, key };
  if (key.suspendedAt) return { reason: 'suspended', known: true, key };
  if (!planAtLeast(key.plan, minPlan)) return { reason: 'plan', known: true, key };
  if (!addressAllowed(key.allowedIps, clientIp)) return { reason: 'address', known: true, key };
  return undefined;
}

/** Spec "Scopes": a key with no scopes is unrestricted (kept so older keys keep working). */
export const hasScope = (key: Pick<KeyRecord, 'scopes'>, scope: string): boolean => key.scopes.length === 0 || key.scopes.includes(scope);
