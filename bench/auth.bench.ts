/**
 * Authenticated `GET /api/v1/products` throughput and p99 at 50 connections, next to a bare
 * Fastify hello-world measured in the same run, on the same machine, the same way. A second
 * reference isolates the authenticated path from the handler's own work: a bare Fastify route that
 * runs the same products query on the same database, without authentication, limit or audit.
 *
 *   node --import tsx bench/auth.bench.ts            # PGlite in memory, in-memory limiter
 *   DATABASE_URL=postgres://... REDIS_URL=redis://... node --import tsx bench/auth.bench.ts
 *
 * The per-key limit is raised by configuration (API_RATE_LIMIT) for this run only; every request
 * still goes through the whole path: key lookup, plan/expiry/allowlist checks, the limiter, the
 * scope check, the handler's query and the group-committed audit row.
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

async function bare(): Promise<Figures> {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ hello: 'world' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  try {
    return await measure(`http://127.0.0.1:${port}/`, {});
  } finally {
    await app.close();
  }
}

type CradleFigures = Figures & { auditRows: number; refusedNoKey: Figures; refusedUnknownKey: Figures; handlerAlone: Figures };

/** The products query of the endpoint, on a bare Fastify route: what the handler costs by itself. */
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

async function cradle(): Promise<CradleFigures> {
  const { database, company, key, base, close } = await startApiBenchApp();
  const db = database.db;
  try {
    const url = `${base}/api/v1/products`;
    // Reference points that isolate the costs: the app's own overhead (401 without a key: no
    // database), plus one key lookup (401 for an unknown key), then the whole authenticated path.
    const refusedNoKey = await measure(url, { host: '127.0.0.1:3000' });
    const refusedUnknownKey = await measure(url, { authorization: `Bearer ${'0'.repeat(64)}`, host: '127.0.0.1:3000' });
    const alone = await handlerAlone(db, company.id);
    const f = await measure(url, { authorization: `Bearer ${key}`, host: '127.0.0.1:3000' });
    const { sql } = await import('drizzle-orm');
    const res = await db.execute(sql`select count(*)::int as n from audit_log where company_id = ${company.id} and action = 'api.request'`);
    const auditRows = Number((res as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0);
    return { ...f, auditRows, refusedNoKey, refusedUnknownKey, handlerAlone: alone };
  } finally {
    await close();
  }
}

const base = await bare();
const auth = await cradle();
const ratio = auth.rps / base.rps;
const store = `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'} + ${process.env.REDIS_URL ? 'Redis' : 'in-memory'} limiter`;
console.log(`auth bench: ${CONNECTIONS} connections, ${DURATION_S} s each, ${store}`);
console.log(`  bare Fastify hello-world     ${base.rps.toFixed(0).padStart(8)} req/s   p99 ${base.p99} ms   errors ${base.errors}`);
console.log(`  401 without a key (no DB)     ${auth.refusedNoKey.rps.toFixed(0).padStart(8)} req/s   p99 ${auth.refusedNoKey.p99} ms`);
console.log(`  401 unknown key (1 lookup)    ${auth.refusedUnknownKey.rps.toFixed(0).padStart(8)} req/s   p99 ${auth.refusedUnknownKey.p99} ms`);
console.log(`  GET /api/v1/products (auth)  ${auth.rps.toFixed(0).padStart(8)} req/s   p99 ${auth.p99} ms   errors ${auth.errors}   non-2xx ${auth.non2xx}`);
console.log(`  same query, no auth (bare)    ${auth.handlerAlone.rps.toFixed(0).padStart(8)} req/s   p99 ${auth.handlerAlone.p99} ms`);
console.log(`  ratio ${(ratio * 100).toFixed(1)} % of bare (target >= 40 %)   audit rows written ${auth.auditRows}`);
console.log(`  authenticated path keeps ${((auth.rps / auth.handlerAlone.rps) * 100).toFixed(1)} % of the same query without it; the query alone is ${((auth.handlerAlone.rps / base.rps) * 100).toFixed(1)} % of bare`);
