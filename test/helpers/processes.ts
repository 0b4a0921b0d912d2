import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_SECRETS_KEY } from './secret-keys.js';

export type RunResult = { code: number | null; stdout: string; stderr: string };

/**
 * How a child process runs an entry point of src/: from the sources on Node's type stripping
 * (scripts/ts-hooks.mjs, as the tests themselves run), or, when CRADLE_TEST_BUILT=1 (`.ci/run`,
 * whose `npm ci` has just built dist/), the built JavaScript a user runs.
 */
export function nodeArgs(entry: string): string[] {
  if (process.env.CRADLE_TEST_BUILT !== '1') return ['--import', './scripts/ts-hooks.mjs', entry];
  const built = entry.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js');
  if (!existsSync(built)) throw new Error(`CRADLE_TEST_BUILT=1 but ${built} is missing: run npm run build`);
  return [built];
}

/** Runs an entry point of this project (src/*.ts) in a child process, with stdin. */
export async function runTs(entry: string, args: string[], env: Record<string, string | undefined>, stdin = ''): Promise<RunResult> {
  const child = spawn(process.execPath, [...nodeArgs(entry), ...args], { env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.end(stdin);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** The parent's environment without database settings, plus the given ones (undefined removes). */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.DATABASE_URL;
  delete base.REDIS_URL;
  delete base.DATA_DIR;
  return withEnv(base, env);
}

/** A copy of `base` with the given variables set (undefined removes). */
function withEnv(base: NodeJS.ProcessEnv, env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...base };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** A port that was free a moment ago (the OS picks it; we close and hand it to the child). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export type ServerProcess = {
  child: ChildProcess;
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  output: () => string;
  /** SIGTERM and wait; the exit code (null when it ended by a signal, e.g. after a SIGKILL). */
  stop(): Promise<number | null>;
};

export type ServerOptions = {
  /** The port to listen on (to name it in PUBLIC_URL first, or to start again on it); a free one when absent. */
  port?: number;
  /**
   * What the two kinds of caller differ in. Default false: the child gets this process's environment
   * without DATABASE_URL, REDIS_URL and DATA_DIR (`childEnv`), so it opens only the storage `env`
   * names. True: those three pass through unless `env` sets them, so on a PostgreSQL run the child
   * shares the run's Redis (and its database when `env` names none).
   */
  inheritDatabase?: boolean;
  /** NODE_ENV=production, as an operator runs it (default: the parent's NODE_ENV, usually unset). */
  production?: boolean;
  timeoutMs?: number;
};

/**
 * Starts `src/main.ts` in a child process and waits until /healthz answers: on 127.0.0.1, LOG_LEVEL
 * warn, PUBLIC_URL `http://localhost:<port>` and the tests' operator key unless `env` sets them
 * (SECRETS_KEY `''`: none; undefined removes a variable).
 */
export async function startServer(env: Record<string, string | undefined>, options: ServerOptions = {}): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const own: Record<string, string | undefined> = {
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://localhost:${port}`,
    LOG_LEVEL: 'warn',
    SECRETS_KEY: TEST_SECRETS_KEY,
    ...(options.production ? { NODE_ENV: 'production' } : {}),
    ...env,
  };
  const child = spawn(process.execPath, nodeArgs('src/main.ts'), {
    env: options.inheritDatabase ? withEnv(process.env, own) : childEnv(own),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${out}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become healthy: ${out}`);
    }
    await sleep(100);
  }
  return {
    child,
    port,
    url,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      // A child killed by a signal has no exit code, only a signal code, and sends no second 'exit'.
      if (child.signalCode !== null) return null;
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

/** GET with an explicit Host header (fetch drops Host): for portal requests to a local server. */
export function httpGet(port: number, host: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
