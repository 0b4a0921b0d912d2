import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { portalUrl } from '../../src/config.js';
import { operatorContext } from '../../src/kernel/context.js';
import { advisoryTarget } from '../../src/modules/advisories/advisories.operations.js';
import { publishAdvisory, reviseAdvisory, withdrawAdvisory } from '../../src/modules/advisories/release-advisory.js';
import { updateAdvisory } from '../../src/modules/advisories/update-advisory.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { readyDraft } from '../helpers/advisories.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { bsiValidate } from '../helpers/bsi-csaf.js';
import { providerValidator } from '../helpers/csaf-validator.js';
import { makeCompany } from '../helpers/factories.js';

/**
 * The provider of one https portal walked as a CSAF checker does (BSI csaf_checker, CSAF 2.0
 * sections 7.1 and 7.3): from security.txt and the well-known URL to the provider metadata, then
 * the distribution's directory listings, index.txt and changes.csv, each document and its hash
 * files. Every fetch must answer 200 without redirect over https, and everything must agree.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reading response bodies
let t: TestApp;
let acme: Company;
let portal = '';
let draftTracking = '';
const fetched = new Map<string, { status: number; type: string; body: string; bytes: Buffer }>();

/** A checker's GET: through inject with the URL's host; each answer is kept for the later checks. */
async function get(url: string): Promise<{ status: number; type: string; body: string; bytes: Buffer }> {
  const u = new URL(url);
  const res = await t.app.inject({ url: `${u.pathname}${u.search}`, headers: { host: u.host } });
  const out = { status: res.statusCode, type: String(res.headers['content-type']), body: res.body, bytes: res.rawPayload };
  fetched.set(url, out);
  assert.equal(out.status, 200, `${url}: ${out.status} (CSAF 2.0 requirement 6: no redirects)`);
  return out;
}
const links = (html: string, base: string) => [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => new URL(m[1] ?? '', base).href);

before(async () => {
  t = await createTestApp({ PUBLIC_URL: 'https://cradle.example' });
  acme = await makeCompany(t.database.db, { name: 'Acme', securityEmail: 'psirt@acme.example' });
  portal = portalUrl(t.config, acme.slug);
  const target = await advisoryTarget(t.database.db, t.config, acme.id);
  const ctx = operatorContext();
  const distribution = target.distributionUrl;
  const ready = async () => {
    const d = await readyDraft(t.database.db, acme);
    await updateAdvisory(t.database.db, ctx, acme, distribution, d.id, { cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' });
    return d.id;
  };
  const revised = await ready();
  await publishAdvisory(t.database.db, ctx, target, revised);
  await updateAdvisory(t.database.db, ctx, acme, distribution, revised, { title: 'Authentication bypass in Thermostat T2' });
  await reviseAdvisory(t.database.db, ctx, target, revised, { summary: 'Clarified the title' });
  const withdrawn = await ready();
  await publishAdvisory(t.database.db, ctx, target, withdrawn);
  await withdrawAdvisory(t.database.db, ctx, target, withdrawn, { reason: 'Duplicate of the first advisory.' });
  await publishAdvisory(t.database.db, ctx, target, await ready());
  draftTracking = (await readyDraft(t.database.db, acme)).trackingId;
});
after(() => t.close());

describe('the CSAF provider, walked as a checker', () => {
  const state: { meta: Json; dir: string; index: string[]; changes: [string, string][]; docs: Map<string, Json> } = {
    meta: {},
    dir: '',
    index: [],
    changes: [],
    docs: new Map(),
  };

  it('finds the provider metadata by security.txt and the well-known URL (requirements 7-9), valid, over https', async () => {
    const wellKnown = `${portal}/.well-known/csaf/provider-metadata.json`;
    assert.ok(wellKnown.startsWith('https://'), 'requirement 3: TLS');
    assert.equal(/^CSAF: (.+)$/m.exec((await get(`${portal}/.well-known/security.txt`)).body)?.[1], wellKnown);
    const res = await get(wellKnown);
    assert.equal(res.type, 'application/json');
    state.meta = JSON.parse(res.body) as Json;
    const validate = providerValidator();
    assert.ok(validate(state.meta), JSON.stringify(validate.errors?.slice(0, 3)));
    assert.equal(state.meta.canonical_url, wellKnown);
    assert.equal(state.meta.role, 'csaf_provider');
    assert.equal(state.meta.metadata_version, '2.0');
    assert.deepEqual(state.meta.distributions, [{ directory_url: `${portal}/.well-known/csaf/clear/` }]);
    assert.equal(state.meta.public_openpgp_keys, undefined, 'no keys: documents are not signed (requirements 19, 20)');
    state.dir = String(state.meta.distributions[0]?.directory_url);
  });

  it('reads index.txt and changes.csv of the distribution, which name the same documents (requirements 12, 13)', async () => {
    const index = await get(`${state.dir}index.txt`);
    assert.equal(index.type, 'text/plain; charset=utf-8');
    state.index = index.body.split('\n').filter(Boolean);
    assert.equal(index.body, `${state.index.join('\n')}\n`, 'one path per line, no blank line');
    assert.equal(state.index.length, 6, 'three advisories, each with its VEX twin; no draft');
    assert.ok(!index.body.includes(draftTracking.toLowerCase()));
    const changes = await get(`${state.dir}changes.csv`);
    assert.equal(changes.type, 'text/csv; charset=utf-8');
    state.changes = changes.body
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const m = /^"([^"]+)","([^"]+)"$/.exec(line);
        assert.ok(m, line);
        return [m[1], m[2]] as [string, string];
      });
    assert.deepEqual(state.changes.map(([p]) => p).sort(), [...state.index].sort());
    const dates = state.changes.map(([, d]) => Date.parse(d));
    assert.deepEqual(
      dates,
      [...dates].sort((a, b) => b - a),
      'newest first',
    );
    assert.equal(state.meta.last_updated, state.changes[0]?.[1], 'the metadata was last updated with the newest change');
  });

  it('follows the directory listings to exactly the documents of index.txt, each with its hash files (requirements 11, 14)', async () => {
    const top = links((await get(state.dir)).body, state.dir);
    const years = top.filter((l) => l.endsWith('/'));
    assert.deepEqual(top, [`${state.dir}changes.csv`, `${state.dir}index.txt`, ...years]);
    const listed: string[] = [];
    for (const folder of years) {
      const inside = links((await get(folder)).body, folder).slice(1);
      const docs = inside.filter((l) => l.endsWith('.json'));
      assert.deepEqual(
        inside,
        docs.flatMap((l) => [l, `${l}.sha256`, `${l}.sha512`]),
      );
      listed.push(...docs.map((l) => l.slice(state.dir.length)));
    }
    assert.deepEqual(listed.sort(), [...state.index].sort());
  });

  it('fetches every document: valid for BSI, named and placed by its tracking id and initial release, self-referencing (requirements 1, 2, 4, 11)', async () => {
    for (const path of state.index) {
      const url = `${state.dir}${path}`;
      const res = await get(url);
      assert.equal(res.type, 'application/json');
      const doc = JSON.parse(res.body) as Json;
      state.docs.set(path, doc);
      const result = await bsiValidate(doc);
      assert.deepEqual([result.errors, result.warnings], [[], []], path);
      const tracking = doc.document.tracking;
      assert.equal(path, `${new Date(tracking.initial_release_date).getUTCFullYear()}/${tracking.id.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json`);
      assert.deepEqual(doc.document.distribution, { tlp: { label: 'WHITE' } }, 'TLP:CLEAR, served without authentication');
      assert.deepEqual(doc.document.references, [{ category: 'self', summary: 'Canonical URL', url }]);
      assert.deepEqual(doc.document.publisher, state.meta.publisher, 'the publisher of the provider');
      assert.equal(tracking.current_release_date, state.changes.find(([p]) => p === path)?.[1], 'changes.csv has its current release');
    }
    const statuses = [...state.docs.values()].map((d) => [
      d.document.tracking.id,
      d.document.tracking.version,
      d.document.notes.some((n: Json) => n.title === 'Withdrawn'),
    ]);
    assert.deepEqual(statuses.map(([, v, w]) => `${v}${w ? ' withdrawn' : ''}`).sort(), ['1', '1', '2', '2', '2 withdrawn', '2 withdrawn']);
  });

  it('checks each document against its .sha256 and .sha512 (requirement 18)', async () => {
    for (const path of state.index) {
      const url = `${state.dir}${path}`;
      const bytes = fetched.get(url)?.bytes ?? Buffer.alloc(0);
      const name = path.split('/')[1];
      for (const alg of ['sha256', 'sha512'] as const) {
        const res = await get(`${url}.${alg}`);
        assert.equal(res.type, 'text/plain; charset=utf-8');
        assert.equal(res.body, `${createHash(alg).update(bytes).digest('hex')}  ${name}\n`, `${path}.${alg}`);
      }
    }
    assert.ok(
      [...fetched.keys()].every((u) => u.startsWith('https://')),
      'every URL on the way was https',
    );
  });
});
