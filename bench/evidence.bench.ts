// Evidence ingestion figures (issue 6): ingest time and peak resident memory of pushSbom for a
// generated CycloneDX SBOM of 10,000 and 100,000 components and of pushSarif for 50,000 results,
// each beside a same-run baseline: JSON.parse of the same bytes plus a bulk insert of as many rows
// into a plain table. PGlite always; PostgreSQL too when DATABASE_URL is set.
// Every measurement runs in a fresh child process, so its peak RSS (getrusage maxrss) is its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../src/db/client.js';
import { operatorContext } from '../src/kernel/context.js';
import { param } from '../src/kernel/evidence-store.js';
import type { PushSarifResult } from '../src/modules/findings/findings.schemas.js';
import { pushSarif } from '../src/modules/findings/push-sarif.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { pushSbom } from '../src/modules/sboms/push-sbom.js';
import type { Sbom } from '../src/modules/sboms/sboms.schemas.js';
import { createTestDatabase } from '../test/helpers/db.js';
import { makeCompany } from '../test/helpers/factories.js';
import { generateCycloneDx, generateSarif } from './evidence-data.js';
import { report } from './lib.js';

type Scenario = 'sbom-10k' | 'sbom-100k' | 'sarif-50k';
type Sample = { ms: number; peakMiB: number; note?: string };
const SIZES: Record<Scenario, number> = { 'sbom-10k': 10_000, 'sbom-100k': 100_000, 'sarif-50k': 50_000 };

/**
 * Peak resident memory while `fn` runs, sampled every 5 ms from a worker thread (which keeps
 * sampling while the main thread is busy parsing), plus the resident memory just before it.
 */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; peakMiB: number; beforeMiB: number }> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads'); let max = 0;
     const t = setInterval(() => { max = Math.max(max, process.memoryUsage.rss()); }, 5);
     parentPort.on('message', () => { clearInterval(t); max = Math.max(max, process.memoryUsage.rss()); parentPort.postMessage(max); });`,
    { eval: true },
  );
  // Collect the garbage of generating the document and opening the database first.
  (globalThis as { gc?: () => void }).gc?.();
  const beforeMiB = process.memoryUsage.rss() / 1048576;
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const peak = await new Promise<number>((resolve) => {
    worker.once('message', resolve);
    worker.postMessage('stop');
  });
  await worker.terminate();
  return { value, ms, peakMiB: Math.max(peak / 1048576, beforeMiB), beforeMiB };
}

async function child(scenario: Scenario, mode: 'ingest' | 'baseline'): Promise<Sample> {
  const n = SIZES[scenario];
  const bytes = scenario.startsWith('sbom') ? generateCycloneDx(n) : generateSarif(n);
  // PGlite as deployed (files under DATA_DIR), not in memory: an in-memory cluster lives in the
  // WebAssembly heap and would add its whole size to every figure.
  const dir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'cradle-evidence-bench-'));
  const d: Database & { drop?: () => Promise<void>; ddl?: (statement: string) => Promise<void> } = dir ? await openDatabase({ dataDir: dir }) : await createTestDatabase();
  if (dir) await d.migrate();
  try {
    const c = await makeCompany(d.db);
    const ctx = operatorContext();
    await upsertProduct(d.db, ctx, c.id, { name: 'Bench', identifier: 'bench' });
    await upsertProduct(d.db, ctx, c.id, { name: 'Warm-up', identifier: 'warm' });
    if (mode === 'baseline') {
      // On PostgreSQL Cradle's queries run as a role without DDL (ADR 0009): the login makes the table.
      const plain = 'create table bench_plain (id int primary key, name text not null, version text, purl text)';
      if (d.ddl) {
        await d.ddl(plain);
        await d.ddl('grant all on bench_plain to public');
      } else await d.db.execute(sql.raw(plain));
      const m = await measured(async () => {
        const doc = JSON.parse(bytes.toString('utf8')) as { components?: unknown[]; runs?: { results: unknown[] }[] };
        const count = doc.components?.length ?? doc.runs?.[0]?.results.length ?? 0;
        await d.db.transaction(async (tx) => {
          for (let s = 0; s < count; s += 5000) {
            const ids = Array.from({ length: Math.min(5000, count - s) }, (_, i) => s + i);
            await tx.execute(sql`insert into bench_plain (id, name, version, purl) select * from unnest(${param(ids)}::int[],
              ${param(ids.map((i) => `package-${i}`))}::text[], ${param(ids.map(() => '1.0.0'))}::text[], ${param(ids.map((i) => `pkg:npm/p${i}@1.0.0`))}::text[])`);
          }
        });
        return count;
      });
      return { ms: m.ms, peakMiB: m.peakMiB, note: `${m.value} rows; ${m.beforeMiB.toFixed(0)} MiB resident before` };
    }
    // A running server compiles each schema once, on its first push; warm it here so the figure is
    // the steady-state push. The one-off compile is reported separately.
    const w0 = performance.now();
    if (scenario.startsWith('sbom')) await pushSbom(d.db, ctx, c.id, 'warm', generateCycloneDx(1));
    else await pushSarif(d.db, ctx, c.id, 'warm', generateSarif(1));
    const warm = performance.now() - w0;
    const m = await measured<Sbom | PushSarifResult>(() => (scenario.startsWith('sbom') ? pushSbom(d.db, ctx, c.id, 'bench', bytes) : pushSarif(d.db, ctx, c.id, 'bench', bytes)));
    const r = m.value;
    let note = `${(bytes.length / 1048576).toFixed(1)} MiB document; ${m.beforeMiB.toFixed(0)} MiB resident before; first push incl. schema compile ${warm.toFixed(0)} ms`;
    if ('componentCount' in r) note += `; ${r.componentCount} components`;
    else {
      const again = await measured(() => pushSarif(d.db, ctx, c.id, 'bench', bytes));
      note += `; ${r.new} new; same log again (${again.value.unchanged} unchanged) ${again.ms.toFixed(0)} ms`;
    }
    return { ms: m.ms, peakMiB: m.peakMiB, note };
  } finally {
    if (d.drop) await d.drop();
    else await d.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

function run(scenario: Scenario, mode: 'ingest' | 'baseline', databaseUrl: string | undefined): Sample {
  const env = { ...process.env };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/evidence.bench.ts', '--child', scenario, mode], { env, encoding: 'utf8', maxBuffer: 1 << 20 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`${scenario} ${mode} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(line) as Sample;
}

if (process.argv[2] === '--child') {
  const s = await child(process.argv[3] as Scenario, process.argv[4] as 'ingest' | 'baseline');
  console.log(JSON.stringify(s));
  process.exit(0);
}

const targets: [string, string | undefined][] = [['PGlite', undefined]];
if (process.env.DATABASE_URL) targets.push(['PostgreSQL', process.env.DATABASE_URL]);
let failed = false;
for (const [label, url] of targets) {
  console.log(`\n${label}`);
  for (const scenario of Object.keys(SIZES) as Scenario[]) {
    try {
      const base = run(scenario, 'baseline', url);
      const ing = run(scenario, 'ingest', url);
      report(`  ${scenario} ingest time`, ing.ms, 'ms', 'JSON.parse + plain bulk insert', base.ms);
      report(`  ${scenario} peak RSS`, ing.peakMiB, 'MiB', 'JSON.parse + plain bulk insert', base.peakMiB);
      console.log(`    (${ing.note})`);
    } catch (e) {
      failed = true;
      console.log(`  ${scenario}: FAILED ${(e as Error).message}`);
    }
  }
}
process.exit(failed ? 1 : 0);
