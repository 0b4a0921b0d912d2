import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { auditLog, companies } from '../../src/db/schema/index.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { callTool, connectModern, type ListeningApp, startListeningApp } from '../helpers/mcp.js';
import { makeTestKeys } from '../helpers/openpgp-keys.js';

let t: ListeningApp;
let acme: Tenant;
let writer: string;
let reader: string;
let keys: Awaited<ReturnType<typeof makeTestKeys>>;

before(async () => {
  t = await startListeningApp();
  acme = await makeTenant(t.database.db);
  writer = (await makeKey(t.database.db, acme, { scopes: ['read', 'portal:write'] })).key;
  reader = (await makeKey(t.database.db, acme, { scopes: ['read', 'triage:write'] })).key;
  keys = await makeTestKeys();
});
after(() => t.close());

const api = (method: 'GET' | 'PATCH', key: string, payload?: unknown) =>
  t.app.inject({
    method,
    url: '/api/v1/portal-settings',
    headers: { host: new URL(t.url).host, authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload: payload as object } : {}),
  });
const row = async () => (await t.database.db.select().from(companies).where(eq(companies.id, acme.company.id)))[0];

describe('GET and PATCH /api/v1/portal-settings', () => {
  it('reads the defaults with a read key', async () => {
    const res = await api('GET', reader);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.policyText, null);
    assert.deepEqual(body.languages, ['en']);
    assert.equal(body.pgpKey, null);
    assert.equal(body.securityTxtUrl, `${body.portalUrl}/.well-known/security.txt`);
  });

  it('refuses a change without portal:write (403 naming the scope) and changes nothing', async () => {
    const res = await api('PATCH', reader, { securityEmail: 'psirt@acme.example' });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().detail, /portal:write/);
    assert.equal((await row())?.securityEmail, null);
  });

  it('changes the given settings only, checks the key and reports its fingerprint', async () => {
    const res = await api('PATCH', writer, { securityEmail: 'psirt@acme.example', pgpPublicKey: keys.publicKey, responseTimes: { acknowledgeDays: 2 } });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.securityEmail, 'psirt@acme.example');
    assert.equal(body.pgpKey.fingerprint, keys.fingerprint);
    assert.deepEqual(body.pgpKey.userIds, ['Acme PSIRT <psirt@acme.example>']);
    assert.deepEqual(body.responseTimes, { acknowledgeDays: 2, assessDays: null, resolveDays: null });
    assert.equal(body.pgpKeyUrl, `${body.portalUrl}/pgp-key.txt`);
    const again = await api('PATCH', writer, { policyUrl: 'https://acme.example/cvd' });
    assert.equal(again.json().securityEmail, 'psirt@acme.example', 'omitted fields keep their value');
    assert.equal(again.json().pgpKey.fingerprint, keys.fingerprint);
    const cleared = await api('PATCH', writer, { policyUrl: null });
    assert.equal(cleared.json().policyUrl, null, 'null clears');
    const audits = await t.database.db.select().from(auditLog).where(eq(auditLog.action, 'companies.portal_settings'));
    assert.equal(audits.filter((a) => a.companyId === acme.company.id).length, 3);
    assert.ok(audits.every((a) => a.actorType === 'api_key'));
  });

  it('answers bad input with a problem document naming every field, and writes nothing', async () => {
    const before = await row();
    const res = await api('PATCH', writer, {
      securityEmail: 'nope',
      policyUrl: 'http://acme.example/p',
      policyText: '<b>hi</b>',
      pgpPublicKey: keys.privateKey,
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    const problem = res.json();
    const byPath = Object.fromEntries(problem.errors.map((e: { path: string; message: string }) => [e.path, e.message]));
    assert.match(byPath.securityEmail, /expected an e-mail address/);
    assert.match(byPath.policyUrl, /https/);
    assert.match(byPath.policyText, /HTML is not allowed/);
    assert.match(byPath.pgpPublicKey, /PRIVATE key/);
    assert.deepEqual(await row(), before);
    const unknown = await api('PATCH', writer, { policy: 'typo' });
    assert.equal(unknown.statusCode, 400);
  });

  it('is the MCP tools get_portal_settings and update_portal_settings, with the same checks', async () => {
    const client = await connectModern(t, writer);
    try {
      const bad = await callTool(client, 'update_portal_settings', { pgpPublicKey: keys.expired });
      assert.equal(bad.isError, true);
      assert.match(JSON.stringify(bad.content), /expired/);
      const ok = await callTool(client, 'update_portal_settings', { languages: ['en', 'fr'] });
      assert.deepEqual(ok.structuredContent?.languages, ['en', 'fr']);
      const got = await callTool(client, 'get_portal_settings');
      assert.deepEqual(got.structuredContent?.languages, ['en', 'fr']);
    } finally {
      await client.close();
    }
  });
});
