import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { sbomComponents } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import type { Company } from '../../../src/modules/companies/companies.schemas.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { discoverUpstreamContacts } from '../../../src/modules/upstream/discover-upstream-contacts.js';
import { setGithubToken, setMaintainedPackages } from '../../../src/modules/upstream/upstream-settings.js';
import { testConfig } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { isCode } from '../../helpers/evidence.js';
import { makeCompany } from '../../helpers/factories.js';
import { type GithubPeer, startGithubPeer } from '../../helpers/github-peer.js';
import { makeTestKeys } from '../../helpers/openpgp-keys.js';

let d: TestDatabase;
let acme: Company;
let widgetCo: Company;
let github: GithubPeer;
let site: GithubPeer;
let keys: Awaited<ReturnType<typeof makeTestKeys>>;
const ctx = operatorContext();
let config: ReturnType<typeof testConfig>;

/** A CycloneDX SBOM of one product holding the given components, each with optional vcs and website references. */
const cdx = (components: { purl: string; vcs?: string; website?: string }[]) =>
  JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    metadata: { component: { type: 'firmware', name: 'Thermostat', 'bom-ref': 'root' } },
    components: components.map((c, i) => ({
      type: 'library',
      'bom-ref': `c${i}`,
      name: `c${i}`,
      purl: c.purl,
      externalReferences: [...(c.vcs ? [{ type: 'vcs', url: c.vcs }] : []), ...(c.website ? [{ type: 'website', url: c.website }] : [])],
    })),
  });

const spdx = (purl: string, download: string, homepage: string) =>
  JSON.stringify({
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: 'gateway',
    documentNamespace: 'https://acme.example/spdx/gateway-1',
    creationInfo: { created: '2026-11-01T10:00:00Z', creators: ['Tool: test'] },
    packages: [
      {
        SPDXID: 'SPDXRef-lib',
        name: 'parser',
        versionInfo: '2.0.0',
        downloadLocation: download,
        homepage,
        externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purl }],
      },
    ],
  });

before(async () => {
  d = await createTestDatabase();
  github = await startGithubPeer();
  site = await startGithubPeer();
  keys = await makeTestKeys('security@widget.example');
  config = testConfig({ GITHUB_API_URL: github.apiUrl, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  acme = await makeCompany(d.db, { name: 'Acme' });
  widgetCo = await makeCompany(d.db, { name: 'Widget Co' });
  github.repos.set('widget-org/widget', {
    pvr: true,
    files: {
      '.github/SECURITY.md':
        '# Security\n\nPlease write to [our team](mailto:security-md@widget.example), or use https://x/widget-org/widget/security/advisories/new.\n',
      'security-insights.yml':
        'header:\n  schema-version: 2.0.0\nproject:\n  name: widget\n  vulnerability-reporting:\n    reports-accepted: true\n    contact:\n      name: Widget PSIRT\n      email: insights@widget.example\n',
    },
  });
  site.site.securityTxt = [
    'Contact: mailto:security@widget.example',
    'Contact: https://widget.example/report',
    `Encryption: ${site.base}/pgp-key.txt`,
    'Policy: https://widget.example/policy',
    'Expires: 2030-01-01T00:00:00.000Z',
  ].join('\n');
  site.site.key = keys.publicKey;
  await upsertProduct(d.db, ctx, acme.id, { name: 'Thermostat', identifier: 'thermo', producer: 'Acme' });
  await pushSbom(
    d.db,
    ctx,
    acme.id,
    'thermo',
    cdx([
      { purl: 'pkg:npm/widget@1.0.0', vcs: `git+${github.base}/widget-org/widget.git`, website: site.base },
      { purl: 'pkg:npm/gone@1.0.0', vcs: `${github.base}/widget-org/missing` },
    ]),
  );
  await setMaintainedPackages(d.db, ctx, { companyId: widgetCo.id, input: { prefixes: ['pkg:npm/widget'] }, githubApiUrl: config.githubApiUrl });
});
after(async () => {
  await github.close();
  await site.close();
  await d.drop();
});

describe('discoverUpstreamContacts', () => {
  it('finds every source in order, each contact naming where it came from, the security.txt key fetched', async () => {
    const r = await discoverUpstreamContacts(d.db, acme.id, 'pkg:npm/widget@1.0.0', { config });
    assert.equal(r.repository, `${github.base}/widget-org/widget`);
    assert.equal(r.website, site.base);
    assert.deepEqual(
      r.sources.map((s) => [s.kind, s.outcome]),
      [
        ['github_pvr', 'found'],
        ['security_txt', 'found'],
        ['security_md', 'found'],
        ['security_insights', 'found'],
        ['cradle_declaration', 'found'],
      ],
    );
    assert.deepEqual(
      r.contacts.map((c) => [c.channel, c.address, c.source.kind]),
      [
        ['github', 'widget-org/widget', 'github_pvr'],
        ['email', 'security@widget.example', 'security_txt'],
        ['url', 'https://widget.example/report', 'security_txt'],
        ['email', 'security-md@widget.example', 'security_md'],
        ['email', 'insights@widget.example', 'security_insights'],
        ['cradle', widgetCo.slug, 'cradle_declaration'],
      ],
    );
    const mail = r.contacts[1];
    assert.equal(mail?.source.url, `${site.base}/.well-known/security.txt`);
    assert.match(mail?.encryptionKey ?? '', /-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    assert.match(r.sources[1]?.detail ?? '', new RegExp(keys.fingerprint));
    assert.equal(r.contacts[0]?.source.url, `${github.apiUrl}/repos/widget-org/widget/private-vulnerability-reporting`);
    assert.equal(r.contacts[3]?.source.url, `${github.apiUrl}/repos/widget-org/widget/contents/.github/SECURITY.md`);
    assert.equal(r.contacts[5]?.source.url, `http://${widgetCo.slug}.localhost:3000`);
  });

  it('reports a failing source as failed and keeps the others', async () => {
    site.site.status = 500;
    github.repos.set('widget-org/widget', { ...github.repos.get('widget-org/widget')!, pvr: false });
    try {
      const r = await discoverUpstreamContacts(d.db, acme.id, 'pkg:npm/widget@1.0.0', { config });
      const byKind = Object.fromEntries(r.sources.map((s) => [s.kind, s]));
      assert.equal(byKind.security_txt?.outcome, 'failed');
      assert.match(byKind.security_txt?.detail ?? '', /answered 500/);
      assert.equal(byKind.github_pvr?.outcome, 'not_found');
      assert.equal(byKind.security_md?.outcome, 'found');
      assert.deepEqual(
        r.contacts.map((c) => c.source.kind),
        ['security_md', 'security_md', 'security_insights', 'cradle_declaration'],
        "SECURITY.md's link to GitHub's reporting form still names the GitHub channel",
      );
    } finally {
      delete site.site.status;
      github.repos.set('widget-org/widget', { ...github.repos.get('widget-org/widget')!, pvr: true });
    }
  });

  it('an unknown repository fails each repository source; an unreachable site fails too; nothing throws', async () => {
    const r = await discoverUpstreamContacts(d.db, acme.id, 'pkg:npm/gone@1.0.0', { config });
    assert.deepEqual(
      r.sources.map((s) => [s.kind, s.outcome]),
      [
        ['github_pvr', 'failed'],
        ['security_txt', 'skipped'],
        ['security_md', 'not_found'],
        ['security_insights', 'not_found'],
        ['cradle_declaration', 'not_found'],
      ],
    );
    assert.match(r.sources[0]?.detail ?? '', /404|does not know/);
    assert.deepEqual(r.contacts, []);
  });

  it('refuses every outside request to loopback unless private networks are allowed (SSRF guard)', async () => {
    const guarded = testConfig({ GITHUB_API_URL: github.apiUrl });
    const before = github.seen.length + site.seen.length;
    const r = await discoverUpstreamContacts(d.db, acme.id, 'pkg:npm/widget@1.0.0', { config: guarded });
    for (const s of r.sources.slice(0, 4)) {
      assert.equal(s.outcome, 'failed', s.kind);
      assert.match(s.detail, /non-public address|loopback/);
    }
    assert.equal(github.seen.length + site.seen.length, before, 'no request reached the peers');
    assert.deepEqual(
      r.contacts.map((c) => c.channel),
      ['cradle'],
    );
  });

  it('takes the repository from the package URL when no SBOM names it, and uses the company token', async () => {
    github.repos.set('acme-oss/gadget', { pvr: true });
    await setGithubToken(d.db, ctx, { companyId: acme.id, input: { githubToken: github.token }, githubApiUrl: config.githubApiUrl });
    const host = new URL(github.base).host;
    const before = github.seen.length;
    const r = await discoverUpstreamContacts(d.db, acme.id, `pkg:github/acme-oss/gadget@v1`, { config });
    assert.equal(r.repository, `http://${host}/acme-oss/gadget`);
    assert.deepEqual(r.contacts[0], {
      channel: 'github',
      address: 'acme-oss/gadget',
      source: { kind: 'github_pvr', url: `${github.apiUrl}/repos/acme-oss/gadget/private-vulnerability-reporting` },
    });
    const asked = github.seen.slice(before);
    assert.ok(asked.length >= 1);
    for (const s of asked) assert.equal(s.headers.authorization, `Bearer ${github.token}`);
  });

  it('does not point a company at itself, and a prefix covers only its namespace', async () => {
    await setMaintainedPackages(d.db, ctx, {
      companyId: acme.id,
      input: { prefixes: ['pkg:npm/widget', 'pkg:maven/com.acme/'] },
      githubApiUrl: config.githubApiUrl,
    });
    const own = await discoverUpstreamContacts(d.db, acme.id, 'pkg:maven/com.acme/core@1.0', { config });
    assert.deepEqual(own.contacts, []);
    const other = await discoverUpstreamContacts(d.db, widgetCo.id, 'pkg:maven/com.acme/core@1.0', { config });
    assert.deepEqual(
      other.contacts.map((c) => c.address),
      [acme.slug],
    );
    const near = await discoverUpstreamContacts(d.db, widgetCo.id, 'pkg:maven/com.acmeevil/core@1.0', { config });
    assert.deepEqual(near.contacts, []);
  });

  it('refuses a value that is not a package URL', async () => {
    await assert.rejects(discoverUpstreamContacts(d.db, acme.id, 'left-pad', { config }), isCode('VALIDATION'));
  });

  it('keeps the SPDX download location and homepage of a component', async () => {
    await upsertProduct(d.db, ctx, acme.id, { name: 'Gateway', identifier: 'gw', producer: 'Acme' });
    const pushed = await pushSbom(
      d.db,
      ctx,
      acme.id,
      'gw',
      spdx('pkg:pypi/parser@2.0.0', 'git+https://gitlab.com/parsers/parser.git@v2.0.0', 'https://parser.example/docs'),
    );
    const [row] = await d.db.select().from(sbomComponents).where(eq(sbomComponents.sbomId, pushed.id));
    assert.equal(row?.vcsUrl, 'git+https://gitlab.com/parsers/parser.git@v2.0.0');
    assert.equal(row?.websiteUrl, 'https://parser.example/docs');
  });
});
