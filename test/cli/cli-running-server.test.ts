import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.js';
import { auditLog, companies } from '../../src/db/schema/index.js';
import { httpGet, runTs, type ServerProcess, startServer } from '../helpers/processes.js';

// The embedded database must never be opened by two processes (that corrupts it). These tests
// run a real server on PGlite and drive the real CLI against the same DATA_DIR.
let dataDir: string;
let server: ServerProcess;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cradle-lock-'));
  server = await startServer({ DATA_DIR: dataDir });
});
after(async () => {
  if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('CLI beside a running server on the embedded database', () => {
  it('runs concurrent commands through the server, which serves the result at once', async () => {
    const slugs = ['alpha', 'bravo', 'charlie', 'delta'];
    const results = await Promise.all(
      slugs.map((s) =>
        runTs('src/cli/main.ts', ['company', 'create', '--slug', s, '--name', `Co ${s}`, '--plan', 'enterprise', '--json'], { DATA_DIR: dataDir }),
      ),
    );
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(results.map((r) => JSON.parse(r.stdout).slug).sort(), slugs);
    for (const s of slugs) {
      const res = await httpGet(server.port, `${s}.localhost:${server.port}`);
      assert.equal(res.status, 200);
      assert.match(res.body, new RegExp(`Co ${s}`));
    }
    const dup = await runTs('src/cli/main.ts', ['company', 'create', '--slug', 'alpha', '--name', 'X', '--plan', 'free'], { DATA_DIR: dataDir });
    assert.equal(dup.code, 1);
    assert.equal(dup.stderr, 'cradle: slug "alpha" is already taken\n', 'domain errors cross the socket intact');
  });

  it('refuses at once to start a second server on the same data directory', async () => {
    const second = await runTs('src/main.ts', [], { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
    assert.equal(second.code, 1);
    assert.match(second.stderr, /^cradle: a Cradle server is already running on /);
  });

  it('leaves a consistent database after a graceful stop', async () => {
    assert.equal(await server.stop(), 0);
    const d = await openDatabase({ dataDir });
    try {
      const [row] = await d.db.select({ n: sql<number>`count(*)::int` }).from(companies);
      assert.equal(row?.n, 4);
      const [audits] = await d.db.select({ n: sql<number>`count(*)::int` }).from(auditLog);
      assert.equal(audits?.n, 4, 'each company with its audit row, nothing from the refused duplicate');
      assert.equal(await d.ready(), true);
    } finally {
      await d.close();
    }
  });

  it('takes over from a crashed server once its lock goes stale, with the data intact', async () => {
    const crashed = await startServer({ DATA_DIR: dataDir });
    const made = await runTs('src/cli/main.ts', ['company', 'create', '--slug', 'echo', '--name', 'Echo', '--plan', 'free'], { DATA_DIR: dataDir });
    assert.equal(made.code, 0, made.stderr);
    crashed.child.kill('SIGKILL');
    await once(crashed.child, 'exit');
    const after = await runTs('src/cli/main.ts', ['company', 'create', '--slug', 'foxtrot', '--name', 'Foxtrot', '--plan', 'free', '--json'], {
      DATA_DIR: dataDir,
    });
    assert.equal(after.code, 0, after.stderr);
    const d = await openDatabase({ dataDir });
    try {
      const rows = await d.db.select({ slug: companies.slug }).from(companies);
      assert.deepEqual(rows.map((r) => r.slug).sort(), ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot']);
    } finally {
      await d.close();
    }
  });
});
