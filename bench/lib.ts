import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import { type Database, openDatabase } from '../src/db/client.js';
// The benches' operator key, installed in-process and handed to the servers they start.
import { TEST_SECRETS_KEY } from '../test/helpers/secret-keys.js';

export const BENCH_SECRETS_KEY = TEST_SECRETS_KEY;

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** A memory figure of a process in MiB from /proc (Linux): resident now (VmRSS) or at its highest (VmHWM). */
export function statusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const kb = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return kb / 1024;
}

/** Resident set size of a process in MiB. */
export const rssMiB = (pid: number): number => statusMiB(pid, 'VmRSS');

/** Polls a URL until it answers 2xx; returns the elapsed milliseconds since `t0`. */
export async function waitFor(url: string, t0: number, child: ChildProcess, timeoutMs = 60_000): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before ${url} answered`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/**
 * Refuses to go on while something else listens on `port`: a server left by an earlier, interrupted
 * bench would answer in place of the one about to start (which then dies of EADDRINUSE), and the
 * bench would time a stranger.
 */
export async function assertPortFree(port: number): Promise<void> {
  const free = await new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
  if (!free) throw new Error(`port ${port} is taken (a server left by an earlier bench run?): stop it, then run the bench again`);
}

/** Spawns in a process group of its own, so `stop` reaches grandchildren too (npm start -> node). */
export function spawnQuiet(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): ChildProcess {
  // BENCH_SERVER_LOG=file keeps the child's output there (appended) instead of dropping it.
  const log = process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, 'a') : 'ignore';
  return spawn(cmd, args, { env, stdio: ['ignore', log, log], detached: true, ...(cwd ? { cwd } : {}) });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || !child.pid) return;
  const done = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid, 'SIGTERM');
  await done;
  // The group leader may exit before its children (npm): wait until the port is free again.
  await sleep(300);
}

/** One printed figure: the value, the same-run baseline, and their ratio. */
export function report(label: string, value: number, unit: string, baselineLabel: string, baseline: number): void {
  console.log(`${label}: ${value.toFixed(1)} ${unit}  (baseline ${baselineLabel}: ${baseline.toFixed(1)} ${unit}; ratio ${(value / baseline).toFixed(2)})`);
}

/**
 * A fresh migrated database for one bench: PGlite in a temporary folder, or a new database on
 * DATABASE_URL's server (never the database the URL names, which may hold someone's data).
 * `url` names that PostgreSQL database, for a baseline that connects as the login itself (Cradle's
 * queries run as a role without DDL, ADR 0009), `dataDir` PGlite's folder. `close` closes it (once),
 * `dispose` closes it and removes it.
 */
export async function openBenchDatabase(
  kind: 'pglite' | 'postgres',
  poolSize = 10,
): Promise<{ database: Database; url?: string; dataDir?: string; close(): Promise<void>; dispose(): Promise<void> }> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'cradle-bench-'));
    const database = await openDatabase({ dataDir: dir });
    await database.migrate();
    // A server started on the data directory needs it closed here first (one process per directory).
    let closed: Promise<void> | undefined;
    const close = () => (closed ??= database.close());
    return {
      database,
      dataDir: dir,
      close,
      async dispose() {
        await close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const server = process.env.DATABASE_URL as string;
  const name = `cradle_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), poolSize });
  await database.migrate();
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= database.close());
  return {
    database,
    url: url.toString(),
    close,
    async dispose() {
      await close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Runs `fn` on a fresh migrated database (openBenchDatabase) and removes it afterwards. */
export async function withBenchDatabase(kind: 'pglite' | 'postgres', fn: (d: Database, url: string | undefined) => Promise<void>): Promise<void> {
  const { database, url, dispose } = await openBenchDatabase(kind);
  try {
    await fn(database, url);
  } finally {
    await dispose();
  }
}
