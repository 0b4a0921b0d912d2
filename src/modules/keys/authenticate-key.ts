import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { perHandle } from '../../db/prepared.js';
import { apiKeys, companies } from '../../db/schema/index.js';
import type { Plan } from '../companies/companies.schemas.js';
import { addressAllowed } from './allowlist.js';
import { authorize, scopeAllows } from '../../kernel/access.js';

/** A key found by its value, with what the checks need. */
export type KeyRecord = {
  id: string;
  companyId: string;
  plan: Plan;
  scopes: string[];
  allowedIps: string[];
  expiresAt: Date;
  suspendedAt: Date | null;
  /** Set while the company's deletion is pending: every key of the company is refused (docs/backup.md). */
  companyDeletionDueAt: Date | null;
};

/**
 * Why a presented key is refused, in the order of docs/access.md "Authenticating a request".
 * `known` refusals name the key and its company (they go to that company's audit log); the others
 * cannot be attributed to any company.
 */
export type KeyRefusal =
  | { reason: 'malformed' | 'unknown'; known: false }
  | { reason: 'expired' | 'suspended' | 'company-suspended' | 'plan' | 'address'; known: true; key: KeyRecord };

// The hottest query of the service (every API request the key cache cannot answer).
const findKeyQuery = perHandle((db) =>
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
      companyDeletionDueAt: companies.deletionDueAt,
    })
    .from(apiKeys)
    .innerJoin(companies, eq(companies.id, apiKeys.companyId))
    .where(eq(apiKeys.keyDigest, sql.placeholder('digest')))
    .limit(1)
    .prepare('cradle_find_key'),
);

/**
 * The key whose stored digest equals `digest`, the SHA-256 of the presented value: an indexed
 * equality, so the time does not depend on how many leading characters match. The stored digest
 * comes back with it, and the caller (the key cache) compares it again in constant time before
 * trusting it.
 */
export async function findKeyByDigest(db: Executor, digest: string): Promise<(KeyRecord & { digest: string }) | undefined> {
  const [row] = await findKeyQuery(db).execute({ digest });
  return row;
}

/**
 * The checks before the rate limit: expiry, suspension, plan (docs/access.md "Authenticating a
 * request": a plan below the route's, Enterprise unless it says otherwise, is 401), then the source
 * address allowlist (403). Returns the refusal, or undefined when the key may proceed to the rate
 * limit and the scope check.
 */
export function checkKey(key: KeyRecord, clientIp: string | undefined, now: Date, minPlan?: Plan): KeyRefusal | undefined {
  if (key.expiresAt.getTime() <= now.getTime()) return { reason: 'expired', known: true, key };
  if (key.suspendedAt) return { reason: 'suspended', known: true, key };
  if (key.companyDeletionDueAt) return { reason: 'company-suspended', known: true, key };
  if (authorize({ plan: key.plan }, { minPlan })?.reason === 'plan') return { reason: 'plan', known: true, key };
  if (!addressAllowed(key.allowedIps, clientIp)) return { reason: 'address', known: true, key };
  return undefined;
}

/** docs/access.md "Scopes": a key with no scopes is unrestricted (kept so older keys keep working). */
export const hasScope = (key: Pick<KeyRecord, 'scopes'>, scope: string): boolean => scopeAllows(key.scopes, scope);
