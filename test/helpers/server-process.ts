import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { nodeArgs } from './processes.js';
import { TEST_SECRETS_KEY } from './secret-keys.js';

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

export type ServerProcess = { url: string; child: ChildProcess; stop(): Promise<void>; output: () => string };

/** Starts `src/main.ts` as a real process and waits until /healthz answers. With the tests' operator key unless `env` sets SECRETS_KEY (`''`: none). */
export async function startServer(env: Record<string, string>, port: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, nodeArgs('src/main.ts'), {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', SECRETS_KEY: TEST_SECRETS_KEY, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
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
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        // A child killed by a signal has no exit code, only a signal code.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
