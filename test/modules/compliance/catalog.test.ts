import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uuidV5 } from '../../../src/kernel/uuid5.js';
import { GROUPS, REQUIREMENTS } from '../../../src/modules/compliance/catalog.js';
import { oscalCatalog } from '../../../src/modules/compliance/oscal-catalog.js';
import { compileSchema } from '../../helpers/json-schema.js';

describe('CRA requirement catalog', () => {
  it('covers Annex I Part I (1) and (2)(a)-(m), Part II (1)-(8), and Articles 13 and 14', () => {
    const ids = new Set(REQUIREMENTS.map((r) => r.id));
    for (const l of ['1', ...'abcdefghijklm'.split('').map((c) => `2${c}`)]) assert.ok(ids.has(`cra-ai-p1-${l}`), `Part I ${l}`);
    for (let i = 1; i <= 8; i++) assert.ok(ids.has(`cra-ai-p2-${i}`), `Part II ${i}`);
    for (const id of ['cra-art13-8-support', 'cra-art13-17-contact', 'cra-art14-reporting']) assert.ok(ids.has(id), id);
    assert.equal(ids.size, REQUIREMENTS.length, 'ids are unique');
    for (const r of REQUIREMENTS) {
      assert.ok(r.group in GROUPS);
      assert.ok(r.title && r.reference && r.evidence && r.action, r.id);
    }
  });
});

describe('OSCAL catalog', () => {
  const validate = compileSchema('oscal/oscal_catalog_schema.json');
  it('validates against the official OSCAL 1.0.6 catalog schema', () => {
    const doc = oscalCatalog(new Date('2026-11-22T00:00:00Z'));
    const ok = validate(doc);
    assert.ok(ok, JSON.stringify(validate.errors?.slice(0, 3)));
    const controls = (doc.catalog as { groups: { controls: unknown[] }[] }).groups.flatMap((g) => g.controls);
    assert.equal(controls.length, REQUIREMENTS.length);
  });
  it('keeps its UUID stable across runs', () => {
    const a = oscalCatalog(new Date('2026-01-01T00:00:00Z')).catalog as { uuid: string };
    const b = oscalCatalog(new Date('2026-06-01T00:00:00Z')).catalog as { uuid: string };
    assert.equal(a.uuid, b.uuid);
  });
});

describe('uuidV5', () => {
  it('matches the RFC 4122 reference value and sets version and variant bits', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org') == 886313e1-3b8a-5372-9b90-0c9aee199e5d
    assert.equal(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '886313e1-3b8a-5372-9b90-0c9aee199e5d');
    assert.match(uuidV5('anything'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
