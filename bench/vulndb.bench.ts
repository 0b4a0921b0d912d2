// Known-vulnerability figures (issue 25), each beside a same-run floor:
// 1. Import of a full-size synthetic OSV set (200,000 records over 50,000 npm packages, four
//    deflated zip archives in the real schema): time and peak resident memory of `importFeeds`,
//    beside unzipping and JSON.parse-ing the same files (in its own process, for its own peak).
// 2. Matching 10,000-component SBOMs against that store (three, each to a product of its own, the
//    median reported): `pushSbom` until it answers, then until its deferred match is recorded (end
//    to end), and the last one's matching step, beside the floor of
//    reading the SBOM (parse, schema, normalise) plus one indexed lookup of the advisories of every
//    distinct package.
// 3. A feed delta of 1,000 changed advisories re-matched across 1,000 stored SBOM versions of 1,000
//    components each (inserted directly: building them is not what is measured), beside the
//    floor of reading and applying the same records without any re-match.
// PGlite always; PostgreSQL too when DATABASE_URL is set. Each database in its own process, and the
// floor of (1) in another, so each peak (VmHWM) is that process's own.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { asSystem } from '../src/db/tenant-scope.js';
import { selectRows } from '../src/db/sql-rows.js';
import { operatorContext } from '../src/kernel/context.js';
import { param } from '../src/kernel/evidence-store.js';
import { newId } from '../src/kernel/ids.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { findKnownVulns, packagesOf } from '../src/modules/known-vulns/find-known-vulns.js';
import { refreshVulndb } from '../src/modules/known-vulns/refresh-vulndb.js';
import { runSbomMatchCycle } from '../src/modules/known-vulns/sbom-match-worker.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { pushSbom } from '../src/modules/sboms/push-sbom.js';
import { readSbom } from '../src/modules/sboms/sboms.read.js';
import { zipEntries } from '../src/modules/vulndb/feed-archive.js';
import { importFeeds } from '../src/modules/vulndb/import-feeds.js';
import { openDatabase } from '../src/db/client.js';
import { report } from './lib.js';
import { osvRecord, packageName, writeZip } from './vulndb-data.js';

const RECORDS = Number(process.env.VULNDB_RECORDS ?? 200_000);
const PACKAGES = Number(process.env.VULNDB_PACKAGES ?? 50_000);
const SBOMS = Number(process.env.VULNDB_SBOMS ?? 1000);
const PER_SBOM = 1000;
const DELTA = 1000;
const PUSHES = Number(process.env.VULNDB_PUSHES ?? 3);
const ARCHIVES = Math.ceil(RECORDS / 60_000);
const peakMiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const seconds = (t0: number) => (performance.now() - t0) / 1000;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function* records(from: number, to: number) {
  for (let i = from; i < to; i++) yield osvRecord(i, i % PACKAGES);
}

/** The feed folder (`osv/npm/part-N.zip`) and the delta folder, written once per run. */
function writeFeeds(root: string) {
  const dir = join(root, 'feed', 'osv', 'npm');
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  const per = Math.ceil(RECORDS / ARCHIVES);
  for (let a = 0; a < ARCHIVES; a++) bytes += writeZip(join(dir, `part-${a + 1}.zip`), records(a * per, Math.min(RECORDS, (a + 1) * per)));
  const delta = join(root, 'delta', 'osv', 'npm');
  mkdirSync(delta, { recursive: true });
  // 1,000 records changed upstream: a later `modified` and a different fix.
  const changed = function* () {
    for (let k = 0; k < DELTA; k++) {
      const id = (k * 197) % RECORDS;
      yield osvRecord(id, id % PACKAGES, '2026-11-01T00:00:00Z', 7);
    }
  };
  writeZip(join(delta, 'delta.zip'), changed());
  return { feed: join(root, 'feed'), delta: join(root, 'delta'), bytes };
}

async function floorChild(feed: string) {
  const t0 = performance.now();
  let n = 0;
  for (let a = 0; a < ARCHIVES; a++) {
    for await (const e of zipEntries(join(feed, 'osv', 'npm', `part-${a + 1}.zip`))) {
      if ('bytes' in e) JSON.parse(e.bytes.toString('utf8'));
      n++;
    }
  }
  console.log(JSON.stringify({ seconds: seconds(t0), peakMiB: peakMiB(), records: n }));
}

function sbomOf(n: number, seed: number): string {
  const components = Array.from({ length: n }, (_, i) => {
    const pkg = (i * 7919 + seed) % PACKAGES;
    // One component in ten on the major line of its package's advisories (synthetic records of
    // package p cover major p % 4 when PACKAGES is a multiple of 4), where minors 0-4 are affected:
    // every component has advisories to evaluate, about one in twenty is affected.
    const version = `${(pkg + (i % 10 === 0 ? 0 : 1)) % 4}.${i % 9}.0`;
    return { type: 'library', 'bom-ref': `c${i}`, name: packageName(pkg), version, purl: `pkg:npm/${packageName(pkg)}@${version}` };
  });
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    metadata: { component: { type: 'firmware', 'bom-ref': 'root', name: 'fw', version: '1' } },
    components,
    dependencies: [{ ref: 'root', dependsOn: components.map((c) => c['bom-ref']) }],
  });
}

/**
 * A migrated database made in this (the parent) process, so the measured child only opens it:
 * creating a PGlite cluster (initdb) has a memory peak of its own that is not an import's.
 */
async function prepareDatabase(kind: 'pglite' | 'postgres', root: string): Promise<{ target: string; dispose(): Promise<void> }> {
  if (kind === 'pglite') {
    const dir = join(root, 'pgdata');
    const d = await openDatabase({ dataDir: dir });
    await d.migrate();
    await d.close();
    return { target: dir, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  // The template's own client drops the database afterwards; the child's connections are closed by then.
  const server = process.env.DATABASE_URL as string;
  const name = `cradle_vulndb_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const d = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
  await d.migrate();
  await d.close();
  return {
    target: url.toString(),
    async dispose() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function databaseChild(target: string, feeds: { feed: string; delta: string }) {
  const database = await openDatabase(target.startsWith('postgres') ? { databaseUrl: target, poolSize: 10 } : { dataDir: target });
  await database.migrate();
  const dispose = () => database.close();
  const db = database.db;
  const out: Record<string, number> = { openPeakMiB: peakMiB() };
  try {
    // 1. Import.
    let t0 = performance.now();
    const imported = await asSystem(() => importFeeds(db, feeds.feed));
    out.importSeconds = seconds(t0);
    out.importPeakMiB = peakMiB();
    out.imported = imported.files.reduce((s, f) => s + (f.applied ?? 0), 0);

    // 2. 10,000-component SBOMs, each pushed to a product of its own after a 100-component push
    //    (which warms the statements), then matched; the figure is the median of PUSHES such pushes,
    //    each of other packages (a single first push measured the process's compilation too).
    const ctx = operatorContext();
    const company = await createCompany(db, ctx, { slug: `bench-${newId().slice(0, 8)}`, name: 'Bench', plan: 'enterprise' });
    const answers: number[] = [];
    const ends: number[] = [];
    let raw = Buffer.alloc(0);
    for (let r = 0; r < PUSHES; r++) {
      const product = `bench-${r}`;
      await upsertProduct(db, ctx, company.id, { name: `Bench ${r}`, identifier: product });
      raw = Buffer.from(sbomOf(10_000, 1 + r * 101));
      await pushSbom(db, ctx, company.id, product, Buffer.from(sbomOf(100, 2 + r * 101)));
      t0 = performance.now();
      // The push hands its body's bytes to a worker (they are moved, not copied): a copy, since the
      // matching step and the floor below read the same document again.
      const pushed = await pushSbom(db, ctx, company.id, product, Buffer.from(raw));
      answers.push(seconds(t0));
      // A large SBOM's match runs after the answer (docs/evidence.md "Matching after the answer"): the
      // job's pass here, as the server's `known-vulns.match` job would run it, until none is left.
      while ((await asSystem(() => runSbomMatchCycle(db))) > 0);
      ends.push(seconds(t0));
      out.deferred = pushed.matching === 'pending' ? 1 : 0;
    }
    out.answerSeconds = median(answers);
    out.pushSeconds = median(ends);
    answers.forEach((a, i) => {
      out[`answer${i + 1}`] = a;
      out[`end${i + 1}`] = ends[i]!;
    });
    // Its matching step alone, on the same components.
    const read = readSbom(raw);
    const packages = packagesOf(read.normal.components);
    t0 = performance.now();
    const found = await findKnownVulns(db, read.normal.components, packages);
    out.matchSeconds = seconds(t0);
    out.matches = found.found.length;
    // Floor: read the SBOM, then one indexed lookup of every distinct package's advisories.
    t0 = performance.now();
    const again = readSbom(raw);
    const keys = [...new Set(packagesOf(again.normal.components).flatMap((p) => ('reason' in p ? [] : [p.packageKey])))];
    await selectRows(db, sql`select a.record_id, a.ranges, a.versions, a.aliases from vulndb_affected a where a.package_key = any(${param(keys)}::text[])`);
    out.matchFloorSeconds = seconds(t0);

    // 3. 1,000 stored SBOM versions of 1,000 components each, then a delta of 1,000 advisories.
    await asSystem(async () => {
      for (let s = 0; s < SBOMS; s++) {
        const productId = newId();
        const sbomId = newId();
        const now = new Date().toISOString();
        await db.execute(
          sql`insert into products (id, company_id, identifier, name, created_at, updated_at) values (${productId}::uuid, ${company.id}::uuid, ${`p-${s}`}, ${`P ${s}`}, now(), now())`,
        );
        await db.execute(sql`insert into sboms (id, company_id, product_id, version, format, spec_version, component_count, dependency_count, added, removed, changed, sha256, byte_size, created_at)
          values (${sbomId}::uuid, ${company.id}::uuid, ${productId}::uuid, 1, 'cyclonedx', '1.6', ${PER_SBOM}, 0, ${PER_SBOM}, 0, 0, 'bench', 0, ${now}::timestamptz)`);
        const pk = Array.from({ length: PER_SBOM }, (_, i) => (i * 7919 + s * 31) % PACKAGES);
        await db.execute(sql`insert into sbom_components (sbom_id, ordinal, company_id, name, version, purl, relationship, package_key)
          select ${sbomId}::uuid, t.o, ${company.id}::uuid, t.n, t.v, 'pkg:npm/' || t.n || '@' || t.v, 'direct', 'npm/' || t.n
          from unnest(${param(pk.map((_, i) => i))}::int[], ${param(pk.map((p) => packageName(p)))}::text[], ${param(pk.map((p, i) => `${(p + (i % 2)) % 4}.${(i >> 1) % 9}.0`))}::text[]) as t(o, n, v)`);
        await db.execute(
          sql`insert into sbom_match_runs (sbom_id, company_id, matched_at, components, matchable, unmatched) values (${sbomId}::uuid, ${company.id}::uuid, now(), ${PER_SBOM}, ${PER_SBOM}, '{}'::jsonb)`,
        );
      }
    });
    t0 = performance.now();
    const delta = await asSystem(() => refreshVulndb(db, feeds.delta));
    out.deltaSeconds = seconds(t0);
    out.deltaSboms = delta.rematch.sboms;
    out.deltaOpened = delta.rematch.opened;
    out.deltaPackages = delta.changedPackages.size;
  } finally {
    await dispose();
  }
  console.log(JSON.stringify(out));
}

function child(args: string[]): Record<string, number> {
  const r = spawnSync(process.execPath, ['--import', './scripts/ts-hooks.mjs', 'bench/vulndb.bench.ts', ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    env: process.env,
  });
  if (r.status !== 0) throw new Error(`child ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  const last = r.stdout.trim().split('\n').pop() ?? '{}';
  return JSON.parse(last) as Record<string, number>;
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === '--floor') await floorChild(rest[0]!);
else if (mode === '--db') await databaseChild(rest[0]!, { feed: rest[1]!, delta: rest[2]! });
else {
  const root = mkdtempSync(join(tmpdir(), 'cradle-vulndb-bench-'));
  try {
    const t0 = performance.now();
    const feeds = writeFeeds(root);
    console.log(
      `${RECORDS} synthetic OSV records over ${PACKAGES} packages, ${(feeds.bytes / 1048576).toFixed(0)} MiB of JSON in ${ARCHIVES} archives (written in ${seconds(t0).toFixed(1)} s)`,
    );
    const floor = child(['--floor', feeds.feed]);
    const kinds: ('pglite' | 'postgres')[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
    for (const kind of kinds) {
      console.log(`\n${kind === 'pglite' ? 'PGlite' : 'PostgreSQL'}`);
      const prepared = await prepareDatabase(kind, root);
      let r: Record<string, number>;
      try {
        r = child(['--db', prepared.target, feeds.feed, feeds.delta]);
      } finally {
        await prepared.dispose();
      }
      report(`import of ${r.imported} records, goal under 60 s`, r.importSeconds!, 's', 'unzip + JSON.parse', floor.seconds!);
      report('import peak resident memory, goal under 400 MB', r.importPeakMiB!, 'MiB', 'unzip + JSON.parse peak', floor.peakMiB!);
      // PGlite's own start (WebAssembly compile and heap) sets a high-water mark before any import.
      report('  of which opening the database, before any import', r.openPeakMiB!, 'MiB', 'unzip + JSON.parse peak', floor.peakMiB!);
      console.log(
        `10,000-component pushes (answered / matched, s): ${Array.from({ length: PUSHES }, (_, i) => `${r[`answer${i + 1}`]!.toFixed(2)} / ${r[`end${i + 1}`]!.toFixed(2)}`).join('; ')}`,
      );
      report(
        `10,000-component SBOM push answered (matching ${r.deferred ? 'pending' : 'done'}; median of ${PUSHES}), goal under 1 s`,
        r.answerSeconds! * 1000,
        'ms',
        'read SBOM + one lookup per package',
        r.matchFloorSeconds! * 1000,
      );
      report(
        `10,000-component SBOM pushed and matched (median of ${PUSHES}; the last: ${r.matches} matches), end to end, goal under 1 s`,
        r.pushSeconds! * 1000,
        'ms',
        'read SBOM + one lookup per package',
        r.matchFloorSeconds! * 1000,
      );
      report(
        'its matching step alone, goal at most 5x the floor',
        r.matchSeconds! * 1000,
        'ms',
        'read SBOM + one lookup per package',
        r.matchFloorSeconds! * 1000,
      );
      console.log(
        `delta of ${DELTA} advisories over ${r.deltaPackages} packages: re-matched ${r.deltaSboms} of ${SBOMS + PUSHES} latest SBOMs (${SBOMS * PER_SBOM + PUSHES * 10_000} components stored), ${r.deltaOpened} new matches`,
      );
      console.log(`delta re-match: ${r.deltaSeconds!.toFixed(1)} s, goal under 10 s`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
