import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { listProducts } from '../../src/modules/products/list-products.js';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, type SecondInstance, startSecondInstance, type TestApp } from '../helpers/app.js';

/**
 * `GET /products` answers from each instance's company read cache (src/db/company-read-cache.ts):
 * the answer is byte for byte what the database gives, and a product registered through another
 * instance (its own pool on PostgreSQL; a second app on the one embedded database on PGlite) is in
 * the very next answer.
 */
let a: TestApp;
let second: SecondInstance;
let b: FastifyInstance;
let acme: Tenant;
let key: string;

before(async () => {
  a = await createTestApp();
  second = await startSecondInstance(a);
  b = second.app;
  acme = await makeTenant(a.database.db);
  key = (await makeKey(a.database.db, acme, { scopes: ['read', 'products:write'] })).key;
});
after(async () => {
  await second.close();
  await a.close();
});

const list = (app: FastifyInstance) => app.inject({ url: '/api/v1/products', headers: bearer(key) });
const register = (app: FastifyInstance, name: string, identifier: string) =>
  app.inject({ method: 'POST', url: '/api/v1/products', headers: { ...bearer(key), 'content-type': 'application/json' }, payload: { name, identifier } });

describe('GET /products from the company read cache', () => {
  it('answers the same JSON the database gives, as application/json, again and again', async () => {
    assert.equal((await register(a.app, 'Hub', 'hub')).statusCode, 201);
    const expected = JSON.stringify(await listProducts(a.database.db, acme.company.id));
    for (let i = 0; i < 3; i++) {
      const res = await list(a.app);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.body, expected);
    }
  });

  it('shows a product registered through the other instance in the next answer', async () => {
    await list(a.app);
    assert.equal((await register(b, 'Camera', 'cam')).statusCode, 201);
    assert.deepEqual(
      (await list(a.app)).json().map((p: { identifier: string }) => p.identifier),
      ['cam', 'hub'],
    );
    assert.equal((await register(a.app, 'Camera 2', 'cam')).statusCode, 200, 'renamed through this instance');
    assert.deepEqual(
      (await list(b)).json().map((p: { name: string }) => p.name),
      ['Camera 2', 'Hub'],
    );
  });
});
