import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { operatorContext } from '../../src/kernel/context.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { setKeySuspended } from '../../src/modules/keys/suspend-key.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type SecondInstance, SITE, startSecondInstance, type TestApp } from '../helpers/app.js';

/**
 * ADR 0011: API keys are cached in each instance, yet a revocation, rotation, suspension, scope or
 * plan change made on one instance refuses the very next request on the other. Instance B is a
 * second app on its own connection pool to the same PostgreSQL database (with DATABASE_URL); on
 * PGlite, which one process holds, it is a second app on the one embedded database.
 */
let a: TestApp;
let second: SecondInstance;
let b: FastifyInstance;
let acme: Tenant;
let cookie: string;

before(async () => {
  a = await createTestApp();
  second = await startSecondInstance(a);
  b = second.app;
  acme = await makeTenant(a.database.db);
  cookie = await signInCookie({ ...a, app: b }, acme.admin.email);
});
after(async () => {
  await second.close();
  await a.close();
});

const products = (app: FastifyInstance, key: string) => app.inject({ url: '/api/v1/products', headers: bearer(key) });
const onB = (method: 'POST' | 'DELETE', url: string) => b.inject({ method, url, headers: { host: SITE, cookie } });

/** Two answered requests on A: the key is in A's cache (and the answers are what they should be). */
async function warmOnA(key: string): Promise<void> {
  for (let i = 0; i < 2; i++) assert.equal((await products(a.app, key)).statusCode, 200);
}

function assertRefused(res: { statusCode: number; json(): { detail: string } }, status: number, detail: RegExp): void {
  assert.equal(res.statusCode, status);
  assert.match(res.json().detail, detail);
}

describe('key changes on one instance take effect on the next request on the other', () => {
  it('revocation on B: the next request on A is 401', async () => {
    const k = await makeKey(a.database.db, acme);
    await warmOnA(k.key);
    assert.equal((await onB('DELETE', `/api/settings/api-keys/${k.id}`)).statusCode, 204);
    assertRefused(await products(a.app, k.key), 401, /unknown or revoked/);
  });

  it('rotation on B: the old value is 401 on A at once, the new one 200', async () => {
    const k = await makeKey(a.database.db, acme);
    await warmOnA(k.key);
    const rotated = await onB('POST', `/api/settings/api-keys/${k.id}/rotate`);
    assert.equal(rotated.statusCode, 200);
    assertRefused(await products(a.app, k.key), 401, /unknown or revoked/);
    assert.equal((await products(a.app, rotated.json().key)).statusCode, 200);
  });

  it("the operator's suspension through B: 401 on A, and 200 again once lifted", async () => {
    const k = await makeKey(a.database.db, acme);
    await warmOnA(k.key);
    await setKeySuspended(second.database.db, operatorContext(), k.id, true);
    assertRefused(await products(a.app, k.key), 401, /suspended/);
    await setKeySuspended(second.database.db, operatorContext(), k.id, false);
    assert.equal((await products(a.app, k.key)).statusCode, 200);
  });

  it('a scope taken away by hand in SQL: 403 on A naming the scope', async () => {
    const k = await makeKey(a.database.db, acme, { scopes: ['read', 'products:write'] });
    await warmOnA(k.key);
    // No endpoint edits scopes; an operator would do it in SQL, which is what this is.
    await a.database.ddl(`update api_keys set scopes = array['products:write'] where id = '${k.id}'`);
    assertRefused(await products(a.app, k.key), 403, /lacks the scope "read"/);
  });

  it("the company's plan lowered through B: 401 on A", async () => {
    const other = await makeTenant(a.database.db);
    const k = await makeKey(a.database.db, other);
    await warmOnA(k.key);
    await updateCompany(second.database.db, operatorContext(), other.company.slug, { plan: 'reporting' });
    assertRefused(await products(a.app, k.key), 401, /Enterprise/);
  });
});
