import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { portalUrl } from '../../src/config.js';
import { auditLog, upstreamSettings } from '../../src/db/schema/index.js';
import { asSystem } from '../../src/db/tenant-scope.js';
import { openGithubToken } from '../../src/modules/upstream/upstream-settings.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { type GithubPeer, startGithubPeer } from '../helpers/github-peer.js';
import { callTool, connectModern, type ListeningApp, startListeningApp } from '../helpers/mcp.js';

let t: ListeningApp;
let acme: Tenant;
let other: Tenant;
let writer: string;
let reader: string;
let otherWriter: string;
let github: GithubPeer;
const TOKEN = 'github_pat_11ABCDEFG0secretTokenValue0123456789';

before(async () => {
  github = await startGithubPeer();
  github.repos.set('widget-org/widget', { pvr: true });
  t = await startListeningApp({ GITHUB_API_URL: github.apiUrl, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  acme = await makeTenant(t.database.db);
  other = await makeTenant(t.database.db);
  writer = (await makeKey(t.database.db, acme, { scopes: ['read', 'upstream:write'] })).key;
  reader = (await makeKey(t.database.db, acme, { scopes: ['read', 'portal:write'] })).key;
  otherWriter = (await makeKey(t.database.db, other, { scopes: ['read', 'upstream:write'] })).key;
});
after(async () => {
  await t.close();
  await github.close();
});

const api = (method: 'GET' | 'PUT' | 'DELETE', url: string, key: string, payload?: unknown) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { host: new URL(t.url).host, authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload: payload as object } : {}),
  });
const stored = async (companyId: string) =>
  (await asSystem(() => t.database.db.select().from(upstreamSettings).where(eq(upstreamSettings.companyId, companyId))))[0];

describe('the company GitHub token', () => {
  it('is refused without upstream:write, and nothing is stored', async () => {
    const res = await api('PUT', '/upstream-settings/github-token', reader, { githubToken: TOKEN });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().detail, /upstream:write/);
    assert.equal(await stored(acme.company.id), undefined);
  });

  it('is sealed: the answer, the database and the audit log never hold it, yet Cradle can open it', async () => {
    const res = await api('PUT', '/upstream-settings/github-token', writer, { githubToken: TOKEN });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().githubToken.set, true);
    assert.doesNotMatch(res.body, /secretTokenValue/);
    const row = await stored(acme.company.id);
    assert.match(row?.githubToken ?? '', /^sb1\.[0-9a-f]{16}\./);
    assert.doesNotMatch(row?.githubToken ?? '', /secretTokenValue/);
    // Not in any audit row either.
    const leaked = await asSystem(() =>
      t.database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(auditLog)
        .where(sql`${auditLog.details}::text like ${'%secretTokenValue%'}`),
    );
    assert.equal(leaked[0]?.n, 0);
    assert.equal(await asSystem(() => openGithubToken(t.database.db, acme.company.id)), TOKEN);
    const audits = await asSystem(() => t.database.db.select().from(auditLog).where(eq(auditLog.action, 'upstream.github_token_set')));
    assert.deepEqual(
      audits.map((a) => a.details),
      [{ replaced: false }],
    );
  });

  it("is bound to its company: the sealed value copied to another company's row does not open", async () => {
    const row = await stored(acme.company.id);
    await asSystem(() =>
      t.database.db.insert(upstreamSettings).values({ companyId: other.company.id, githubToken: row?.githubToken ?? null, updatedAt: new Date() }),
    );
    await assert.rejects(
      asSystem(() => openGithubToken(t.database.db, other.company.id)),
      /does not open/,
    );
    await api('DELETE', '/upstream-settings/github-token', otherWriter);
  });

  it('can be replaced and removed; a bad token is refused with a message', async () => {
    const bad = await api('PUT', '/upstream-settings/github-token', writer, { githubToken: 'short' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().detail, /githubToken: a GitHub token is at least 20 characters/);
    assert.equal((await api('PUT', '/upstream-settings/github-token', writer, { githubToken: `${TOKEN}2` })).statusCode, 200);
    assert.equal(await asSystem(() => openGithubToken(t.database.db, acme.company.id)), `${TOKEN}2`);
    const removed = await api('DELETE', '/upstream-settings/github-token', writer);
    assert.deepEqual(removed.json().githubToken, { set: false, setAt: null });
    assert.equal((await stored(acme.company.id))?.githubToken, null);
    const actions = (await asSystem(() => t.database.db.select().from(auditLog).where(eq(auditLog.companyId, acme.company.id)))).map((a) => a.action);
    assert.ok(actions.includes('upstream.github_token_removed'));
  });
});

describe('declaring the packages a company maintains', () => {
  it('stores canonical prefixes and refuses invalid ones all at once, storing nothing', async () => {
    const bad = await api('PUT', '/upstream-settings/maintained-packages', writer, {
      prefixes: ['pkg:npm/widget', 'pkg:npm/', 'pkg:npm/widget@1.0.0', 'left-pad'],
    });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      bad.json().errors.map((i: { path: string }) => i.path),
      ['prefixes.1', 'prefixes.2', 'prefixes.3'],
    );
    assert.deepEqual((await api('GET', '/upstream-settings', reader)).json().maintainedPurlPrefixes, []);
    const ok = await api('PUT', '/upstream-settings/maintained-packages', writer, { prefixes: ['pkg:npm/@acme/widget', 'pkg:maven/com.acme/'] });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json().maintainedPurlPrefixes, ['pkg:npm/%40acme/widget', 'pkg:maven/com.acme/']);
  });

  it('makes the company the upstream another company finds, through REST and the MCP tool', async () => {
    const rest = await api('GET', `/upstream-contacts?purl=${encodeURIComponent('pkg:npm/@acme/widget@2.0.0')}`, otherWriter);
    assert.equal(rest.statusCode, 200, rest.body);
    assert.deepEqual(rest.json().contacts, [
      { channel: 'cradle', address: acme.company.slug, source: { kind: 'cradle_declaration', url: portalUrl(t.config, acme.company.slug) } },
    ]);
    const client = await connectModern(t, otherWriter);
    try {
      const r = await callTool(client, 'find_upstream_contacts', { purl: 'pkg:maven/com.acme/core@1.0' });
      assert.equal(r.isError, undefined, JSON.stringify(r));
      const body = r.structuredContent as { contacts: { address: string }[]; sources: { kind: string }[] };
      assert.deepEqual(
        body.contacts.map((c) => c.address),
        [acme.company.slug],
      );
      assert.equal(body.sources.length, 5);
    } finally {
      await client.close();
    }
  });

  it('answers a value that is not a package URL with 400', async () => {
    const res = await api('GET', '/upstream-contacts?purl=left-pad', reader);
    assert.equal(res.statusCode, 400);
    assert.match(res.json().detail, /purl/);
  });
});
