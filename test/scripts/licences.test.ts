import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { licenceAllowed, productionPackages } from '../../scripts/licences.js';

const root = mkdtempSync(join(tmpdir(), 'cradle-licences-'));
after(() => rmSync(root, { recursive: true, force: true }));

function pkg(dir: string, manifest: Record<string, unknown>) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
}

test('walks the production tree through nested node_modules, leaving dev dependencies out', () => {
  pkg(root, { name: 'app', dependencies: { a: '1', b: '1' }, devDependencies: { dev: '1' } });
  pkg(join(root, 'node_modules', 'a'), { name: 'a', version: '1.0.0', license: 'MIT', dependencies: { c: '2' } });
  pkg(join(root, 'node_modules', 'a', 'node_modules', 'c'), { name: 'c', version: '2.0.0', license: 'GPL-3.0-only' });
  pkg(join(root, 'node_modules', 'c'), { name: 'c', version: '1.0.0', license: 'MIT' });
  pkg(join(root, 'node_modules', 'b'), {
    name: 'b',
    version: '1.0.0',
    licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }],
    optionalDependencies: { absent: '1' },
  });
  pkg(join(root, 'node_modules', 'dev'), { name: 'dev', version: '1.0.0', license: 'AGPL-3.0-only' });
  const found = productionPackages(root).map((p) => `${p.name}@${p.version} ${p.licence} ${p.dir}`);
  assert.deepEqual(found, ['a@1.0.0 MIT node_modules/a', 'b@1.0.0 (MIT OR Apache-2.0) node_modules/b', 'c@2.0.0 GPL-3.0-only node_modules/a/node_modules/c']);
});

test('a missing required dependency is an error naming it', () => {
  const bare = mkdtempSync(join(tmpdir(), 'cradle-licences-bare-'));
  try {
    pkg(bare, { name: 'app', dependencies: { gone: '1' } });
    assert.throws(() => productionPackages(bare), /not installed: gone \(needed by the project\)/);
  } finally {
    rmSync(bare, { recursive: true, force: true });
  }
});

test('accepts permissive licences and SPDX expressions with an acceptable choice', () => {
  for (const l of ['MIT', 'Apache-2.0', 'BSD-3-Clause', '(MIT OR GPL-3.0-only)', 'MIT AND ISC', '(MIT AND (BSD-2-Clause OR GPL-2.0))']) {
    assert.equal(licenceAllowed(l, 'x'), true, l);
  }
});

test('refuses copyleft, missing and unreviewed licences, and an AND with one refused side', () => {
  for (const l of ['GPL-3.0-only', 'AGPL-3.0-or-later', 'SSPL-1.0', 'UNKNOWN', 'MIT AND GPL-2.0', 'LGPL-3.0+', '', 'MIT OR']) {
    assert.equal(licenceAllowed(l, 'x'), false, l);
  }
});

test('a reviewed exception holds only for the package it names', () => {
  assert.equal(licenceAllowed('LGPL-3.0+', 'openpgp'), true);
  assert.equal(licenceAllowed('LGPL-3.0+', 'another-package'), false);
});
