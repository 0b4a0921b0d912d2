// One measurement of bench/evidence.bench.ts, in a process of its own. Plain JavaScript over the
// build (dist/), like `node dist/main.js`: run through tsx it would carry tsx's loader and
// transpiled sources, about 65 MiB of resident memory a server does not have.
//
// node bench/evidence-child.mjs <ingest|baseline> <sbom|sarif> <dataDir|postgres://url> <companyId> <document> [warm-up document]
// Prints one JSON line: {ms, peakMiB, beforeMiB, note}. peakMiB is the kernel's high-water mark of
// the whole process, opening the database included: VmHWM on Linux. Not getrusage's maxrss, which
// Linux carries over from the parent through fork and exec (it reported the bench's own peak).
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../dist/db/client.js';
import { operatorContext } from '../dist/kernel/context.js';
import { CHUNK_ROWS, param } from '../dist/kernel/evidence-store.js';
import { pushSarif } from '../dist/modules/findings/push-sarif.js';
import { pushSbom } from '../dist/modules/sboms/push-sbom.js';

const [mode, kind, target, companyId, documentPath, warmPath] = process.argv.slice(2);
const mib = (bytes) => bytes / 1048576;
const peakMiB = () =>
  existsSync('/proc/self/status')
    ? Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024
    : process.resourceUsage().maxRSS / 1024;

const database = await openDatabase(target.startsWith('postgres') ? { databaseUrl: target, poolSize: 4 } : { dataDir: target });
// As the server does at every start (a no-op on a migrated database, but it sets the role on PostgreSQL).
await database.migrate();
const db = database.db;
const ctx = operatorContext();
const push = (product, bytes) => (kind === 'sbom' ? pushSbom(db, ctx, companyId, product, bytes) : pushSarif(db, ctx, companyId, product, bytes));
const out = {};
try {
  let warm = 0;
  if (mode === 'ingest') {
    // A running server compiles each schema once, on its first push; warm it so the figure is the
    // steady-state push. The one-off cost is reported beside it.
    const w0 = performance.now();
    await push('warm', readFileSync(warmPath));
    warm = performance.now() - w0;
  }
  const bytes = readFileSync(documentPath);
  // The push hands its Buffer to the reading worker (it is empty afterwards).
  const size = bytes.length;
  globalThis.gc?.();
  out.beforeMiB = mib(process.memoryUsage.rss());
  const t0 = performance.now();
  if (mode === 'baseline') {
    const doc = JSON.parse(bytes.toString('utf8'));
    const count = doc.components?.length ?? doc.runs?.[0]?.results.length ?? 0;
    // The same statement size as Cradle's own bulk writes.
    await db.transaction(async (tx) => {
      for (let s = 0; s < count; s += CHUNK_ROWS) {
        const ids = Array.from({ length: Math.min(CHUNK_ROWS, count - s) }, (_, i) => s + i);
        await tx.execute(sql`insert into bench_plain (id, name, version, purl) select * from unnest(${param(ids)}::int[],
          ${param(ids.map((i) => `package-${i}`))}::text[], ${param(ids.map(() => '1.0.0'))}::text[], ${param(ids.map((i) => `pkg:npm/p${i}@1.0.0`))}::text[])`);
      }
    });
    out.ms = performance.now() - t0;
    out.peakMiB = peakMiB();
    out.note = `${count} rows`;
  } else {
    const r = await push('bench', bytes);
    out.ms = performance.now() - t0;
    out.peakMiB = peakMiB();
    out.note = `first push incl. schema compile ${warm.toFixed(0)} ms`;
    if ('componentCount' in r) out.note += `; ${r.componentCount} components`;
    else {
      const t1 = performance.now();
      const again = await push('bench', readFileSync(documentPath));
      out.note += `; ${r.new} new; same log again (${again.unchanged} unchanged) ${(performance.now() - t1).toFixed(0)} ms`;
    }
  }
  out.note = `${mib(size).toFixed(1)} MiB document; ${out.beforeMiB.toFixed(0)} MiB resident before; ${out.note}`;
} finally {
  await database.close();
}
console.log(JSON.stringify(out));
process.exit(0);
