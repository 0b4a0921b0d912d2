// Foundation figures: start-to-ready of `npm start` on an existing embedded database (target
// under 2 s) and idle resident memory (target under 150 MiB, ADR 0020), also after the very first start, which
// creates the database (what a new user's `npm start` does), beside a bare Fastify process
// started the same way in the same run. Needs a build (`npm run build`, done by `npm install`).
// BENCH_NODE_FLAGS adds node/V8 flags to `node dist/main.js` (e.g. `--no-liftoff-only`, ADR 0013).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_SECRETS_KEY, assertPortFree, median, report, rssMiB, spawnQuiet, stop, waitFor } from './lib.js';
import { type Breakdown, memoryByKind, printBreakdown } from './memory-map.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PORT = 3901;
const FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
if (!existsSync('dist/main.js')) {
  console.error('dist/main.js is missing: run `npm run build` first');
  process.exit(1);
}

const baseEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SECRETS_KEY: BENCH_SECRETS_KEY, ...extra };
  delete env.DATABASE_URL;
  return { ...env, ...extra };
};

const BARE = `import Fastify from 'fastify'; const app = Fastify(); app.get('/readyz', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: ${PORT} }); process.on('SIGTERM', () => app.close().then(() => process.exit(0)));`;

/** The `node dist/main.js` process among the descendants of `pid` (npm, then possibly `sh -c`). */
function serverUnder(pid: number | undefined): number | undefined {
  for (let level = [pid], depth = 0; depth < 4 && level.length; depth++) {
    const found = level.find((p) => {
      const [cmd, script] = p ? readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0') : [];
      return cmd?.split('/').pop() === 'node' && script === 'dist/main.js';
    });
    if (found) return found;
    level = level.flatMap((p) => {
      const out = spawnSync('pgrep', ['-P', String(p)])
        .stdout.toString()
        .trim();
      return out ? out.split('\n').map(Number) : [];
    });
  }
  return undefined;
}

type Sample = { ms: number; rss: number; kinds?: Breakdown };
async function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv, pidOf: 'self' | 'child'): Promise<Sample> {
  await assertPortFree(PORT);
  const t0 = performance.now();
  const child = spawnQuiet(cmd, args, env);
  const ms = await waitFor(`http://127.0.0.1:${PORT}/readyz`, t0, child);
  await sleep(3000); // idle: let start-up garbage be collected
  // With npm in between, the server is npm's descendant (through a shell that may stay): measure it instead.
  const pid = pidOf === 'self' ? child.pid : serverUnder(child.pid);
  const rss = pid ? rssMiB(pid) : NaN;
  const kinds = pid ? memoryByKind(pid) : undefined;
  await stop(child);
  return { ms, rss, ...(kinds ? { kinds } : {}) };
}

/** The median figures of RUNS runs, and where the memory of the run nearest the median is (by mapping). */
async function series(label: string, run: () => Promise<Sample>): Promise<Sample> {
  const xs: Sample[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await run());
  const r = { ms: median(xs.map((x) => x.ms)), rss: median(xs.map((x) => x.rss)) };
  console.log(`  ${label}: runs ${xs.map((x) => x.ms.toFixed(0)).join(', ')} ms, ${xs.map((x) => x.rss.toFixed(0)).join(', ')} MiB`);
  const typical = [...xs].sort((a, b) => Math.abs(a.rss - r.rss) - Math.abs(b.rss - r.rss))[0];
  return { ...r, ...(typical?.kinds ? { kinds: typical.kinds } : {}) };
}

const dir = mkdtempSync(join(tmpdir(), 'cradle-bench-'));
try {
  const first = await measure(process.execPath, [...FLAGS, 'dist/main.js'], baseEnv({ DATA_DIR: dir }), 'self');
  console.log(`first start (creates the embedded database): ${first.ms.toFixed(0)} ms, ${first.rss.toFixed(0)} MiB resident once idle`);
  const bare = await series('bare Fastify', () => measure(process.execPath, ['--input-type=module', '-e', BARE], baseEnv({}), 'self'));
  report('idle resident memory after the first start, new PGlite database (one run)', first.rss, 'MiB', 'bare Fastify', bare.rss);
  const direct = await series('node dist/main.js', () => measure(process.execPath, [...FLAGS, 'dist/main.js'], baseEnv({ DATA_DIR: dir }), 'self'));
  const viaNpm = await series('npm start', () => measure('npm', ['start', '--silent'], baseEnv({ DATA_DIR: dir }), 'child'));
  report('start-to-ready, npm start, existing PGlite database (median)', viaNpm.ms, 'ms', 'bare Fastify', bare.ms);
  report('start-to-ready, node dist/main.js, existing PGlite database (median)', direct.ms, 'ms', 'bare Fastify', bare.ms);
  report('idle resident memory, PGlite (median)', direct.rss, 'MiB', 'bare Fastify', bare.rss);
  // `npm start` sets MALLOC_ARENA_MAX (package.json, ADR 0027), which `node dist/main.js` alone does not.
  report('idle resident memory, PGlite, npm start (median)', viaNpm.rss, 'MiB', 'bare Fastify', bare.rss);
  console.log('  where it is (run nearest the median; Pss shares file pages with other processes):');
  if (direct.kinds) printBreakdown(direct.kinds);
  console.log('  bare Fastify:');
  if (bare.kinds) printBreakdown(bare.kinds);
  if (process.env.DATABASE_URL) {
    const pg = await series('node dist/main.js on PostgreSQL', () =>
      measure(process.execPath, ['dist/main.js'], { ...baseEnv({}), DATABASE_URL: process.env.DATABASE_URL }, 'self'),
    );
    report('start-to-ready, PostgreSQL (median)', pg.ms, 'ms', 'bare Fastify', bare.ms);
    report('idle resident memory, PostgreSQL (median)', pg.rss, 'MiB', 'bare Fastify', bare.rss);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
