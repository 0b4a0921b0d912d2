import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { providerValidator } from '../../helpers/csaf-validator.js';
import { changesCsv, csafFileName, csafPath, folderListing, hashFile, indexTxt, providerMetadata } from '../../../src/modules/advisories/csaf-provider.js';

describe('CSAF provider layout', () => {
  it('names files as CSAF 2.0 section 5.1 says', () => {
    assert.equal(csafFileName('ACME-SA-2026:0007'), 'acme-sa-2026_0007.json');
    assert.equal(csafFileName('cisco-sa-20180328-smi2'), 'cisco-sa-20180328-smi2.json');
    assert.equal(csafFileName('RHSA-2019:1862'), 'rhsa-2019_1862.json');
  });

  it('writes provider metadata valid against the official provider schema', () => {
    const validate = providerValidator();
    const doc = providerMetadata({
      wellKnownUrl: 'https://acme.cradle.example/.well-known/csaf',
      publisher: { name: 'Acme GmbH', namespace: 'https://acme.example' },
      lastUpdated: new Date('2026-11-22T00:00:00Z'),
    });
    assert.ok(validate(doc), JSON.stringify(validate.errors?.slice(0, 3)));
    assert.deepEqual(doc.distributions, [{ directory_url: 'https://acme.cradle.example/.well-known/csaf/clear/' }]);
  });

  it('lists documents by year of first release in index.txt, and changes newest first', () => {
    const docs = [
      { trackingId: 'ACME-2025-1', initialReleaseDate: new Date('2025-12-30T00:00:00Z'), currentReleaseDate: new Date('2026-02-01T00:00:00Z') },
      { trackingId: 'ACME-2026-2', initialReleaseDate: new Date('2026-03-01T00:00:00Z'), currentReleaseDate: new Date('2026-03-01T00:00:00Z') },
    ];
    assert.equal(csafPath(docs[0] as never), '2025/acme-2025-1.json');
    assert.equal(indexTxt(docs), '2025/acme-2025-1.json\n2026/acme-2026-2.json\n');
    assert.equal(changesCsv(docs), '"2026/acme-2026-2.json","2026-03-01T00:00:00.000Z"\n"2025/acme-2025-1.json","2026-02-01T00:00:00.000Z"\n');
  });

  it('lists each folder for its directory listing: files and year folders at the top, documents and hashes per year', () => {
    const docs = [
      { trackingId: 'ACME-2026-2', initialReleaseDate: new Date('2026-03-01T00:00:00Z'), currentReleaseDate: new Date('2026-03-01T00:00:00Z') },
      { trackingId: 'ACME-2025-1', initialReleaseDate: new Date('2025-12-30T00:00:00Z'), currentReleaseDate: new Date('2026-02-01T00:00:00Z') },
    ];
    assert.deepEqual(folderListing(docs), [
      { name: 'changes.csv', path: 'changes.csv' },
      { name: 'index.txt', path: 'index.txt' },
      { name: '2025/', path: '2025/' },
      { name: '2026/', path: '2026/' },
    ]);
    assert.deepEqual(folderListing(docs, '2025'), [
      { name: 'acme-2025-1.json', path: '2025/acme-2025-1.json' },
      { name: 'acme-2025-1.json.sha256', path: '2025/acme-2025-1.json.sha256' },
      { name: 'acme-2025-1.json.sha512', path: '2025/acme-2025-1.json.sha512' },
    ]);
    assert.equal(folderListing(docs, '2024'), undefined);
  });

  it('writes hash files a downloader can check', () => {
    const body = '{"document":{}}';
    assert.equal(hashFile('sha256', body, 'x.json'), `${createHash('sha256').update(body).digest('hex')}  x.json\n`);
    assert.match(hashFile('sha512', body, 'x.json'), /^[0-9a-f]{128} {2}x\.json\n$/);
  });
});
