// Issue 33: how long other requests wait while one company's evidence is written. A server
// (`node dist/main.js`, embedded database in a data directory) takes valid CycloneDX pushes of
// 12,000 and 60,000 components over HTTP while `/healthz` is asked every 20 ms; reported are the
// push's time and the slowest probe (the longest the event loop kept a request waiting), beside
// the slowest probe of the same server idle. Needs a current build (`npm run build`).
// PROBE_SIZES=12000,60000 chooses the sizes; BENCH_NODE_FLAGS adds node/V8 flags.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/client.js';
import { operatorContext } from '../src/kernel/context.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { createKey } from '../src/modules/keys/create-key.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { createAdmin } from '../src/modules/users/create-admin.js';
import { generateCycloneDx } from './evidence-data.js';
import { BENCH_SECRETS_KEY, report, rssMiB, spawnQuiet, stop, waitFor } from './lib.js';

const PORT = 3903;
const FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const SIZES = (process.env.PROBE_SIZES ?? '12000,60000').split(',').map(Number);
const base = `http://127.0.0.1:${PORT}`;

/** Asks /healthz every 20 ms until `work` settles; the slowest answer and how many came. */
async function probing<T>(work: Promise<T>): Promise<{ result: T; slowestMs: number; answered: number }> {
  let done = false;
  let slowestMs = 0;
  let answered = 0;
  const loop = (async () => {
    while (!done) {
      const t0 = performance.now();
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) answered++;
      slowestMs = Math.max(slowestMs, performance.now() - t0);
      await sleep(20);
    }
  })();
  const result = await work.finally(() => (done = true));
  await loop;
  return { result, slowestMs, answered };
}

const dir = mkdtempSync(join(tmpdir(), 'cradle-probe-bench-'));
try {
  const database = await openDatabase({ dataDir: dir });
  await database.migrate();
  const ctx = operatorContext();
  const company = await createCompany(database.db, ctx, { slug: 'probe-bench', name: 'Probe GmbH', plan: 'enterprise' });
  const user = await createAdmin(database.db, ctx, company.slug, { email: 'probe@example.test', password: 'quartz lantern ripples over 19 dunes' });
  await upsertProduct(database.db, ctx, company.id, { name: 'bench', identifier: 'bench' });
  const { key } = await createKey(database.db, { actor: { type: 'user', id: user.id } }, company.id, { name: 'bench', scopes: ['sbom:write'] });
  await database.close();

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    SECRETS_KEY: BENCH_SECRETS_KEY,
    DATA_DIR: dir,
    EVIDENCE_MAX_BYTES: String(64 * 1024 * 1024),
  };
  delete env.DATABASE_URL;
  const server = spawnQuiet(process.execPath, [...FLAGS, 'dist/main.js'], env);
  try {
    await waitFor(`${base}/readyz`, performance.now(), server);
    const push = async (n: number): Promise<number> => {
      const res = await fetch(`${base}/api/v1/sboms?product=bench`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/vnd.cyclonedx+json' },
        body: generateCycloneDx(n),
      });
      if (res.status !== 201) throw new Error(`push answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return ((await res.json()) as { componentCount: number }).componentCount;
    };
    await push(10); // warm-up: schema compile, first statements
    const idle = await probing(sleep(2000));
    console.log(`idle: ${idle.answered} probes, slowest ${idle.slowestMs.toFixed(0)} ms; server ${rssMiB(server.pid as number).toFixed(0)} MiB resident`);
    for (const n of SIZES) {
      const t0 = performance.now();
      const r = await probing(push(n));
      const ms = performance.now() - t0;
      console.log(`  ${r.result} components in ${ms.toFixed(0)} ms, ${r.answered} probes answered meanwhile`);
      report(`slowest /healthz during a ${n}-component push over HTTP, PGlite`, r.slowestMs, 'ms', 'slowest idle probe', idle.slowestMs);
    }
  } finally {
    await stop(server);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
