// The CLI never silently starts a new embedded database (issue 37): run where DATA_DIR holds none,
// every command but the two that set up an instance refuses, naming the folder, and creates nothing;
// those two say that they created one.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
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
const cradle = (dataDir: string, args: string[], stdin = '') => runTs('src/cli/main.ts', args, { DATA_DIR: dataDir }, stdin);

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
    const missing = join(dir, 'not-there');
    const r = await cradle(missing, ['admin', 'set-role', '--email', 'a@example.com', '--role', 'viewer']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no Cradle database in .*not-there/);
    assert.equal(existsSync(missing), false);
  });

  it('company create sets one up and says where', async () => {
    const dir = emptyFolder();
    const r = await cradle(dir, ['company', 'create', '--slug', 'acme', '--name', 'Acme', '--plan', 'free']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, `created a new embedded database in ${dir} (DATA_DIR)\n`);
    assert.match(r.stdout, /^created company acme \(Acme\), plan free/);
    const again = await cradle(dir, ['company', 'update', '--slug', 'acme', '--plan', 'reporting']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, '', 'the second command finds the database and says nothing about it');
  });
});
