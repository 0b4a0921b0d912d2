import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { and, count, eq } from 'drizzle-orm';
import { auditLog, outboxEvents, sbomComponents, sbomDiffs, sboms } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { AppError } from '../../../src/kernel/errors.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { getSbom, getSbomDocument } from '../../../src/modules/sboms/get-sbom.js';
import { getSbomDiff } from '../../../src/modules/sboms/get-sbom-diff.js';
import { listSbomComponents } from '../../../src/modules/sboms/list-sbom-components.js';
import { listSboms } from '../../../src/modules/sboms/list-sboms.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { cycloneDx, type Pkg, fixture, isCode } from '../../helpers/evidence.js';
import { makeCompany } from '../../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());
const ctx = operatorContext();

async function companyWithProduct(identifier = 'thermo-t2') {
  const c = await makeCompany(d.db);
  await upsertProduct(d.db, ctx, c.id, { name: 'Thermostat', identifier });
  return c;
}
const rowsOf = async (companyId: string) => ({
  sboms: (await d.db.select({ n: count() }).from(sboms).where(eq(sboms.companyId, companyId)))[0]?.n,
  audit: (
    await d.db
      .select({ n: count() })
      .from(auditLog)
      .where(and(eq(auditLog.companyId, companyId), eq(auditLog.action, 'sboms.push')))
  )[0]?.n,
  events: (await d.db.select({ n: count() }).from(outboxEvents).where(eq(outboxEvents.companyId, companyId)))[0]?.n,
});

describe('pushSbom', () => {
  it('ingests the CycloneDX SBOM that cyclonedx-npm produced for this project, with direct and transitive dependencies', async () => {
    const c = await companyWithProduct('cradle');
    const raw = fixture('cradle-cyclonedx-npm-1.6.cdx.json');
    const r = await pushSbom(d.db, ctx, c.id, 'cradle', raw);
    assert.equal(r.format, 'cyclonedx');
    assert.equal(r.specVersion, '1.6');
    assert.equal(r.productIdentifier, 'cradle');
    assert.equal(r.version, 1);
    // 94 top-level components plus 2 nested ones (npm packages bundled inside another).
    assert.equal(r.componentCount, 96);
    assert.equal(r.subjectName, 'cradle');
    assert.equal(r.added, 96, 'the first version is all additions');
    const all = (await listSbomComponents(d.db, c.id, r.id, { limit: 1000 })).items;
    const byName = new Map(all.map((x) => [`${x.group ? `${x.group}/` : ''}${x.name}`, x]));
    assert.equal(all.filter((x) => x.relationship === 'direct').length, 14, 'the 14 runtime dependencies of package.json');
    assert.equal(byName.get('fastify')?.relationship, 'direct');
    assert.equal(byName.get('pg-pool')?.relationship, 'transitive');
    assert.equal(byName.get('@electric-sql/pglite')?.purl, 'pkg:npm/%40electric-sql/pglite@0.5.16');
    assert.deepEqual(byName.get('@electric-sql/pglite')?.licenses, ['Apache-2.0']);
  });

  it('stores the original bytes compressed and gives them back unchanged, with a safe name and media type', async () => {
    const c = await companyWithProduct('a/b c"d');
    const raw = fixture('cradle-cyclonedx-npm-1.6.cdx.json');
    // A copy: the verb hands the Buffer it is given to its worker.
    const r = await pushSbom(d.db, ctx, c.id, 'a/b c"d', Buffer.from(raw));
    const doc = await getSbomDocument(d.db, c.id, r.id);
    assert.equal(doc.mediaType, 'application/vnd.cyclonedx+json');
    assert.equal(doc.filename, 'a_b_c_d-sbom-v1.cdx.json');
    assert.equal(doc.encoding, 'gzip');
    assert.ok(doc.body.length < raw.length / 3, 'compressed');
    assert.ok(gunzipSync(doc.body).equals(raw));
    assert.equal(doc.byteSize, raw.length);
  });

  it('numbers versions per product and diffs each against the previous one', async () => {
    const c = await companyWithProduct();
    const v1: Pkg[] = [
      { name: 'a', version: '1.0.0', license: 'MIT' },
      { name: 'b', version: '1.0.0', license: 'MIT', deps: ['c'] },
      { name: 'c', version: '1.0.0' },
    ];
    const v2: Pkg[] = [
      { name: 'a', version: '2.0.0', license: 'MIT' },
      { name: 'b', version: '1.0.0', license: 'Apache-2.0' },
      { name: 'd', version: '0.1.0' },
    ];
    const first = await pushSbom(d.db, ctx, c.id, 'thermo-t2', cycloneDx(v1, ['a', 'b']));
    const second = await pushSbom(d.db, ctx, c.id, 'thermo-t2', cycloneDx(v2, ['a', 'b', 'd'], '1.5'));
    assert.equal(second.version, 2);
    assert.equal(second.previousId, first.id);
    assert.deepEqual([second.added, second.removed, second.changed], [1, 1, 2]);
    const diff = await getSbomDiff(d.db, c.id, second.id);
    assert.deepEqual(
      diff.added.map((x) => `${x.name}@${x.version}`),
      ['d@0.1.0'],
    );
    assert.deepEqual(
      diff.removed.map((x) => `${x.name}@${x.version}`),
      ['c@1.0.0'],
    );
    const changes = Object.fromEntries(diff.changed.map((x) => [`${x.before.name}@${x.before.version}->${x.after.version}`, x.fields]));
    assert.deepEqual(changes, { 'a@1.0.0->2.0.0': ['version', 'purl'], 'b@1.0.0->1.0.0': ['licenses'] });
    const comps = (await listSbomComponents(d.db, c.id, first.id)).items;
    assert.deepEqual(
      comps.map((x) => [x.name, x.relationship]),
      [
        ['a', 'direct'],
        ['b', 'direct'],
        ['c', 'transitive'],
      ],
    );
    const same = await pushSbom(d.db, ctx, c.id, 'thermo-t2', cycloneDx(v2, ['a', 'b', 'd']));
    assert.deepEqual([same.version, same.added, same.removed, same.changed], [3, 0, 0, 0]);
    // The diff is served as the push stored it (issue 24): gone components do not change it.
    await d.db.delete(sbomComponents).where(eq(sbomComponents.sbomId, first.id));
    assert.deepEqual(await getSbomDiff(d.db, c.id, second.id), diff);
    const stored = await d.db.select().from(sbomDiffs).where(eq(sbomDiffs.companyId, c.id));
    assert.deepEqual(stored.map((r) => r.sbomId).sort(), [second.id, same.id].sort(), 'one stored diff per version after the first');
  });

  it('pages components in document order', async () => {
    const c = await companyWithProduct();
    const pkgs = Array.from({ length: 250 }, (_, i) => ({ name: `p${i}`, version: '1.0.0' }));
    const r = await pushSbom(d.db, ctx, c.id, 'thermo-t2', cycloneDx(pkgs, []));
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const page = await listSbomComponents(d.db, c.id, r.id, { limit: 100, offset });
      seen.push(...page.items.map((x) => x.name));
      offset = page.nextOffset;
      pages++;
    }
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      pkgs.map((p) => p.name),
    );
  });

  it('writes the audit row and the sbom.ingested event in the push', async () => {
    const c = await companyWithProduct();
    const r = await pushSbom(d.db, ctx, c.id, 'thermo-t2', cycloneDx([{ name: 'a', version: '1' }], ['a']));
    const [audit] = await d.db.select().from(auditLog).where(eq(auditLog.targetId, r.id));
    assert.equal(audit?.action, 'sboms.push');
    assert.equal(audit?.details.componentCount, 1);
    const [event] = await d.db.select().from(outboxEvents).where(eq(outboxEvents.companyId, c.id));
    assert.equal(event?.type, 'sbom.ingested');
    assert.equal(event?.payload.type, 'sbom.ingested');
    assert.equal(event?.payload.data.id, r.id);
    assert.equal(event?.payload.data.productIdentifier, 'thermo-t2');
    assert.ok(!Number.isNaN(Date.parse(event?.payload.timestamp ?? '')));
  });
});

describe('pushSbom refusals', () => {
  it("answers NOT_FOUND for another company's product identifier and for unknown ids", async () => {
    const mine = await companyWithProduct('only-mine');
    const other = await makeCompany(d.db);
    const doc = cycloneDx([{ name: 'a', version: '1' }], []);
    await assert.rejects(pushSbom(d.db, ctx, other.id, 'only-mine', doc), isCode('NOT_FOUND'));
    const r = await pushSbom(d.db, ctx, mine.id, 'only-mine', doc);
    await assert.rejects(getSbom(d.db, other.id, r.id), isCode('NOT_FOUND'));
    await assert.rejects(getSbomDocument(d.db, other.id, r.id), isCode('NOT_FOUND'));
    await assert.rejects(listSbomComponents(d.db, other.id, r.id), isCode('NOT_FOUND'));
    await assert.rejects(getSbom(d.db, mine.id, 'not-a-uuid'), isCode('NOT_FOUND'));
    assert.equal((await listSboms(d.db, other.id)).items.length, 0);
    assert.deepEqual(
      (await listSboms(d.db, mine.id, { product: 'only-mine' })).items.map((s) => s.id),
      [r.id],
    );
    assert.equal((await listSboms(d.db, mine.id, { product: 'nope' })).items.length, 0);
  });

  it('reports schema errors with JSON pointers and stores nothing', async () => {
    const c = await companyWithProduct();
    const doc = JSON.parse(
      cycloneDx(
        [
          { name: 'a', version: '1' },
          { name: 'b', version: '1', sha256: 'not-hex' },
        ],
        [],
      ),
    );
    delete doc.components[0].type;
    await assert.rejects(pushSbom(d.db, ctx, c.id, 'thermo-t2', JSON.stringify(doc)), (e: unknown) => {
      assert.ok(e instanceof AppError && e.code === 'VALIDATION');
      const paths = (e.extra.issues ?? []).map((i) => i.path);
      assert.ok(
        paths.some((p) => p.startsWith('/components/')),
        `pointers: ${paths.join(', ')}`,
      );
      assert.match(e.message, /CycloneDX 1\.6/);
      return true;
    });
    assert.deepEqual(await rowsOf(c.id), { sboms: 0, audit: 0, events: 0 });
  });

  it('refuses unsupported formats by name', async () => {
    const c = await companyWithProduct();
    const cases: [string, RegExp][] = [
      [JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.3', version: 1 }), /specVersion "1\.3".*supported: CycloneDX 1\.4/],
      [JSON.stringify({ spdxVersion: 'SPDX-2.2' }), /SPDX-2\.2/],
      [JSON.stringify({ '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld', '@graph': [] }), /SPDX 3 JSON-LD is not supported/],
      [JSON.stringify({ hello: 'world' }), /neither CycloneDX/],
      ['<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.6"/>', /XML/],
    ];
    for (const [doc, message] of cases) {
      await assert.rejects(
        pushSbom(d.db, ctx, c.id, 'thermo-t2', doc),
        (e: unknown) => e instanceof AppError && e.code === 'UNSUPPORTED_MEDIA_TYPE' && message.test(e.message),
      );
    }
    await assert.rejects(pushSbom(d.db, ctx, c.id, 'thermo-t2', '{"bomFormat": '), isCode('VALIDATION'));
    assert.equal((await rowsOf(c.id)).sboms, 0);
  });

  it('refuses oversize, deeply nested, NUL-bearing and over-long documents cleanly', async () => {
    const c = await companyWithProduct();
    const doc = cycloneDx(
      [
        { name: 'a', version: '1' },
        { name: 'b', version: '1' },
      ],
      [],
    );
    await assert.rejects(pushSbom(d.db, ctx, c.id, 'thermo-t2', doc, { maxBytes: 100 }), isCode('PAYLOAD_TOO_LARGE'));
    // The default limit is 50 MB: one byte more is refused before anything is parsed.
    await assert.rejects(pushSbom(d.db, ctx, c.id, 'thermo-t2', Buffer.alloc(50 * 1024 * 1024 + 1, 0x20)), isCode('PAYLOAD_TOO_LARGE'));
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    await assert.rejects(
      pushSbom(d.db, ctx, c.id, 'thermo-t2', deep),
      (e: unknown) => e instanceof AppError && e.code === 'VALIDATION' && /nests deeper than 64/.test(e.message),
    );
    const nul = doc.replace('"name":"a"', '"name":"a\\u0000"');
    await assert.rejects(pushSbom(d.db, ctx, c.id, 'thermo-t2', nul), isCode('VALIDATION'));
    await assert.rejects(
      pushSbom(d.db, ctx, c.id, 'thermo-t2', doc, { maxComponents: 1 }),
      (e: unknown) => e instanceof AppError && /2 components; the limit is 1/.test(e.message),
    );
    assert.equal((await rowsOf(c.id)).sboms, 0);
  });

  it('leaves nothing behind when the database fails half-way through a push', async () => {
    const c = await companyWithProduct();
    const doc = cycloneDx(
      [
        { name: 'a', version: '1', deps: ['b'] },
        { name: 'b', version: '1' },
      ],
      ['a'],
    );
    // A trigger that fails the last insert of the push (the graph edges), after the SBOM row,
    // its document and its components were written in the same transaction.
    await d.ddl(`create function evidence_test_fail() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`);
    await d.ddl('create trigger evidence_test_fail before insert on sbom_dependencies for each row execute function evidence_test_fail()');
    try {
      await assert.rejects(pushSbom(d.db, ctx, c.id, 'thermo-t2', doc), (e: unknown) => /injected failure/.test(String((e as Error).cause ?? e)));
    } finally {
      await d.ddl('drop trigger evidence_test_fail on sbom_dependencies');
      await d.ddl('drop function evidence_test_fail');
    }
    assert.deepEqual(await rowsOf(c.id), { sboms: 0, audit: 0, events: 0 });
    const ok = await pushSbom(d.db, ctx, c.id, 'thermo-t2', doc);
    assert.equal(ok.version, 1, 'the failed push did not use up a version');
  });
});
