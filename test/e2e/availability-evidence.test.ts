import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateDeepPathSarif, generatePaddedCycloneDx, oneComponentSbom } from '../../bench/evidence-data.js';
import type { Database } from '../../src/db/client.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestDatabase, openMigratedDataDir } from '../helpers/db.js';
import { csrfOf } from '../helpers/dashboard.js';
import { TEST_PASSWORD } from '../helpers/factories.js';
import { freePort, type ServerProcess, startServer } from '../helpers/processes.js';

// Issue 33: one company's evidence work against the real server, while /healthz, another company's
// authenticated read and its SBOM push are sent beside it. Asserted: every one of them is answered
// with its value, and the heavy work is answered as designed. The longest probe wait is reported
// (docs/performance.md "Evidence fairness"), not asserted.

describe("one company's evidence work does not hold the others", { timeout: 300_000 }, () => {
  let dataDir = '';
  let seedDb: Database & { url?: string | undefined; drop?: () => Promise<void> };
  let server: ServerProcess;
  let heavy: Tenant;
  let heavyKey = '';
  let otherKey = '';

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cradle-avail-ev-'));
    seedDb = process.env.DATABASE_URL ? await createTestDatabase() : await openMigratedDataDir(dataDir);
    heavy = await makeTenant(seedDb.db);
    const other = await makeTenant(seedDb.db);
    heavyKey = (await makeKey(seedDb.db, heavy)).key;
    otherKey = (await makeKey(seedDb.db, other)).key;
    for (const t of [heavy, other]) await upsertProduct(seedDb.db, operatorContext(), t.company.id, { name: 'Thermostat', identifier: 'thermo' });
    if (!process.env.DATABASE_URL) await seedDb.close();
    const port = await freePort();
    server = await startServer(
      { DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}`, ...(seedDb.url ? { DATABASE_URL: seedDb.url } : {}) },
      { port, inheritDatabase: true },
    );
  });
  after(async () => {
    await server?.stop();
    if (process.env.DATABASE_URL) await seedDb.drop?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  const api = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  let otherVersion = 0;

  /**
   * Starts `work`, then, while it is not answered, sends /healthz every 50 ms and the other company's
   * read and one-component SBOM push. Returns the work's result, the other company's answers and
   * how many of them (probes included) came back before the work did.
   */
  async function beside<T>(work: () => Promise<T>) {
    let done = false;
    const pending = work().finally(() => (done = true));
    let probes = 0;
    let slowestMs = 0;
    let answeredDuring = 0;
    const probing = (async () => {
      while (!done) {
        const t0 = performance.now();
        const ok = await fetch(`${server.url}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) probes++;
        if (ok && !done) answeredDuring++;
        slowestMs = Math.max(slowestMs, performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const read = api(otherKey, '/api/v1/products').then(async (r) => {
      if (!done) answeredDuring++;
      return { status: r.status, body: (await r.json()) as { identifier: string }[] };
    });
    otherVersion++;
    const push = api(otherKey, '/api/v1/sboms?product=thermo', { method: 'POST', body: oneComponentSbom(otherVersion) }).then(async (r) => {
      if (!done) answeredDuring++;
      return { status: r.status, body: (await r.json()) as { version: number; componentCount: number } };
    });
    const result = await pending;
    await probing;
    const [r, p] = await Promise.all([read, push]);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.map((x) => x.identifier),
      ['thermo'],
      "the other company's read answers its own products",
    );
    assert.equal(p.status, 201, JSON.stringify(p.body));
    assert.equal(p.body.version, otherVersion);
    assert.equal(p.body.componentCount, 1);
    assert.ok(probes > 0, '/healthz was answered');
    return { result, answeredDuring, slowestMs: Math.round(slowestMs) };
  }

  it('reads a 1 MB SARIF log of 50 paths 10,000 segments deep, capping the paths, beside the others', async (t) => {
    const body = generateDeepPathSarif();
    assert.ok(body.length > 1_000_000 && body.length < 1_100_000, String(body.length));
    const { result, answeredDuring, slowestMs } = await beside(() => api(heavyKey, '/api/v1/sarif?product=thermo', { method: 'POST', body }));
    assert.equal(result.status, 201, await result.clone().text());
    const pushed = (await result.json()) as { findingCount: number; artifactCap: { capped: number; maxDepth: number } };
    assert.equal(pushed.findingCount, 50);
    assert.equal(pushed.artifactCap.capped, 50);
    t.diagnostic(`deep-path SARIF: answers beside it before it was answered ${answeredDuring}, longest /healthz wait ${slowestMs} ms`);
  });

  it('answers eight parallel dashboard uploads by one member, storing or refusing each with 429, beside the others', async (t) => {
    const login = await fetch(`${server.url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: heavy.admin.email, password: TEST_PASSWORD }),
    });
    assert.equal(login.status, 204, await login.text());
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = csrfOf(await (await fetch(`${server.url}/evidence`, { headers: { cookie } })).text());
    assert.ok(csrf, 'the evidence page carries a CSRF token');
    const file = generatePaddedCycloneDx(20_000);
    const upload = () => {
      const fd = new FormData();
      fd.append('_csrf', csrf);
      fd.append('product', 'thermo');
      fd.append('document', new Blob([file], { type: 'application/json' }), 'bom.json');
      return fetch(`${server.url}/evidence/sboms`, { method: 'POST', headers: { cookie, origin: server.url }, body: fd, redirect: 'manual' });
    };
    const { result, answeredDuring, slowestMs } = await beside(() => Promise.all(Array.from({ length: 8 }, upload)));
    const statuses = result.map((r) => r.status).sort();
    assert.ok(
      statuses.every((s) => s === 303 || s === 429),
      statuses.join(','),
    );
    assert.ok(statuses.includes(303), 'at least one upload is stored');
    for (const r of result) if (r.status === 429) assert.equal(r.headers.get('retry-after'), '5');
    t.diagnostic(
      `eight uploads: ${statuses.join(',')}; answers beside them before they were answered ${answeredDuring}, longest /healthz wait ${slowestMs} ms`,
    );
  });
});
