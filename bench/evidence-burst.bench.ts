// Issue 33: a burst of large evidence pushes from one key against `node dist/main.js` on the
// embedded database. 16 parallel pushes of a 45 MiB CycloneDX document (20,000 components whose
// descriptions carry the bulk) from one company, while another company's authenticated read and
// one-component SBOM push and `/healthz` are sent beside them. Printed: what each push was
// answered, the server's resident memory before and at its highest (sampled every 50 ms, and the
// kernel's VmHWM), and the longest /healthz wait. Build first (`npm run build`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/client.js';
import { operatorContext } from '../src/kernel/context.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { makeKey, makeTenant } from '../test/helpers/access.js';
import { BENCH_SECRETS_KEY, report, rssMiB, spawnQuiet, stop, waitFor } from './lib.js';

const PORT = 3903;
const URL_BASE = `http://127.0.0.1:${PORT}`;
const MiB = 1024 * 1024;

function document45MiB(): Buffer {
  const filler = 'x'.repeat(2300);
  const components = Array.from({ length: 20_000 }, (_, i) => ({
    type: 'library',
    'bom-ref': `c${i}`,
    name: `package-${i}`,
    version: '1.0.0',
    description: filler,
  }));
  return Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components }));
}

const dir = mkdtempSync(join(tmpdir(), 'cradle-burst-'));
try {
  const db = await openDatabase({ dataDir: dir });
  await db.migrate();
  const heavy = await makeTenant(db.db);
  const other = await makeTenant(db.db);
  const heavyKey = (await makeKey(db.db, heavy)).key;
  const otherKey = (await makeKey(db.db, other)).key;
  for (const t of [heavy, other]) await upsertProduct(db.db, operatorContext(), t.company.id, { name: 'Bench', identifier: 'bench' });
  await db.close();

  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', PUBLIC_URL: URL_BASE, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
  env.SECRETS_KEY = BENCH_SECRETS_KEY;
  env.DATA_DIR = dir;
  env.API_RATE_LIMIT = '100000';
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const server = spawnQuiet(process.execPath, ['dist/main.js'], env);
  try {
    await waitFor(`${URL_BASE}/readyz`, performance.now(), server);
    const pid = server.pid as number;
    const push = (key: string, body: Buffer | string) =>
      fetch(`${URL_BASE}/api/v1/sboms?product=bench`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
    const small = (v: number) =>
      JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [{ type: 'library', name: 'zlib', version: `1.3.${v}` }] });
    // Warm: both schemas compiled, the other company's first push stored.
    await push(otherKey, small(0));
    const idle = rssMiB(pid);
    const bytes = document45MiB();
    console.log(`document: ${(bytes.length / MiB).toFixed(1)} MiB; server resident before ${idle.toFixed(0)} MiB`);

    let done = false;
    let peak = idle;
    let slowest = 0;
    let probes = 0;
    const sampling = (async () => {
      while (!done) {
        peak = Math.max(peak, rssMiB(pid));
        await sleep(50);
      }
    })();
    const probing = (async () => {
      while (!done) {
        const t0 = performance.now();
        if ((await fetch(`${URL_BASE}/healthz`)).ok) probes++;
        slowest = Math.max(slowest, performance.now() - t0);
        await sleep(50);
      }
    })();
    const t0 = performance.now();
    const burst = Promise.all(Array.from({ length: 16 }, () => push(heavyKey, bytes).then((r) => r.status)));
    const beside: string[] = [];
    const otherWork = (async () => {
      for (let i = 1; i <= 3; i++) {
        const r = await fetch(`${URL_BASE}/api/v1/products`, { headers: { authorization: `Bearer ${otherKey}` } });
        const p = await push(otherKey, small(i));
        beside.push(`read ${r.status}, push ${p.status} at ${(performance.now() - t0).toFixed(0)} ms`);
      }
    })();
    const statuses = await burst;
    const burstMs = performance.now() - t0;
    await otherWork;
    done = true;
    await Promise.all([sampling, probing]);
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec((await import('node:fs')).readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
    const count = (s: number) => statuses.filter((x) => x === s).length;
    console.log(
      `16 pushes answered in ${burstMs.toFixed(0)} ms: ${count(201)} stored (201), ${count(429)} refused (429), other ${statuses.filter((s) => s !== 201 && s !== 429).join(',') || 'none'}`,
    );
    console.log(`the other company beside them: ${beside.join('; ')}`);
    console.log(`/healthz answered ${probes} times, longest wait ${slowest.toFixed(0)} ms`);
    report('server resident memory at its highest during 16 parallel 45 MiB pushes, goal under 600 MiB', peak, 'MiB', 'idle before', idle);
    console.log(`  kernel high-water mark of the server process (start included): ${hwm.toFixed(0)} MiB`);
  } finally {
    await stop(server);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
