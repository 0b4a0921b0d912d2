/**
 * Compliance read latency for a large company (issue 8 "Measure"): 200 products each with an SBOM
 * of 500 components and a scan, 20,000 reports (some actively exploited), 100,000 findings.
 * `GET /api/v1/compliance/status` and `/gaps` are timed one request at a time (p50, p99), beside
 * `GET /api/v1/products` of the same company in the same run (same auth, limiter and audit path).
 * Warm reads are served from the facts cache (ADR 0012); a last figure times reads that follow an
 * evidence change, which recompute.
 *
 *   node --import ./scripts/ts-hooks.mjs bench/compliance.bench.ts                  # PGlite in memory
 *   DATABASE_URL=postgres://... node --import ./scripts/ts-hooks.mjs bench/compliance.bench.ts
 *
 * Rows are seeded with set-based INSERTs (generate_series), not through the push verbs: this bench
 * measures the reads, and the ingestion bench measures the writes.
 */
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/client.js';
import { openBenchDatabase } from './lib.js';
import { operatorContext } from '../src/kernel/context.js';
import { createMemoryRateLimiter } from '../src/kernel/rate-limit.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { createKey } from '../src/modules/keys/create-key.js';
import { createAdmin } from '../src/modules/users/create-admin.js';
import { median } from './lib.js';

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 200);
const REPORTS = Number(process.env.BENCH_REPORTS ?? 20_000);
const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const COMPONENTS = 500;
const RUNS = Number(process.env.BENCH_RUNS ?? 40);

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] as number;

async function seed(db: Db, companyId: string): Promise<void> {
  await db.execute(sql`insert into products (id, company_id, identifier, name, created_at, updated_at)
    select gen_random_uuid(), ${companyId}, 'p-' || i, 'Product ' || i, now(), now() from generate_series(1, ${PRODUCTS}) i`);
  await db.execute(sql`insert into sboms (id, company_id, product_id, version, format, spec_version, component_count, dependency_count, added, removed, changed, sha256, byte_size, created_at)
    select gen_random_uuid(), ${companyId}, id, 1, 'cyclonedx', '1.6', ${COMPONENTS}, 0, ${COMPONENTS}, 0, 0, md5(id::text), 1000, now() - interval '10 days' from products where company_id = ${companyId}`);
  await db.execute(sql`insert into sbom_components (sbom_id, ordinal, company_id, name, version, purl, relationship)
    select s.id, i, ${companyId}, 'pkg-' || i, '1.0.' || i, case when i % 10 = 0 then null else 'pkg:npm/pkg-' || i || '@1.0.' || i end, 'direct'
    from sboms s, generate_series(0, ${COMPONENTS - 1}) i where s.company_id = ${companyId}`);
  await db.execute(sql`insert into sarif_scans (id, company_id, product_id, tools, result_count, finding_count, new_count, fixed_count, reopened_count, unchanged_count, sha256, byte_size, document, created_at)
    select gen_random_uuid(), ${companyId}, id, array['Semgrep'], 0, 0, 0, 0, 0, 0, md5(id::text), 0, '\\x'::bytea, now() - interval '3 days' from products where company_id = ${companyId}`);
  await db.execute(sql`insert into findings (id, company_id, product_id, tool, rule_id, fingerprint, state, severity, level, message, first_seen_scan_id, first_seen_at, updated_at)
    select gen_random_uuid(), ${companyId}, p.id, 'Semgrep', 'rule-' || (i % 50), 'fp-' || i, case when i % 3 = 0 then 'fixed' else 'open' end,
      (array['critical','high','medium','low','info'])[1 + i % 5], 'warning', 'finding ' || i, p.scan_id, now(), now()
    from generate_series(1, ${FINDINGS}) i
    join (select pr.id, sc.id as scan_id, row_number() over () as n from products pr join sarif_scans sc on sc.product_id = pr.id where pr.company_id = ${companyId}) p
      on p.n = 1 + i % ${PRODUCTS}`);
  await db.execute(sql`insert into reports (id, company_id, source, status, description, product_name, actively_exploited, aware_at, status_token_digest, created_at, updated_at)
    select gen_random_uuid(), ${companyId}, 'api', (array['new','triaging','accepted','fixed','spam'])[1 + i % 5], 'report ' || i, 'Product ' || (1 + i % ${PRODUCTS}),
      case when i % 500 = 0 then true else null end, case when i % 500 = 0 then now() - interval '1 hour' else null end, md5('bench' || i || ${companyId}),
      now() - (i % 30) * interval '1 day', now()
    from generate_series(1, ${REPORTS}) i`);
}

async function timeSeq(url: string, headers: Record<string, string>, runs: number): Promise<{ first: number; p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - t0);
  }
  const warm = times.slice(1);
  return { first: times[0] as number, p50: median(warm), p99: p99(warm) };
}

const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://127.0.0.1:3000', API_RATE_LIMIT: '10000000' });
const { database, dispose } = await openBenchDatabase(process.env.DATABASE_URL ? 'postgres' : 'pglite');
const slug = `bench-${Date.now().toString(36)}`;
const company = await createCompany(database.db, operatorContext(), {
  slug,
  name: 'Bench GmbH',
  plan: 'enterprise',
  securityEmail: 'psirt@bench.test',
  policyText: 'policy',
});
const admin = await createAdmin(database.db, operatorContext(), slug, { email: `${slug}@example.test`, password: 'quartz lantern ripples over 19 dunes' });
const { key } = await createKey(database.db, { actor: { type: 'user', id: admin.id } }, company.id, { name: 'bench', scopes: ['read'] });
const s0 = performance.now();
await seed(database.db, company.id);
console.log(
  `seeded ${PRODUCTS} products, ${PRODUCTS * COMPONENTS} SBOM components, ${FINDINGS} findings, ${REPORTS} reports in ${((performance.now() - s0) / 1000).toFixed(1)} s (${database.kind})`,
);

const app = await buildApp({ config, database, rateLimiter: createMemoryRateLimiter() });
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address();
const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/api/v1`;
const headers = { authorization: `Bearer ${key}`, host: '127.0.0.1:3000' };
try {
  // The first request of each path is "cold" (first query plans, JIT); the rest are warm.
  const status = await timeSeq(`${base}/compliance/status`, headers, RUNS);
  const gaps = await timeSeq(`${base}/compliance/gaps`, headers, RUNS);
  const one = await timeSeq(`${base}/compliance/status?product=p-7`, headers, RUNS);
  const baseline = await timeSeq(`${base}/products`, headers, RUNS);
  // A read right after an evidence change recomputes (ADR 0012): one report filed before each.
  const changed: number[] = [];
  for (let i = 0; i < Math.min(RUNS, 10); i++) {
    await database.db.execute(sql`insert into reports (id, company_id, source, status, description, status_token_digest, created_at, updated_at)
      values (gen_random_uuid(), ${company.id}, 'api', 'new', 'bench change', md5(random()::text), now(), now())`);
    changed.push((await timeSeq(`${base}/compliance/status`, headers, 1)).first);
  }
  const line = (label: string, f: { first: number; p50: number; p99: number }) =>
    console.log(
      `${label}: cold ${f.first.toFixed(1)} ms, p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms  (baseline GET /products p50 ${baseline.p50.toFixed(1)} ms; ratio ${(f.p50 / baseline.p50).toFixed(1)})`,
    );
  line('GET /compliance/status', status);
  line('GET /compliance/gaps', gaps);
  line('GET /compliance/status?product=p-7', one);
  console.log(
    `GET /compliance/status after a change (a report filed before each): p50 ${median(changed).toFixed(1)} ms, max ${Math.max(...changed).toFixed(1)} ms (recomputed; baseline cold status ${status.first.toFixed(1)} ms)`,
  );
  console.log(`GET /products (baseline): cold ${baseline.first.toFixed(1)} ms, p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms`);
  console.log('goal: p50 under 50 ms once warm, under 1 s cold');
} finally {
  await app.close();
  await dispose();
}
