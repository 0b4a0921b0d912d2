/**
 * REST read paths beside a bare Fastify route that answers the same JSON bytes from memory, same
 * run, same machine, 50 connections:
 *   - `GET /api/v1/products` with 50 products;
 *   - `GET /api/v1/vulnerabilities/export` with 100 reports (one full page).
 * Then the company export's memory: the peak heap growth while streaming `GET /api/v1/export` of a
 * company with a large audit log, beside the growth of building the same audit log as one string
 * (what a non-streamed export would hold).
 *
 *   npm run bench rest      (DATABASE_URL=postgres://... for PostgreSQL, REDIS_URL=redis://... for the Redis limiter)
 *
 * Each route and its bare twin alternate for BENCH_ROUNDS rounds (default 3); the ratio is the
 * median of the rounds' ratios, the req/s printed are those of the median round.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { eq } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { auditLog } from '../src/db/schema/index.js';
import { operatorContext } from '../src/kernel/context.js';
import { createMemoryRateLimiter } from '../src/kernel/rate-limit.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { getCompanyById } from '../src/modules/companies/get-company.js';
import { createKey } from '../src/modules/keys/create-key.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { fileReport } from '../src/modules/reports/file-report.js';
import { createAdmin } from '../src/modules/users/create-admin.js';
import { median, openBenchDatabase } from './lib.js';
import { createRedisRateLimiter } from '../src/kernel/redis-rate-limit.js';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const AUDIT_ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000);
const HOST = '127.0.0.1:3000';

type Figures = { rps: number; p99: number; non2xx: number; errors: number };

async function load(url: string, headers: Record<string, string>): Promise<Figures> {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/**
 * The machine's speed drifts within seconds when it is shared, so each route and its bare twin are
 * measured in alternating rounds after one warm-up of each, and the figure is the median of the
 * rounds' ratios (as bench/auth.bench.ts does).
 */
async function rounds(url: string, headers: Record<string, string>, bareUrl: string): Promise<{ c: Figures; b: Figures; ratios: number[] }> {
  await autocannon({ url: bareUrl, connections: CONNECTIONS, duration: 2 });
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  const pairs: { b: Figures; c: Figures }[] = [];
  for (let i = 0; i < ROUNDS; i++) pairs.push({ b: await load(bareUrl, {}), c: await load(url, headers) });
  const ratios = pairs.map((p) => p.c.rps / p.b.rps);
  const mid = pairs[ratios.indexOf(median(ratios))] ?? pairs[0]!;
  return { ...mid, ratios };
}

const portOf = (app: { server: { address(): unknown } }) => (app.server.address() as { port: number }).port;

// A full collection on demand, without --expose-gc on the command line (`npm run bench` has none).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Live heap after a full collection. */
const liveHeap = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};

/**
 * Streams a response to its end, sampling the live heap every 2 MiB read; returns the peak growth in
 * MiB and the bytes read. Client and server share this process, so it is the memory of both.
 */
async function streamedPeak(url: string, headers: Record<string, string>): Promise<{ peakMiB: number; bytes: number }> {
  const base = liveHeap();
  let peak = 0;
  let bytes = 0;
  let next = 0;
  const res = await fetch(url, { headers });
  if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
  for await (const chunk of res.body) {
    bytes += (chunk as Uint8Array).byteLength;
    if (bytes >= next) {
      peak = Math.max(peak, liveHeap() - base);
      next = bytes + 2 * 2 ** 20;
    }
  }
  return { peakMiB: peak / 2 ** 20, bytes };
}

const databaseUrl = process.env.DATABASE_URL;
const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', PUBLIC_URL: `http://${HOST}`, API_RATE_LIMIT: '10000000' });
const { database, dispose } = await openBenchDatabase(databaseUrl ? 'postgres' : 'pglite', 20);
const db = database.db;
const ctx = operatorContext();
const slug = `rest-${Date.now().toString(36)}`;
const created = await createCompany(db, ctx, { slug, name: 'Bench GmbH', plan: 'enterprise' });
const admin = await createAdmin(db, ctx, slug, { email: `${slug}@example.test`, password: 'quartz lantern ripples over 19 dunes' });
for (let i = 0; i < 50; i++)
  await upsertProduct(db, ctx, created.id, { name: `Product ${i}`, identifier: `p-${i}`, producer: 'Bench GmbH', firmwareVersion: `1.${i}.0` });
const company = await getCompanyById(db, created.id);
for (let i = 0; i < 100; i++) {
  await fileReport(
    db,
    ctx,
    company,
    {
      description: `Report ${i}: heap overflow in the parser of the update service, reachable before authentication.`,
      productName: `Product ${i % 50}`,
      vulnerabilityType: 'memory_corruption',
      impact: 'Remote code execution.',
    },
    'api',
  );
}
const { key } = await createKey(db, { actor: { type: 'user', id: admin.id } }, company.id, { name: 'bench' });
const rateLimiter = process.env.REDIS_URL ? createRedisRateLimiter(process.env.REDIS_URL, { prefix: `cradle:bench:${slug}:` }) : createMemoryRateLimiter();
const app = await buildApp({ config, database, rateLimiter });
await app.listen({ host: '127.0.0.1', port: 0 });
const site = `http://127.0.0.1:${portOf(app)}`;
const auth = { authorization: `Bearer ${key}`, host: HOST };

// The bare baseline answers exactly the bytes Cradle answered, from memory.
const products = await (await fetch(`${site}/api/v1/products`, { headers: auth })).text();
const reports = await (await fetch(`${site}/api/v1/vulnerabilities/export`, { headers: auth })).text();
if (JSON.parse(products).length !== 50 || JSON.parse(reports).reports.length !== 100) throw new Error('bench data not as expected');
const bare = Fastify({ logger: false });
bare.get('/products', async (_req, reply) => reply.type('application/json; charset=utf-8').send(products));
bare.get('/export', async (_req, reply) => reply.type('application/json; charset=utf-8').send(reports));
await bare.listen({ host: '127.0.0.1', port: 0 });
const bareUrl = `http://127.0.0.1:${portOf(bare)}`;

const rows: [string, Figures, Figures, number, number[]][] = [];
for (const [label, path, barePath, size] of [
  ['GET /products (50)', '/api/v1/products', '/products', products.length],
  ['GET /vulnerabilities/export (100)', '/api/v1/vulnerabilities/export', '/export', reports.length],
] as const) {
  const { c, b, ratios } = await rounds(`${site}${path}`, auth, `${bareUrl}${barePath}`);
  rows.push([label, c, b, size, ratios]);
}

// The export of a large company: many audit rows, streamed.
const batch = 5_000;
for (let i = 0; i < AUDIT_ROWS; i += batch) {
  await db.insert(auditLog).values(
    Array.from({ length: Math.min(batch, AUDIT_ROWS - i) }, (_, j) => ({
      companyId: company.id,
      at: new Date(),
      actorType: 'system' as const,
      action: 'bench.row',
      targetType: 'report',
      targetId: `r-${i + j}`,
      details: { n: i + j, note: 'a bench audit row of ordinary size' },
    })),
  );
}
const streamed = await streamedPeak(`${site}/api/v1/export`, auth);
const before = liveHeap();
const whole = JSON.stringify(await db.select().from(auditLog).where(eq(auditLog.companyId, company.id)));
const wholeMiB = (liveHeap() - before) / 2 ** 20;

await bare.close();
await app.close();
await rateLimiter.close();
await dispose();

const store = `${databaseUrl ? 'PostgreSQL' : 'PGlite'} + ${process.env.REDIS_URL ? 'Redis' : 'in-memory'} limiter`;
console.log(`rest bench: ${CONNECTIONS} connections, ${DURATION_S} s each, ${ROUNDS} alternating rounds, ${store}`);
for (const [label, c, b, size, ratios] of rows) {
  console.log(
    `  ${label.padEnd(34)} ${c.rps.toFixed(0).padStart(7)} req/s  p99 ${String(c.p99).padStart(4)} ms   bare same JSON (${(size / 1024).toFixed(1)} KiB) ${b.rps.toFixed(0).padStart(7)} req/s  p99 ${String(b.p99).padStart(4)} ms   ratio ${median(ratios).toFixed(2)} (median of ${ratios.map((r) => r.toFixed(2)).join(', ')})   non-2xx ${c.non2xx} errors ${c.errors}`,
  );
}
console.log(
  `  GET /export, ${AUDIT_ROWS} audit rows: ${(streamed.bytes / 2 ** 20).toFixed(1)} MiB streamed, peak live heap growth ${streamed.peakMiB.toFixed(1)} MiB; the same audit rows as one string: ${wholeMiB.toFixed(1)} MiB (${(whole.length / 2 ** 20).toFixed(1)} MiB of text)`,
);
