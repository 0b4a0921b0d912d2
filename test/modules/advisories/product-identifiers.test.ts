import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { advisoryDocument } from '../../../src/modules/advisories/released-documents.js';
import { publishAdvisory } from '../../../src/modules/advisories/release-advisory.js';
import { updateAdvisory } from '../../../src/modules/advisories/update-advisory.js';
import { toCycloneDxVex, toOpenVex } from '../../../src/modules/advisories/vex-exports.js';
import type { Company } from '../../../src/modules/companies/companies.schemas.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { readyDraft, testTarget } from '../../helpers/advisories.js';
import { bsiValidate } from '../../helpers/bsi-csaf.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reading documents
let d: TestDatabase;
let c: Company;
const ctx = operatorContext();

/** A CycloneDX SBOM whose subject component (metadata.component) carries `subject`. */
const cdx = (subject: Record<string, unknown>) =>
  JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    metadata: { component: { type: 'firmware', name: 'Thermostat T2', ...subject } },
    components: [],
  });

/** An SPDX 2.3 SBOM describing one package with the given external references. */
const spdx = (version: string, refs: { referenceType: string; referenceLocator: string }[]) =>
  JSON.stringify({
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: 'gateway',
    documentNamespace: `https://acme.example/spdx/gateway-${version}`,
    creationInfo: { created: '2026-11-01T10:00:00Z', creators: ['Tool: test'] },
    packages: [
      {
        SPDXID: 'SPDXRef-gw',
        name: 'Gateway G1',
        versionInfo: version,
        downloadLocation: 'NOASSERTION',
        externalRefs: refs.map((r) => ({ referenceCategory: r.referenceType === 'purl' ? 'PACKAGE-MANAGER' : 'SECURITY', ...r })),
      },
    ],
    relationships: [{ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-gw' }],
  });

/** The product_identification_helper of each product in the document, by product name. */
const helpers = (doc: Json): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  const walk = (b: Json) => {
    if (b.product) out[b.product.name] = b.product.product_identification_helper;
    for (const x of b.branches ?? []) walk(x);
  };
  for (const b of doc.product_tree.branches) walk(b);
  return out;
};

before(async () => {
  d = await createTestDatabase();
  c = await makeCompany(d.db, { name: 'Acme' });
  await upsertProduct(d.db, ctx, c.id, { name: 'Thermostat T2', identifier: 'thermo-t2', producer: 'Acme' });
  await upsertProduct(d.db, ctx, c.id, { name: 'Gateway G1', identifier: 'gw-1', producer: 'Acme' });
  await upsertProduct(d.db, ctx, c.id, { name: 'Hub', identifier: 'hub', producer: 'Acme' });
  // An older SBOM first: only the newest one counts.
  await pushSbom(d.db, ctx, c.id, 'thermo-t2', cdx({ version: '2.0.0', purl: 'pkg:generic/acme/old-name@2.0.0' }));
  await pushSbom(
    d.db,
    ctx,
    c.id,
    'thermo-t2',
    cdx({
      version: '2.4.1',
      purl: 'pkg:generic/acme/thermostat-t2@2.4.1?arch=armv7&checksum=sha256:4f2a',
      cpe: 'cpe:2.3:o:acme:thermostat_t2_firmware:2.4.1:*:*:*:*:*:*:*',
    }),
  );
  await pushSbom(
    d.db,
    ctx,
    c.id,
    'gw-1',
    spdx('1.2', [
      { referenceType: 'purl', referenceLocator: 'pkg:deb/acme/gateway@1.2' },
      { referenceType: 'cpe22Type', referenceLocator: 'cpe:/o:acme:gateway:1.2' },
    ]),
  );
  // The hub's SBOM names a CPE the CSAF schema would refuse: it is left out, not a failed release.
  await pushSbom(d.db, ctx, c.id, 'hub', cdx({ name: 'Hub', version: '1.0', cpe: 'cpe:2.3:o:acme:hub' }));
});
after(() => d.drop());

describe('product identification helpers (CSAF 2.0 test 6.2.16)', () => {
  let doc: Json = {};
  before(async () => {
    const draft = await readyDraft(d.db, c);
    await updateAdvisory(d.db, ctx, c, testTarget(c).distributionUrl, draft.id, {
      products: [
        { productIdentifier: 'thermo-t2', version: '2.4.1', status: 'fixed' },
        { productIdentifier: 'thermo-t2', version: '2.3.0+build.7', status: 'known_affected' },
        { productIdentifier: 'gw-1', version: '1.1', status: 'known_affected' },
        { productIdentifier: 'hub', version: '1.0', status: 'not_affected', justification: 'component_not_present' },
        { vendor: 'Acme', name: 'Legacy Bridge', version: '0.9', status: 'known_affected' },
      ],
    });
    await publishAdvisory(d.db, ctx, testTarget(c), draft.id);
    doc = JSON.parse((await advisoryDocument(d.db, c, testTarget(c).namespace, draft.id, 'csaf')).content) as Json;
  });

  it("takes purl and CPE from the newest SBOM's subject at the advisory's version, else a generic purl", () => {
    assert.deepEqual(helpers(doc), {
      // The SBOM's own version: its purl and CPE as they are.
      'Acme Thermostat T2 2.4.1': {
        cpe: 'cpe:2.3:o:acme:thermostat_t2_firmware:2.4.1:*:*:*:*:*:*:*',
        purl: 'pkg:generic/acme/thermostat-t2@2.4.1?arch=armv7&checksum=sha256:4f2a',
      },
      // Another version: version swapped (CPE-quoted), the artefact's checksum dropped, the arch kept.
      'Acme Thermostat T2 2.3.0+build.7': {
        cpe: 'cpe:2.3:o:acme:thermostat_t2_firmware:2.3.0\\+build.7:*:*:*:*:*:*:*',
        purl: 'pkg:generic/acme/thermostat-t2@2.3.0+build.7?arch=armv7',
      },
      // SPDX: the described package's purl and CPE 2.2 reference.
      'Acme Gateway G1 1.1': { cpe: 'cpe:/o:acme:gateway:1.1', purl: 'pkg:deb/acme/gateway@1.1' },
      'Acme Hub 1.0': { purl: 'pkg:generic/Acme/Hub@1.0' },
      'Acme Legacy Bridge 0.9': { purl: 'pkg:generic/Acme/Legacy%20Bridge@0.9' },
    });
  });

  it('passes the BSI tests on identification helpers: none missing (6.2.16), every purl valid (6.1.13)', async () => {
    assert.deepEqual(await bsiValidate(doc, ['6.1.13', '6.2.16']), { errors: [], warnings: [], tests: ['6.1.13', '6.2.16'] });
  });

  it('gives the VEX exports the same package URLs and CPEs', () => {
    const purls = toOpenVex(doc as never, 'urn:x').statements as { products: { '@id': string }[] }[];
    assert.ok(purls.some((s) => s.products[0]?.['@id'] === 'pkg:deb/acme/gateway@1.1'));
    const components = toCycloneDxVex(doc as never).components as Json[];
    assert.deepEqual(
      components.map((x) => [x.purl, x.cpe]).find(([p]) => p === 'pkg:deb/acme/gateway@1.1'),
      ['pkg:deb/acme/gateway@1.1', 'cpe:/o:acme:gateway:1.1'],
    );
  });
});
