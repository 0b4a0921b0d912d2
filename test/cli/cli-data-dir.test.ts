// The CLI never silently starts a new embedded database (issue 37): run where DATA_DIR holds none,
// every command but the two that set up an instance refuses, naming the folder, and creates nothing;
// those two say that they created one.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runTs } from '../helpers/processes.js';

const folders: string[] = [];
const emptyFolder = () => {
  const f = mkdtempSync(join(tmpdir(), 'cradle-nodb-'));
  folders.push(f);
  return f;
};
after(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});
const cradle = (dataDir: string, args: string[], stdin = '', env: Record<string, string> = {}) =>
  runTs('src/cli/main.ts', args, { DATA_DIR: dataDir, ...env }, stdin);

// Every module a command loaded (test/helpers/module-trace.mjs), written where `trace` says.
const HOOK = fileURLToPath(new URL('../helpers/module-trace.mjs', import.meta.url));
const traced = (trace: string) => ({ NODE_OPTIONS: `--import ${HOOK}`, CRADLE_MODULE_TRACE: trace });
const loadedDatabase = (trace: string) =>
  readFileSync(trace, 'utf8')
    .split('\n')
    .some((u) => /\/node_modules\/(drizzle-orm|@electric-sql\/pglite)\//.test(u));

describe('cradle on a DATA_DIR without a database', () => {
  it('refuses the commands that do not set up an instance, names the folder and leaves it empty', async () => {
    const dir = emptyFolder();
    for (const args of [
      ['vulndb', 'import', dir],
      ['vulndb', 'sync'],
      ['key', 'suspend', 'key_1'],
      ['company', 'update', '--slug', 'acme', '--plan', 'free'],
    ]) {
      const r = await cradle(dir, args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `cradle: there is no Cradle database in ${dir} (DATA_DIR): set DATA_DIR to the server's folder; nothing was created\n`);
      assert.deepEqual(readdirSync(dir), [], `${args.join(' ')} wrote nothing`);
    }
    // Nor does it load the database client and the application to say so (ADR 0022): a usage error neither.
    const trace = join(emptyFolder(), 'modules.txt');
    assert.equal((await cradle(dir, ['key', 'suspend', 'key_1'], '', traced(trace))).code, 1);
    assert.equal(loadedDatabase(trace), false, 'the refusal loaded the database client');
    assert.equal((await cradle(dir, ['frobnicate'], '', traced(trace))).code, 2);
    assert.equal(loadedDatabase(trace), false, 'a usage error loaded the database client');
    const missing = join(dir, 'not-there');
    const r = await cradle(missing, ['admin', 'set-role', '--email', 'a@example.com', '--role', 'viewer']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no Cradle database in .*not-there/);
    assert.equal(existsSync(missing), false);
  });

  it('company create sets one up and says where', async () => {
    const dir = emptyFolder();
    const trace = join(emptyFolder(), 'modules.txt');
    const r = await cradle(dir, ['company', 'create', '--slug', 'acme', '--name', 'Acme', '--plan', 'free'], '', traced(trace));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(loadedDatabase(trace), true, 'the trace sees the database client of a command that opens the database');
    assert.equal(r.stderr, `created a new embedded database in ${dir} (DATA_DIR)\n`);
    assert.match(r.stdout, /^created company acme \(Acme\), plan free/);
    const again = await cradle(dir, ['company', 'update', '--slug', 'acme', '--plan', 'reporting']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, '', 'the second command finds the database and says nothing about it');
  });
});
