import { eq } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { apiKeys } from '../../src/db/schema/index.js';
import type { Company, Plan } from '../../src/modules/companies/companies.schemas.js';
import { operatorContext } from '../../src/kernel/context.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { createKey } from '../../src/modules/keys/create-key.js';
import type { User } from '../../src/modules/users/users.schemas.js';
import { SITE, type TestApp } from './app.js';
import { makeAdmin, makeCompany, TEST_PASSWORD } from './factories.js';

export type Tenant = { company: Company; admin: User };

export async function makeTenant(db: Db, plan: Plan = 'enterprise'): Promise<Tenant> {
  const company = await makeCompany(db, { plan: 'enterprise' });
  const admin = await makeAdmin(db, company.slug);
  if (plan !== 'enterprise') {
    await updateCompany(db, operatorContext(), company.slug, { plan });
  }
  return { company, admin };
}

/** A key issued through the real verb, as a signed-in administrator would. */
export async function makeKey(db: Db, t: Tenant, over: { scopes?: string[]; allowedIps?: string[]; expiresInDays?: number; name?: string } = {}) {
  return createKey(db, { actor: { type: 'user', id: t.admin.id } }, t.company.id, { name: over.name ?? 'test key', ...over });
}

/** Moves a key's expiry into the past (no clock juggling needed). */
export async function expireKey(db: Db, id: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(apiKeys.id, id));
}

export const bearer = (key: string) => ({ host: SITE, authorization: `Bearer ${key}` });

/** Signs in through `POST /api/session`; returns the Cookie header value. */
export async function signInCookie(t: TestApp, email: string, password = TEST_PASSWORD, host = SITE): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/session', headers: { host, 'content-type': 'application/json' }, payload: { email, password } });
  if (res.statusCode !== 204) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  const set = res.headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  return (first ?? '').split(';')[0] ?? '';
}

/** A REST call with an API key; the answer's status and its JSON body (undefined when empty). */
export async function apiJson(t: TestApp, key: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const res = await t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { ...bearer(key), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
  });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as unknown) : undefined };
}

/** Two companies on one instance (A and B of the coordination tests), each with an API key. */
export async function twoKeyedTenants(db: Db): Promise<{ a: Tenant; b: Tenant; keyA: string; keyB: string }> {
  const a = await makeTenant(db);
  const b = await makeTenant(db);
  return { a, b, keyA: (await makeKey(db, a)).key, keyB: (await makeKey(db, b)).key };
}
