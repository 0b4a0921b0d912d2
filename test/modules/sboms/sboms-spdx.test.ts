import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { AppError } from '../../../src/kernel/errors.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { getSbomDocument } from '../../../src/modules/sboms/get-sbom.js';
import { listSbomComponents } from '../../../src/modules/sboms/list-sbom-components.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());
const ctx = operatorContext();

/** A router firmware SBOM as a vendor's build system would write it, using most SPDX 2.3 package fields. */
const routerSpdx = () => ({
  spdxVersion: 'SPDX-2.3',
  dataLicense: 'CC0-1.0',
  SPDXID: 'SPDXRef-DOCUMENT',
  name: 'router-fw-5.2.0',
  documentNamespace: 'https://sbom.example.com/router-fw/5.2.0/8f0c2d1e',
  creationInfo: { created: '2026-10-30T08:15:00Z', creators: ['Tool: yocto-spdx-4.0', 'Organization: Example Networks GmbH'] },
  packages: [
    {
      SPDXID: 'SPDXRef-router-fw',
      name: 'router-fw',
      versionInfo: '5.2.0',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      supplier: 'Organization: Example Networks GmbH',
      licenseConcluded: 'LicenseRef-Proprietary',
      licenseDeclared: 'LicenseRef-Proprietary',
      primaryPackagePurpose: 'FIRMWARE',
    },
    {
      SPDXID: 'SPDXRef-openssl',
      name: 'openssl',
      versionInfo: '3.0.15',
      downloadLocation: 'https://www.openssl.org/source/openssl-3.0.15.tar.gz',
      filesAnalyzed: false,
      supplier: 'Organization: OpenSSL Software Foundation (openssl-security@openssl.org)',
      licenseConcluded: 'Apache-2.0',
      licenseDeclared: 'Apache-2.0',
      primaryPackagePurpose: 'LIBRARY',
      checksums: [{ algorithm: 'SHA256', checksumValue: '23C666D0EDF20F14249B3D8F0368ACAEE9AB585B09E1DE82107C66E1F3EC9533' }],
      externalRefs: [
        { referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: 'cpe:2.3:a:openssl:openssl:3.0.15:*:*:*:*:*:*:*' },
        { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:generic/openssl@3.0.15' },
      ],
    },
    {
      SPDXID: 'SPDXRef-zlib',
      name: 'zlib',
      versionInfo: '1.3.1',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      supplier: 'NOASSERTION',
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'Zlib',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:generic/zlib@1.3.1' }],
    },
    {
      SPDXID: 'SPDXRef-busybox',
      name: 'busybox',
      versionInfo: '1.36.1',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'GPL-2.0-only',
      supplier: 'Person: Denys Vlasenko',
    },
    { SPDXID: 'SPDXRef-gcc-toolchain', name: 'gcc', versionInfo: '13.2.0', downloadLocation: 'NOASSERTION', filesAnalyzed: false },
  ],
  relationships: [
    { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-router-fw' },
    { spdxElementId: 'SPDXRef-router-fw', relationshipType: 'DEPENDS_ON', relatedSpdxElement: 'SPDXRef-openssl' },
    { spdxElementId: 'SPDXRef-busybox', relationshipType: 'RUNTIME_DEPENDENCY_OF', relatedSpdxElement: 'SPDXRef-router-fw' },
    { spdxElementId: 'SPDXRef-openssl', relationshipType: 'DEPENDS_ON', relatedSpdxElement: 'SPDXRef-zlib' },
    { spdxElementId: 'SPDXRef-router-fw', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-gcc-toolchain' },
  ],
});

describe('pushSbom with SPDX 2.3', () => {
  it('normalises packages, purls, CPEs, licences, checksums and suppliers, and reads directness from the relationships', async () => {
    const c = await makeCompany(d.db);
    await upsertProduct(d.db, ctx, c.id, { name: 'Router', identifier: 'router' });
    const r = await pushSbom(d.db, ctx, c.id, 'router', JSON.stringify(routerSpdx()));
    assert.deepEqual([r.format, r.specVersion, r.componentCount, r.dependencyCount], ['spdx', '2.3', 4, 3]);
    assert.deepEqual([r.subjectName, r.subjectVersion, r.serialNumber], ['router-fw', '5.2.0', 'https://sbom.example.com/router-fw/5.2.0/8f0c2d1e']);
    const items = (await listSbomComponents(d.db, c.id, r.id)).items;
    const by = Object.fromEntries(items.map((x) => [x.name, x]));
    assert.deepEqual(
      {
        rel: by.openssl?.relationship,
        purl: by.openssl?.purl,
        cpe: by.openssl?.cpe,
        lic: by.openssl?.licenses,
        sup: by.openssl?.supplier,
        type: by.openssl?.type,
      },
      {
        rel: 'direct',
        purl: 'pkg:generic/openssl@3.0.15',
        cpe: 'cpe:2.3:a:openssl:openssl:3.0.15:*:*:*:*:*:*:*',
        lic: ['Apache-2.0'],
        sup: 'OpenSSL Software Foundation (openssl-security@openssl.org)',
        type: 'library',
      },
    );
    assert.deepEqual(by.openssl?.hashes, [{ alg: 'SHA256', content: '23c666d0edf20f14249b3d8f0368acaee9ab585b09e1de82107c66e1f3ec9533' }]);
    assert.deepEqual([by.zlib?.relationship, by.zlib?.supplier, by.zlib?.licenses], ['transitive', null, ['Zlib']], 'NOASSERTION is no value');
    assert.deepEqual([by.busybox?.relationship, by.busybox?.supplier], ['direct', 'Denys Vlasenko'], 'X_DEPENDENCY_OF points the other way');
    assert.equal(by.gcc?.relationship, 'unknown', 'CONTAINS is packaging, not a dependency');
    assert.equal((await getSbomDocument(d.db, c.id, r.id)).mediaType, 'application/spdx+json');
  });

  it('ingests the SPDX document that `npm sbom` produced for this project', async () => {
    const c = await makeCompany(d.db);
    await upsertProduct(d.db, ctx, c.id, { name: 'Cradle', identifier: 'cradle' });
    const r = await pushSbom(d.db, ctx, c.id, 'cradle', readFileSync(new URL('../../fixtures/evidence/cradle-npm-sbom.spdx.json', import.meta.url)));
    assert.deepEqual([r.componentCount, r.subjectName], [74, 'cradle']);
    const items = (await listSbomComponents(d.db, c.id, r.id, { limit: 1000 })).items;
    assert.equal(items.filter((x) => x.relationship === 'direct').length, 14);
    assert.equal(items.find((x) => x.name === 'pg-pool')?.relationship, 'transitive');
  });

  it('refuses a schema-invalid SPDX 2.3 document with a JSON pointer', async () => {
    const c = await makeCompany(d.db);
    await upsertProduct(d.db, ctx, c.id, { name: 'Router', identifier: 'router' });
    const doc = routerSpdx();
    (doc.packages[1] as Record<string, unknown>).checksums = [{ algorithm: 'SHA256' }];
    await assert.rejects(pushSbom(d.db, ctx, c.id, 'router', JSON.stringify(doc)), (e: unknown) => {
      assert.ok(e instanceof AppError && e.code === 'VALIDATION');
      assert.deepEqual(e.extra.issues?.[0], { path: '/packages/1/checksums/0', message: 'missing required property "checksumValue"' });
      return true;
    });
  });
});
