/**
 * Authenticated `GET /api/v1/products` throughput and p99 at 50 connections, next to a bare
 * Fastify hello-world measured in the same run, on the same machine, the same way, in alternating
 * rounds (median ratio). Further references: 401 answers without a database read, and a bare
 * Fastify route that runs the products query itself on every request, without authentication,
 * limit, audit or the company read cache.
 *
 *   node --import ./scripts/ts-hooks.mjs bench/auth.bench.ts            # PGlite in memory, in-memory limiter
 *   DATABASE_URL=postgres://... REDIS_URL=redis://... node --import ./scripts/ts-hooks.mjs bench/auth.bench.ts
 *
 * The per-key limit is raised by configuration (API_RATE_LIMIT) for this run only; every request
 * still goes through the whole path: key lookup, plan/expiry/allowlist checks, the limiter, the
 * scope check, the handler (the product list, from memory after the turn's shared version read:
 * src/db/company-read-cache.ts) and the group-committed audit row.
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { listProducts } from '../src/modules/products/list-products.js';
import { startApiBenchApp } from './api-bench-app.js';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);

type Figures = { rps: number; p99: number; errors: number; non2xx: number };

async function measure(url: string, headers: Record<string, string>): Promise<Figures> {
  // Warm-up (JIT, connection pools, PGlite caches), then the measured run.
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

/** A bare Fastify hello-world on a loopback port, kept listening for the alternating rounds. */
async function startBare(): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ hello: 'world' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`, close: () => app.close() };
}

/** The products query itself on every request, on a bare Fastify route (the endpoint ran it per request before ADR 0014). */
async function handlerAlone(db: Parameters<typeof listProducts>[0], companyId: string): Promise<Figures> {
  const app = Fastify({ logger: false });
  app.get('/products', async () => listProducts(db, companyId));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  try {
    return await measure(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/products`, {});
  } finally {
    await app.close();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

type Round = { bare: Figures; auth: Figures };

// The machine's speed drifts within minutes (the same hello-world measured 12,944 and 22,249 req/s
// an hour apart), so the two are measured in alternating rounds against servers that stay up, and
// the figure is the median of the rounds' ratios, each taken against its own round's baseline.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const bareServer = await startBare();
const { database, company, key, base, close } = await startApiBenchApp();
const db = database.db;
const url = `${base}/api/v1/products`;
const rounds: Round[] = [];
let refusedNoKey: Figures;
let refusedUnknownKey: Figures;
let alone: Figures;
let auditRows: number;
try {
  // One longer warm-up of each before the rounds: the first round otherwise measured the authenticated
  // path while V8 was still compiling it (its ratio came out lowest in most runs).
  await autocannon({ url: bareServer.url, connections: CONNECTIONS, duration: 5 });
  await autocannon({ url, headers: { authorization: `Bearer ${key}`, host: '127.0.0.1:3000' }, connections: CONNECTIONS, duration: 5 });
  for (let i = 0; i < ROUNDS; i++) {
    const b = await measure(bareServer.url, {});
    const a = await measure(url, { authorization: `Bearer ${key}`, host: '127.0.0.1:3000' });
    rounds.push({ bare: b, auth: a });
  }
  // Reference points that isolate the costs: the app's own overhead (401 without a key: no
  // database), plus one key lookup (401 for an unknown key), and the handler's query alone.
  refusedNoKey = await measure(url, { host: '127.0.0.1:3000' });
  refusedUnknownKey = await measure(url, { authorization: `Bearer ${'0'.repeat(64)}`, host: '127.0.0.1:3000' });
  alone = await handlerAlone(db, company.id);
  const { sql } = await import('drizzle-orm');
  const res = await db.execute(sql`select count(*)::int as n from audit_log where company_id = ${company.id} and action = 'api.request'`);
  auditRows = Number((res as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0);
} finally {
  await close();
  await bareServer.close();
}

const ratios = rounds.map((r) => r.auth.rps / r.bare.rps);
const ratio = median(ratios);
const authRps = median(rounds.map((r) => r.auth.rps));
const bareRps = median(rounds.map((r) => r.bare.rps));
const store = `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'} + ${process.env.REDIS_URL ? 'Redis' : 'in-memory'} limiter`;
const line = (label: string, f: Figures) =>
  `  ${label.padEnd(30)}${f.rps.toFixed(0).padStart(8)} req/s   p99 ${f.p99} ms   errors ${f.errors}   non-2xx ${f.non2xx}`;
console.log(`auth bench: ${CONNECTIONS} connections, ${DURATION_S} s each, ${ROUNDS} alternating rounds, ${store}`);
rounds.forEach((r, i) => {
  console.log(line(`round ${i + 1}: hello-world`, r.bare));
  console.log(line(`round ${i + 1}: GET /products`, r.auth));
});
console.log(line('401 without a key (no DB)', refusedNoKey));
console.log(line('401 unknown key (1 lookup)', refusedUnknownKey));
console.log(line('products query, no auth (bare)', alone));
console.log(
  `  ratio ${(ratio * 100).toFixed(1)} % of bare (target >= 40 %): median of ${ratios.map((r) => `${(r * 100).toFixed(1)} %`).join(', ')}; audit rows written ${auditRows}`,
);
console.log(
  `  authenticated route (median ${authRps.toFixed(0)} req/s) = ${((authRps / alone.rps) * 100).toFixed(1)} % of the bare products query; that query alone is ${((alone.rps / bareRps) * 100).toFixed(1)} % of bare`,
);
