import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { reviseAdvisory } from '../../src/modules/advisories/release-advisory.js';
import { updateAdvisory } from '../../src/modules/advisories/update-advisory.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { publishedAdvisory, readyDraft, testTarget } from '../helpers/advisories.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { csafValidator, providerValidator } from '../helpers/csaf-validator.js';
import { makeCompany } from '../helpers/factories.js';

/**
 * Walks a portal as a CSAF 2.0 downloader does (CSAF 2.0 section 7.3): security.txt's CSAF field,
 * the provider metadata, the distribution's index.txt and changes.csv, each document and its
 * hash files, checking every step against the spec and the official schemas.
 */
let t: TestApp;
let acme: Company;
let rival: Company;
let draftTracking = '';
let rivalTracking = '';
const validateCsaf = csafValidator();
const validateProvider = providerValidator();

/** GET an absolute portal URL through inject (Host from the URL). */
const fetchUrl = (url: string, headers: Record<string, string> = {}) => {
  const u = new URL(url);
  return t.app.inject({ url: `${u.pathname}${u.search}`, headers: { host: u.host, ...headers } });
};
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reading response bodies
const portalOf = (c: Company) => `http://${c.slug}.localhost:3000`;

before(async () => {
  t = await createTestApp();
  acme = await makeCompany(t.database.db, { securityEmail: 'psirt@acme.example' });
  rival = await makeCompany(t.database.db);
  const first = await publishedAdvisory(t.database.db, acme);
  // A title with markup, to prove the human page escapes it.
  await updateAdvisory(t.database.db, operatorContext(), acme, testTarget(acme).distributionUrl, first.id, { title: 'Bypass in <script>alert(1)</script> T2' });
  await reviseAdvisory(t.database.db, operatorContext(), testTarget(acme), first.id, { summary: 'Clarified the title' });
  await publishedAdvisory(t.database.db, acme);
  draftTracking = (await readyDraft(t.database.db, acme)).trackingId;
  rivalTracking = (await publishedAdvisory(t.database.db, rival)).trackingId;
});
after(() => t.close());

describe('the CSAF provider of a portal, walked as a downloader', () => {
  it('is announced by security.txt and described by provider metadata valid against the official schema', async () => {
    const txt = await fetchUrl(`${portalOf(acme)}/.well-known/security.txt`);
    const field = /^CSAF: (.+)$/m.exec(txt.body)?.[1];
    assert.equal(field, `${portalOf(acme)}/.well-known/csaf/provider-metadata.json`);
    const res = await fetchUrl(field ?? '');
    assert.equal(res.statusCode, 200);
    // Exactly application/json: CSAF checkers compare the whole field (csaf_checker warns otherwise).
    assert.equal(res.headers['content-type'], 'application/json');
    assert.match(String(res.headers['cache-control']), /public, max-age=\d+/);
    const meta = res.json<Json>();
    assert.ok(validateProvider(meta), JSON.stringify(validateProvider.errors?.slice(0, 3)));
    assert.equal(meta.canonical_url, field);
    assert.equal(meta.role, 'csaf_provider');
    assert.deepEqual(meta.publisher, { category: 'vendor', name: acme.name, namespace: portalOf(acme), contact_details: 'psirt@acme.example' });
    assert.deepEqual(meta.distributions, [{ directory_url: `${portalOf(acme)}/.well-known/csaf/clear/` }]);
  });

  it('lists every released document in index.txt, each valid, in its year folder, with matching hash files', async () => {
    const dir = `${portalOf(acme)}/.well-known/csaf/clear/`;
    const index = await fetchUrl(`${dir}index.txt`);
    assert.equal(index.headers['content-type'], 'text/plain; charset=utf-8');
    const paths = index.body.split('\n').filter(Boolean);
    assert.equal(paths.length, 4, 'two advisories, each with its VEX twin');
    for (const path of paths) {
      const doc = await fetchUrl(`${dir}${path}`);
      assert.equal(doc.statusCode, 200, path);
      assert.equal(doc.headers['content-type'], 'application/json');
      const json = doc.json<Json>();
      assert.ok(validateCsaf(json), `${path}: ${JSON.stringify(validateCsaf.errors?.slice(0, 3))}`);
      const tracking = json.document.tracking;
      // CSAF 2.0 section 5.1 file name, requirement 11 year folder of the initial release.
      const name = `${tracking.id.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json`;
      assert.equal(path, `${new Date(tracking.initial_release_date).getUTCFullYear()}/${name}`);
      // CSAF 2.0 test 6.2.11: one self reference, the URL the document was just fetched from.
      assert.deepEqual(json.document.references, [{ category: 'self', summary: 'Canonical URL', url: `${dir}${path}` }]);
      for (const alg of ['sha256', 'sha512'] as const) {
        const h = await fetchUrl(`${dir}${path}.${alg}`);
        assert.equal(h.statusCode, 200);
        assert.equal(h.body, `${createHash(alg).update(doc.rawPayload).digest('hex')}  ${name}\n`, `${alg} of the served bytes`);
      }
    }
    assert.ok(paths.some((p) => p.endsWith('-vex.json')));
  });

  it('lists changes newest first with each current release date (changes.csv)', async () => {
    const dir = `${portalOf(acme)}/.well-known/csaf/clear/`;
    const res = await fetchUrl(`${dir}changes.csv`);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    const rows = res.body
      .split('\n')
      .filter(Boolean)
      .map((l) => /^"([^"]+)","([^"]+)"$/.exec(l)?.slice(1) as [string, string]);
    assert.equal(rows.length, 4);
    const dates = rows.map(([, d]) => Date.parse(d));
    assert.deepEqual(
      dates,
      [...dates].sort((a, b) => b - a),
    );
    for (const [path, date] of rows) assert.equal((await fetchUrl(`${dir}${path}`)).json().document.tracking.current_release_date, date);
  });

  it('answers 304 to a revalidation with the ETag', async () => {
    const index = (await fetchUrl(`${portalOf(acme)}/.well-known/csaf/clear/index.txt`)).body.split('\n')[0];
    const url = `${portalOf(acme)}/.well-known/csaf/clear/${index}`;
    const first = await fetchUrl(url);
    const again = await fetchUrl(url, { 'if-none-match': String(first.headers.etag) });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it("never serves a draft or another company's document", async () => {
    const year = new Date().getUTCFullYear();
    const index = (await fetchUrl(`${portalOf(acme)}/.well-known/csaf/clear/index.txt`)).body;
    assert.doesNotMatch(index, new RegExp(draftTracking.toLowerCase()));
    assert.doesNotMatch(index, new RegExp(rivalTracking.toLowerCase()));
    assert.equal((await fetchUrl(`${portalOf(acme)}/.well-known/csaf/clear/${year}/${draftTracking.toLowerCase()}.json`)).statusCode, 404);
    assert.equal((await fetchUrl(`${portalOf(acme)}/.well-known/csaf/clear/${year}/${rivalTracking.toLowerCase()}.json`)).statusCode, 404);
    assert.equal((await fetchUrl(`${portalOf(rival)}/.well-known/csaf/clear/${year}/${rivalTracking.toLowerCase()}.json`)).statusCode, 200);
    assert.equal((await fetchUrl(`${portalOf(acme)}/advisories/${rivalTracking.toLowerCase()}`)).statusCode, 404);
  });
});

describe('directory listings of the distribution (CSAF 2.0 requirement 14)', () => {
  const dir = () => `${portalOf(acme)}/.well-known/csaf/clear/`;
  /** The links of a listing, resolved against the listing's own URL as a browser would. */
  const linksOf = async (url: string): Promise<string[]> => {
    const res = await fetchUrl(url);
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    return [...res.body.matchAll(/<a href="([^"]+)">/g)].map((m) => new URL(m[1] ?? '', url).href);
  };

  it('lists index.txt, changes.csv and the year folder in clear/, every link resolving', async () => {
    const links = await linksOf(dir());
    const year = new Date().getUTCFullYear();
    assert.deepEqual(links, [`${dir()}changes.csv`, `${dir()}index.txt`, `${dir()}${year}/`]);
    for (const link of links) assert.equal((await fetchUrl(link)).statusCode, 200, link);
  });

  it('lists every released document with its hash files in its year folder, and nothing else', async () => {
    const index = (await fetchUrl(`${dir()}index.txt`)).body.split('\n').filter(Boolean);
    const listed: string[] = [];
    for (const folder of (await linksOf(dir())).filter((l) => l.endsWith('/'))) {
      const links = await linksOf(folder);
      assert.equal(links[0], dir(), 'the parent folder comes first');
      for (const link of links.slice(1)) {
        const res = await fetchUrl(link);
        assert.equal(res.statusCode, 200, link);
        assert.ok(link.startsWith(folder), `${link} lies in ${folder}`);
        if (link.endsWith('.json')) {
          assert.equal(res.headers['content-type'], 'application/json');
          listed.push(link.slice(dir().length));
        }
      }
      assert.deepEqual(
        links.slice(1).filter((l) => !l.endsWith('.json')),
        links
          .slice(1)
          .filter((l) => l.endsWith('.json'))
          .flatMap((l) => [`${l}.sha256`, `${l}.sha512`]),
      );
    }
    assert.deepEqual(listed.sort(), [...index].sort(), 'exactly the documents of index.txt');
    assert.ok(!listed.some((p) => p.includes(draftTracking.toLowerCase()) || p.includes(rivalTracking.toLowerCase())), 'no draft, no other company');
  });

  it('redirects the folders without their trailing slash, and knows no other folder', async () => {
    const year = new Date().getUTCFullYear();
    const top = await fetchUrl(dir().slice(0, -1));
    assert.deepEqual([top.statusCode, top.headers.location], [301, '/.well-known/csaf/clear/']);
    const folder = await fetchUrl(`${dir()}${year}`);
    assert.deepEqual([folder.statusCode, folder.headers.location], [301, `/.well-known/csaf/clear/${year}/`]);
    assert.equal((await fetchUrl(`${dir()}1999/`)).statusCode, 404);
    assert.equal((await fetchUrl(`${dir()}abcd/`)).statusCode, 404);
    assert.equal((await fetchUrl(`${portalOf(await makeCompany(t.database.db))}/.well-known/csaf/clear/`)).statusCode, 404, 'no provider yet');
  });
});

describe('the human-readable advisory pages', () => {
  it('lists the released advisories, escaped, without script', async () => {
    const res = await fetchUrl(`${portalOf(acme)}/advisories`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.ok(res.body.includes('Bypass in &lt;script&gt;alert(1)&lt;/script&gt; T2'));
    assert.doesNotMatch(res.body, /<script/i);
    assert.doesNotMatch(res.body, new RegExp(draftTracking));
    assert.doesNotMatch(res.body, new RegExp(rivalTracking));
    assert.equal((res.body.match(/<tr><td><a href="\/advisories\//g) ?? []).length, 2);
  });

  it('shows one advisory with its products, remediation, history and links to the document and hashes', async () => {
    const list = await fetchUrl(`${portalOf(acme)}/advisories`);
    const href = /<a href="(\/advisories\/[^"]+)">/.exec(list.body.split('<tbody>')[1] ?? '')?.[1] ?? '';
    const res = await fetchUrl(`${portalOf(acme)}${href}`);
    assert.equal(res.statusCode, 200);
    assert.doesNotMatch(res.body, /<script/i);
    assert.match(res.body, /Thermostat T2 2\.4\.1<\/td><td>Fixed/);
    // The fix is offered to the affected version, never to the one that already has it.
    assert.match(res.body, /<strong>Fix from the vendor<\/strong> \([^()]*Thermostat T2 2\.3\.0\): Update to 2\.4\.1\./);
    const doc = /href="(\/\.well-known\/csaf\/clear\/[^"]+\.json)"/.exec(res.body)?.[1] ?? '';
    assert.equal((await fetchUrl(`${portalOf(acme)}${doc}`)).statusCode, 200);
    assert.equal((await fetchUrl(`${portalOf(acme)}${doc}.sha512`)).statusCode, 200);
  });

  it('says so when nothing is published, and the provider does not exist yet', async () => {
    const empty = await makeCompany(t.database.db);
    assert.match((await fetchUrl(`${portalOf(empty)}/advisories`)).body, /No advisories have been published yet/);
    assert.equal((await fetchUrl(`${portalOf(empty)}/.well-known/csaf/provider-metadata.json`)).statusCode, 404);
    assert.doesNotMatch((await fetchUrl(`${portalOf(empty)}/.well-known/security.txt`)).body, /^CSAF:/m);
  });
});
