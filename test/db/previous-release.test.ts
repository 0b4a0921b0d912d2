import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/client.js';
import { testConfig, testRateLimiter } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { childEnv, freePort } from '../helpers/processes.js';
import { type PreviousRelease, previousRelease } from '../helpers/previous-release.js';
import { TEST_SECRETS_KEY } from '../helpers/secret-keys.js';

// Issue 36 / docs/deployment.md "Rolling upgrades": on PostgreSQL this release's migrations are
// applied while the previous release's instances still run. The previous release's code (taken
// from git, test/helpers/previous-release.ts) runs against a database migrated by this release,
// and answers the smoke requests an operator would try: readiness, its CLI creating a company, a
// report filed through the portal and its status page; then this release reads what it stored,
// and the previous release reads what this release stored.

const ROOT = join(import.meta.dirname, '../..');
const pgOnly = !process.env.DATABASE_URL && 'rolling upgrades are a PostgreSQL matter: one process holds the embedded database';
let db: TestDatabase | undefined;
let prev: PreviousRelease | { missing: string };

before(async () => {
  if (pgOnly) return;
  prev = previousRelease();
  db = await createTestDatabase();
});
after(() => db?.drop());

const envFor = (port: number) =>
  childEnv({
    DATABASE_URL: db!.url,
    SECRETS_KEY: TEST_SECRETS_KEY,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://localhost:${port}`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  });

/**
 * Runs one of the previous release's entry points (src/…) through this checkout's tsx: a release from
 * before `erasableSyntaxOnly` has syntax Node's type stripping refuses (tsx's one use left).
 */
function runPrevious(release: PreviousRelease, entry: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(release.dir, entry), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function finished(child: ChildProcess): Promise<{ code: number | null; out: string }> {
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (out += c));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

function send(port: number, host: string, method: string, path: string, form?: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  const headers: Record<string, string> = { host, accept: 'text/html' };
  if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const submissionOf = (page: string) => /id="submission-id">([0-9a-f-]+)</.exec(page)?.[1];
const statusPathOf = (page: string) => /id="status-link" href="https?:\/\/[^/"]+(\/status\/[^"]+)"/.exec(page)?.[1];

describe('the previous release on this release’s schema', () => {
  it('serves the smoke requests, and both releases read what the other stored', { skip: pgOnly }, async (t) => {
    if ('missing' in prev) return t.skip(prev.missing);
    t.diagnostic(`previous release ${prev.ref}: ${prev.why}`);
    const release = prev;
    const port = await freePort();
    const env = envFor(port);

    const created = await finished(
      runPrevious(release, 'src/cli/main.ts', ['company', 'create', '--slug', 'rolling', '--name', 'Rolling Co', '--plan', 'enterprise'], env),
    );
    assert.equal(created.code, 0, created.out);

    const server = runPrevious(release, 'src/main.ts', [], env);
    const exit = finished(server);
    const host = `rolling.localhost:${port}`;
    try {
      for (const deadline = Date.now() + 120_000; ; await sleep(200)) {
        assert.equal(server.exitCode, null, `the previous release stopped at start: ${(await Promise.race([exit, sleep(100)]))?.out ?? ''}`);
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status,
          () => 0,
        );
        if (ready === 200) break;
        assert.ok(Date.now() < deadline, 'the previous release did not become ready');
      }
      assert.equal((await send(port, host, 'GET', '/')).status, 200);
      const filed = await send(port, host, 'POST', '/submit', { description: 'filed by the previous release', stepsToReproduce: 'steps', impact: 'impact' });
      assert.equal(filed.status, 200, filed.body.slice(0, 500));
      const submission = submissionOf(filed.body);
      const statusPath = statusPathOf(filed.body);
      assert.ok(submission && statusPath, 'the portal answered with a submission id and a status link');
      assert.match((await send(port, host, 'GET', statusPath)).body, new RegExp(`<code>${submission}</code>`));

      // This release, on the same database beside it: reads that report, files one the old code reads.
      const config = testConfig({ PUBLIC_URL: `http://localhost:${port}` });
      const database = await openDatabase({ databaseUrl: db!.url, poolSize: 4 });
      const app = await buildApp({ config, database, rateLimiter: testRateLimiter() });
      try {
        const seen = await app.inject({ url: statusPath, headers: { host, accept: 'text/html' } });
        assert.equal(seen.statusCode, 200);
        assert.match(seen.body, new RegExp(`<code>${submission}</code>`));
        const ours = await app.inject({
          method: 'POST',
          url: '/submit',
          headers: { host, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ description: 'filed by this release', stepsToReproduce: 'steps', impact: 'impact' }).toString(),
          remoteAddress: '203.0.113.77',
        });
        assert.equal(ours.statusCode, 200, ours.body.slice(0, 500));
        const oursPath = statusPathOf(ours.body);
        assert.ok(oursPath);
        assert.match((await send(port, host, 'GET', oursPath)).body, new RegExp(`<code>${submissionOf(ours.body)}</code>`));
      } finally {
        await app.close();
        await app.deps.rateLimiter.close();
        await database.close();
      }
    } finally {
      server.kill('SIGTERM');
      const { code, out } = await exit;
      assert.equal(code, 0, `the previous release did not stop cleanly: ${out}`);
    }
  });
});
