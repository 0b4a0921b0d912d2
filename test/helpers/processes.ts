import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_SECRETS_KEY } from './secret-keys.js';

export type RunResult = { code: number | null; stdout: string; stderr: string };

/**
 * How a child process runs an entry point of src/: through tsx, or, when CRADLE_TEST_BUILT=1
 * (`.ci/run`, whose `npm ci` has just built dist/), the built JavaScript a user runs, which also
 * starts in a third of the time (no transform of the import graph).
 */
export function nodeArgs(entry: string): string[] {
  if (process.env.CRADLE_TEST_BUILT !== '1') return ['--import', 'tsx', entry];
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
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  await once(srv, 'close');
  return port;
}

export type ServerProcess = { child: ChildProcess; port: number; output: () => string; stop(): Promise<number | null> };

/** Starts `src/main.ts` in a child process and waits until /healthz answers. */
export async function startServer(env: Record<string, string | undefined>, timeoutMs = 120_000): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, nodeArgs('src/main.ts'), {
    env: childEnv({ HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://localhost:${port}`, LOG_LEVEL: 'warn', SECRETS_KEY: TEST_SECRETS_KEY, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (out += c));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${out}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
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
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
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
