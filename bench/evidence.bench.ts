// Evidence ingestion figures (issue 6): ingest time and peak resident memory of pushSbom for a
// generated CycloneDX SBOM of 10,000 and 100,000 components and of pushSarif for 50,000 results,
// each beside a same-run baseline: JSON.parse of the same bytes plus a bulk insert of as many rows
// into a plain table. Then the 10,000-component SBOM through the real server (`node dist/main.js`)
// over HTTP. PGlite always; PostgreSQL too when DATABASE_URL is set. Needs a current build.
//
// What is measured and what is not:
// - The documents are generated once, to files, by this process; a measurement reads its file as
//   the server reads a request body, so building the document never counts.
// - The database is prepared once (created, migrated, a company, two products, a key, the
//   baseline's table) and copied for every measurement (the PGlite folder; a PostgreSQL database
//   made with `template`): creating a database is not what a push costs.
// - Every measurement runs in a fresh process (bench/evidence-child.mjs, plain JavaScript over
//   dist/ as in production) and its peak is the kernel's high-water mark of that process's
//   resident memory (VmHWM from /proc): no sampling gaps, and everything the process ever held
//   counts, opening the database included.
// BENCH_NODE_FLAGS adds node/V8 flags to every measured process (e.g. `--no-liftoff-only`);
// EVIDENCE_SCENARIOS=sbom-10k,... runs only those.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../src/db/client.js';
import { operatorContext } from '../src/kernel/context.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { createKey } from '../src/modules/keys/create-key.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { createAdmin } from '../src/modules/users/create-admin.js';
import { generateCycloneDx, generateSarif } from './evidence-data.js';
import { BENCH_SECRETS_KEY, report, spawnQuiet, statusMiB, stop, waitFor } from './lib.js';

type Scenario = 'sbom-10k' | 'sbom-100k' | 'sarif-50k';
type Sample = { ms: number; peakMiB: number; beforeMiB: number; note: string };
const SIZES: Record<Scenario, number> = { 'sbom-10k': 10_000, 'sbom-100k': 100_000, 'sarif-50k': 50_000 };
const PORT = 3902;
const FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const ONLY = (process.env.EVIDENCE_SCENARIOS ?? '').split(',').filter(Boolean);
const SCENARIOS = (Object.keys(SIZES) as Scenario[]).filter((s) => ONLY.length === 0 || ONLY.includes(s));

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}
if (!existsSync('dist/.tsbuildinfo') || newest('src') > statSync('dist/.tsbuildinfo').mtimeMs) {
  console.error('dist/ is missing or older than src/: run `npm run build` first (the measured processes run the build)');
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'cradle-evidence-bench-'));
const file = (name: string) => join(work, name);
writeFileSync(file('sbom-warm.json'), generateCycloneDx(1));
writeFileSync(file('sarif-warm.json'), generateSarif(1));
for (const scenario of SCENARIOS) {
  const n = SIZES[scenario];
  writeFileSync(file(`${scenario}.json`), scenario.startsWith('sbom') ? generateCycloneDx(n) : generateSarif(n));
}

/** A prepared database and a way to copy it; `target` is a PGlite folder or a PostgreSQL URL. */
type Prepared = { companyId: string; key: string; copy(): Promise<{ target: string; dispose(): Promise<void> }>; dispose(): Promise<void> };

async function prepare(serverUrl: string | undefined): Promise<Prepared> {
  const tag = Math.random().toString(36).slice(2, 10);
  let target: string;
  let admin: pg.Client | undefined;
  if (serverUrl) {
    admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database cradle_evbench_${tag}`);
    const url = new URL(serverUrl);
    url.pathname = `/cradle_evbench_${tag}`;
    target = url.toString();
  } else target = file('template');
  const database = await openDatabase(serverUrl ? { databaseUrl: target, poolSize: 2 } : { dataDir: target });
  await database.migrate();
  const db = database.db;
  const ctx = operatorContext();
  const company = await createCompany(db, ctx, { slug: `evbench-${tag}`, name: 'Bench GmbH', plan: 'enterprise' });
  const user = await createAdmin(db, ctx, company.slug, { email: `${tag}@example.test`, password: 'quartz lantern ripples over 19 dunes' });
  for (const identifier of ['bench', 'warm']) await upsertProduct(db, ctx, company.id, { name: identifier, identifier });
  const { key } = await createKey(db, { actor: { type: 'user', id: user.id } }, company.id, { name: 'bench', scopes: ['sbom:write', 'sarif:write'] });
  // On PostgreSQL Cradle's queries run as a role without DDL (ADR 0009): the login makes the table.
  const plain = 'create table bench_plain (id int primary key, name text not null, version text, purl text)';
  if (serverUrl) {
    const c = new pg.Client({ connectionString: target });
    await c.connect();
    await c.query(plain);
    await c.query('grant all on bench_plain to public');
    await c.end();
  } else await db.execute(sql.raw(plain));
  await database.close();
  let copies = 0;
  return {
    companyId: company.id,
    key,
    async copy() {
      const n = ++copies;
      if (!admin) {
        const dir = file(`copy-${n}`);
        cpSync(target, dir, { recursive: true });
        return { target: dir, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
      }
      const name = `cradle_evbench_${tag}_${n}`;
      await admin.query(`create database ${name} template cradle_evbench_${tag}`);
      const url = new URL(target);
      url.pathname = `/${name}`;
      return { target: url.toString(), dispose: async () => void (await admin?.query(`drop database if exists ${name} with (force)`)) };
    },
    async dispose() {
      if (admin) {
        await admin.query(`drop database if exists cradle_evbench_${tag} with (force)`);
        await admin.end();
      }
    },
  };
}

async function measure(p: Prepared, scenario: Scenario, mode: 'ingest' | 'baseline'): Promise<Sample> {
  const kind = scenario.startsWith('sbom') ? 'sbom' : 'sarif';
  const copy = await p.copy();
  try {
    const args = [
      ...FLAGS,
      '--expose-gc',
      'bench/evidence-child.mjs',
      mode,
      kind,
      copy.target,
      p.companyId,
      file(`${scenario}.json`),
      file(`${kind}-warm.json`),
    ];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status !== 0 || !line.startsWith('{')) throw new Error(`${scenario} ${mode} failed: ${r.stderr.slice(-2000)}`);
    return JSON.parse(line) as Sample;
  } finally {
    await copy.dispose();
  }
}

/** The 10,000-component SBOM through `node dist/main.js`: a warm-up push, then the measured one. */
async function overHttp(p: Prepared, serverUrl: string | undefined): Promise<Sample> {
  const copy = await p.copy();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${PORT}`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    SECRETS_KEY: BENCH_SECRETS_KEY,
  };
  delete env.DATABASE_URL;
  if (serverUrl) env.DATABASE_URL = copy.target;
  else env.DATA_DIR = copy.target;
  const server = spawnQuiet(process.execPath, [...FLAGS, 'dist/main.js'], env);
  try {
    await waitFor(`http://127.0.0.1:${PORT}/readyz`, performance.now(), server);
    const post = async (bytes: Buffer) => {
      const res = await fetch(`http://127.0.0.1:${PORT}/api/v1/sboms?product=bench`, {
        method: 'POST',
        headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/vnd.cyclonedx+json' },
        body: bytes,
      });
      if (res.status !== 201) throw new Error(`push answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
      return (await res.json()) as { componentCount: number };
    };
    const w0 = performance.now();
    await post(readFileSync(file('sbom-warm.json')));
    const warm = performance.now() - w0;
    const pid = server.pid as number;
    const beforeMiB = statusMiB(pid, 'VmRSS');
    const bytes = readFileSync(file('sbom-10k.json'));
    const t0 = performance.now();
    const r = await post(bytes);
    const ms = performance.now() - t0;
    const peakMiB = statusMiB(pid, 'VmHWM');
    return {
      ms,
      peakMiB,
      beforeMiB,
      note: `${r.componentCount} components; server resident ${beforeMiB.toFixed(0)} MiB before, ${statusMiB(pid, 'VmRSS').toFixed(0)} MiB after; first push incl. schema compile ${warm.toFixed(0)} ms`,
    };
  } finally {
    await stop(server);
    await copy.dispose();
  }
}

const targets: [string, string | undefined][] = [['PGlite', undefined]];
if (process.env.DATABASE_URL) targets.push(['PostgreSQL', process.env.DATABASE_URL]);
let failed = false;
try {
  for (const [label, url] of targets) {
    console.log(`\n${label}`);
    const p = await prepare(url);
    try {
      for (const scenario of SCENARIOS) {
        try {
          const base = await measure(p, scenario, 'baseline');
          const ing = await measure(p, scenario, 'ingest');
          report(`  ${scenario} ingest time`, ing.ms, 'ms', 'JSON.parse + plain bulk insert', base.ms);
          report(`  ${scenario} peak RSS`, ing.peakMiB, 'MiB', 'JSON.parse + plain bulk insert', base.peakMiB);
          console.log(`    (${ing.note}; the JSON.parse process had ${base.beforeMiB.toFixed(0)} MiB resident before)`);
          if (scenario === 'sbom-10k') {
            const http = await overHttp(p, url);
            report(`  ${scenario} over HTTP, request time`, http.ms, 'ms', 'JSON.parse + plain bulk insert', base.ms);
            report(`  ${scenario} over HTTP, server peak RSS`, http.peakMiB, 'MiB', 'JSON.parse + plain bulk insert', base.peakMiB);
            console.log(`    (${http.note})`);
          }
        } catch (e) {
          failed = true;
          console.log(`  ${scenario}: FAILED ${(e as Error).message}`);
        }
      }
    } finally {
      await p.dispose();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
