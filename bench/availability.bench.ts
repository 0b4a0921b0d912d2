// Issue 33: no company's evidence work holds the others. A server (`node dist/main.js`) on the
// embedded database in a data directory, then, when DATABASE_URL is set, on PostgreSQL (with
// REDIS_URL when set), takes five workloads of company A one after another, and beside each
// another company B sends `/healthz` and an authenticated read every 50 ms and a one-component SBOM
// push every 500 ms:
//   sbom-60k     a valid 60,000-component CycloneDX push
//   sarif-8k     a SARIF log of 8,000 results
//   sarif-deep   the 1 MB SARIF log of 50 URIs 10,000 segments deep
//   burst-16x45  16 parallel 45 MiB pushes from one key (resident memory goal under 600 MiB)
//   uploads-8    eight parallel dashboard uploads of a 20,000-component SBOM by one member
// An SBOM workload lasts until its known-vulnerability matches, which run after the answer, are
// recorded. Printed per database and workload: the workload's own answers and times, each probe kind's slowest
// answer and p99 and how many came, the server's resident memory (sampled every 50 ms, and the
// kernel's high-water mark), the longest event-loop gap and the statements over 0.5 s (/metrics);
// first the same probes against the idle server, the baseline. The goal is every probe answered
// within 500 ms. Build first (`npm run build`).
// AVAILABILITY_WORKLOADS=sbom-60k,... chooses workloads; AVAILABILITY_DATABASES=pglite or postgres
// one database; BENCH_NODE_FLAGS adds node flags to the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`);
// BENCH_SERVER_DIR runs another tree's build (its dist/main.js, from that directory), for a
// before/after in one sitting. BENCH_SERVER_LOG=file keeps the server's log there, at
// BENCH_SERVER_LOG_LEVEL (default warn; `debug` shows each idle memory reclaim and its pause).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { operatorContext } from '../src/kernel/context.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { twoKeyedTenants } from '../test/helpers/access.js';
import { csrfOf } from '../test/helpers/dashboard.js';
import { TEST_PASSWORD } from '../test/helpers/factories.js';
import { freePort } from '../test/helpers/processes.js';
import { beside, between, type Beside, scrape } from './availability-probes.js';
import { generateCycloneDx, generateDeepPathSarif, generatePaddedCycloneDx, generateSarif, oneComponentSbom } from './evidence-data.js';
import { BENCH_SECRETS_KEY, openBenchDatabase, rssMiB, spawnQuiet, stop, waitFor } from './lib.js';
import { memoryByKind, printBreakdown } from './memory-map.js';

// A port nobody holds: a fixed one let another run's server answer in place of this one's.
const PORT = Number(process.env.BENCH_PORT ?? 0) || (await freePort());
const base = `http://127.0.0.1:${PORT}`;
const GOAL_MS = 500;
const FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const SERVER_DIR = process.env.BENCH_SERVER_DIR;
const METRICS_TOKEN = randomBytes(16).toString('hex');
const ALL = ['sbom-60k', 'sarif-8k', 'sarif-deep', 'burst-16x45', 'uploads-8'] as const;
type Name = (typeof ALL)[number];
// AVAILABILITY_MAP=1: after each workload, where the server's resident memory is (bench/memory-map.ts),
// right after and again AVAILABILITY_SETTLE_MS later (default 0: the next workload starts at once).
const MAP = Boolean(process.env.AVAILABILITY_MAP);
const SETTLE_MS = Number(process.env.AVAILABILITY_SETTLE_MS ?? 0);
const chosen = (process.env.AVAILABILITY_WORKLOADS?.split(',') ?? ALL).filter((w): w is Name => (ALL as readonly string[]).includes(w));
const databases = (process.env.DATABASE_URL ? (['pglite', 'postgres'] as const) : (['pglite'] as const)).filter(
  (d) => !process.env.AVAILABILITY_DATABASES || process.env.AVAILABILITY_DATABASES.split(',').includes(d),
);

/** The two companies, their keys, and A's product per workload (each starts at version 1). */
async function seed(kind: 'pglite' | 'postgres') {
  const bench = await openBenchDatabase(kind);
  const { a, keyA, keyB, b } = await twoKeyedTenants(bench.database.db);
  for (const identifier of ['warm', ...ALL]) await upsertProduct(bench.database.db, operatorContext(), a.company.id, { name: identifier, identifier });
  await upsertProduct(bench.database.db, operatorContext(), b.company.id, { name: 'probe', identifier: 'probe' });
  // The server opens the data directory (PGlite) or its own pool (PostgreSQL): this process lets go first.
  await bench.close();
  return { bench, adminEmail: a.admin.email, keyA, keyB };
}

function serverEnv(kind: 'pglite' | 'postgres', where: { dataDir?: string; url?: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'warn',
    NODE_ENV: 'production',
    SECRETS_KEY: BENCH_SECRETS_KEY,
    API_RATE_LIMIT: '10000000',
    EVIDENCE_MAX_BYTES: String(64 * 1024 * 1024),
    METRICS_TOKEN,
    // As `npm start`, the image and compose.yaml start it (ADR 0027): one malloc arena, unless the
    // environment says otherwise (MALLOC_ARENA_MAX= empty for glibc's default of one per thread).
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '1',
  };
  delete env.DATA_DIR;
  delete env.DATABASE_URL;
  if (kind === 'pglite') {
    delete env.REDIS_URL;
    env.DATA_DIR = where.dataDir;
  } else env.DATABASE_URL = where.url;
  return env;
}

const post = (path: string, key: string, body: string | Buffer) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });

/** Each workload: sent by company A, answered with a one-line summary of its own result. */
function workloads(keyA: string, signIn: () => Promise<{ cookie: string; csrf: string }>): Record<Name, () => Promise<() => Promise<string>>> {
  const pushOne = async (path: string, body: string | Buffer) => {
    const res = await post(path, keyA, body);
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 201) return `answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`;
    const cap = json.artifactCap as { capped: number } | undefined;
    return `stored (201): ${String(json.componentCount ?? json.findingCount)} ${'componentCount' in json ? `components, matching ${String(json.matching)}` : 'findings'}${cap ? `, ${cap.capped} paths capped` : ''}`;
  };
  /** The workload goes on until A's pending known-vulnerability matches of `product` are recorded (they run after the answer). */
  const matched = async (product: string, t0: number) => {
    for (;;) {
      const page = (await (await fetch(`${base}/api/v1/sboms?product=${product}&limit=100`, { headers: { authorization: `Bearer ${keyA}` } })).json()) as {
        items: { matching: string }[];
      };
      if (page.items.every((s) => s.matching === 'done')) return `; matched after ${(performance.now() - t0).toFixed(0)} ms`;
      await sleep(200);
    }
  };
  const andMatched = (product: string, answer: () => Promise<string>) => async () => {
    const t0 = performance.now();
    const said = await answer();
    return `${said}, answered after ${(performance.now() - t0).toFixed(0)} ms${await matched(product, t0)}`;
  };
  const tally = (statuses: number[]) => [...new Set(statuses)].map((s) => `${statuses.filter((x) => x === s).length} x ${s}`).join(', ');
  return {
    'sbom-60k': async () => {
      const body = generateCycloneDx(60_000);
      return andMatched('sbom-60k', () => pushOne('/api/v1/sboms?product=sbom-60k', body));
    },
    'sarif-8k': async () => {
      const body = generateSarif(8000);
      return () => pushOne('/api/v1/sarif?product=sarif-8k', body);
    },
    'sarif-deep': async () => {
      const body = generateDeepPathSarif();
      return () => pushOne('/api/v1/sarif?product=sarif-deep', body);
    },
    'burst-16x45': async () => {
      const body = Buffer.from(generatePaddedCycloneDx(20_000, 2300));
      return andMatched('burst-16x45', async () => {
        const statuses = await Promise.all(
          Array.from({ length: 16 }, () => post('/api/v1/sboms?product=burst-16x45', keyA, body).then(async (r) => (await r.arrayBuffer(), r.status))),
        );
        return `16 pushes of ${(body.length / 2 ** 20).toFixed(1)} MiB: ${tally(statuses)} (201 stored, 429 refused)`;
      });
    },
    'uploads-8': async () => {
      const file = generatePaddedCycloneDx(20_000);
      const { cookie, csrf } = await signIn();
      const upload = () => {
        const fd = new FormData();
        fd.append('_csrf', csrf);
        fd.append('product', 'uploads-8');
        fd.append('document', new Blob([file], { type: 'application/json' }), 'bom.json');
        return fetch(`${base}/evidence/sboms`, { method: 'POST', headers: { cookie, origin: base }, body: fd, redirect: 'manual' }).then(
          async (r) => (await r.arrayBuffer(), r.status),
        );
      };
      return andMatched('uploads-8', async () => `eight uploads: ${tally(await Promise.all(Array.from({ length: 8 }, upload)))} (303 stored, 429 refused)`);
    },
  };
}

function print(
  name: string,
  run: Beside<string>,
  idle: Beside<unknown>,
  loop: { loopMaxMs: number; over500ms: number; over1s: number; over5s: number; statements: number },
): void {
  console.log(`${name}: ${run.result} in ${run.ms.toFixed(0)} ms`);
  for (const p of run.probes) {
    const i = idle.probes.find((x) => x.label === p.label);
    const refused = p.refused.length ? `, NOT answered as expected ${p.refused.length} (${p.refused.slice(0, 5).join(',')})` : '';
    console.log(
      `  ${name} ${p.label}: slowest ${p.slowestMs.toFixed(0)} ms, p99 ${p.p99Ms.toFixed(0)} ms, ${p.answered} answered${refused}; goal under ${GOAL_MS} ms (baseline idle slowest ${i?.slowestMs.toFixed(0)} ms, p99 ${i?.p99Ms.toFixed(0)} ms)`,
    );
  }
  console.log(
    `  ${name} server resident: ${run.beforeRssMiB.toFixed(0)} MiB before, ${run.peakRssMiB.toFixed(0)} MiB sampled peak, VmHWM ${run.hwmMiB.toFixed(0)} MiB${name === 'burst-16x45' ? '; goal under 600 MiB' : ''}`,
  );
  console.log(
    `  ${name} longest event-loop gap ${loop.loopMaxMs.toFixed(0)} ms; ${loop.statements} statements, over 0.5 s ${loop.over500ms}, over 1 s ${loop.over1s}, over 5 s ${loop.over5s}`,
  );
}

async function mapAfter(name: string, pid: number): Promise<void> {
  const show = async (when: string) => {
    const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const figure = (metric: string) => Number(new RegExp(`^${metric} (\\S+)`, 'm').exec(text)?.[1]);
    console.log(
      `  ${name} ${when}: ${rssMiB(pid).toFixed(0)} MiB resident, main thread heap ${(figure('nodejs_heap_size_total_bytes') / 2 ** 20).toFixed(0)} MiB committed, ${figure('cradle_offload_workers')} offload workers`,
    );
    printBreakdown(memoryByKind(pid));
  };
  await show('right after');
  if (SETTLE_MS > 0) {
    await sleep(SETTLE_MS);
    await show(`${SETTLE_MS} ms later`);
  }
}

for (const kind of databases) {
  console.log(kind === 'pglite' ? 'PGlite' : 'PostgreSQL');
  const { bench, adminEmail, keyA, keyB } = await seed(kind);
  const server = spawnQuiet(process.execPath, [...FLAGS, 'dist/main.js'], serverEnv(kind, bench), SERVER_DIR);
  try {
    await waitFor(`${base}/readyz`, performance.now(), server, 300_000);
    const pid = server.pid as number;
    // Warm: A's schemas compiled on a first small push of each kind, B's first version stored.
    for (const [path, body] of [
      ['/api/v1/sboms?product=warm', generateCycloneDx(10)],
      ['/api/v1/sarif?product=warm', generateSarif(10)],
    ] as const)
      await (await post(path, keyA, body)).arrayBuffer();
    await (await post('/api/v1/sboms?product=probe', keyB, oneComponentSbom(0))).arrayBuffer();
    const signIn = async () => {
      const login = await fetch(`${base}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: adminEmail, password: TEST_PASSWORD }),
      });
      if (login.status !== 204) throw new Error(`sign-in answered ${login.status}`);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      return { cookie, csrf: csrfOf(await (await fetch(`${base}/evidence`, { headers: { cookie } })).text()) };
    };
    const prober = { base, keyB };
    const start = await scrape(base, METRICS_TOKEN);
    const idle = await beside(pid, prober, () => sleep(5000));
    const idleLoop = between(start, await scrape(base, METRICS_TOKEN));
    console.log(
      `baseline idle, 5 s: ${idle.probes.map((p) => `${p.label} slowest ${p.slowestMs.toFixed(0)} ms p99 ${p.p99Ms.toFixed(0)} ms (${p.answered})`).join('; ')}; longest event-loop gap ${idleLoop.loopMaxMs.toFixed(0)} ms; ${idle.peakRssMiB.toFixed(0)} MiB resident`,
    );
    const all = workloads(keyA, signIn);
    for (const name of chosen) {
      const work = await all[name]();
      const before = await scrape(base, METRICS_TOKEN);
      const run = await beside(pid, prober, work);
      print(name, run, idle, between(before, await scrape(base, METRICS_TOKEN)));
      if (MAP) await mapAfter(name, pid);
    }
  } finally {
    await stop(server);
    await bench.dispose();
  }
}
