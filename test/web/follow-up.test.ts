import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, outboxEvents } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { listMessages } from '../../src/modules/messages/messages.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { updateReport } from '../../src/modules/reports/update-report.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, portalHost, SITE, type TestApp, testRateLimiter } from '../helpers/app.js';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { errorLogSerializer, requestLogSerializer } from '../../src/http/log-serializers.js';
import { createTestDatabase } from '../helpers/db.js';
import { freshAddress } from '../helpers/intake.js';

let t: TestApp;
let acme: Tenant;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
});
after(() => t.close());

const portalGet = (path: string, slug = acme.company.slug) => t.app.inject({ url: path, headers: { host: portalHost(slug) } });
const reply = (path: string, body: string, headers: Record<string, string> = {}, slug = acme.company.slug) =>
  t.app.inject({
    method: 'POST',
    url: path,
    remoteAddress: headers['x-addr'] ?? freshAddress(),
    headers: { host: portalHost(slug), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
    payload: new URLSearchParams({ body }).toString(),
  });

async function filed() {
  const { report, statusToken } = await fileReport(t.database.db, operatorContext(), acme.company, { description: 'Login bypass on the T2' }, 'portal_form');
  return { id: report.submissionId, path: `/status/${statusToken}` };
}

describe('a percent-encoded status link (issue 32, finding 7)', () => {
  it('is the same link: it answers, and the service log holds no token', async () => {
    // Its own database: closing an app closes its database, which t's must outlive.
    const d = await createTestDatabase();
    const tenant = await makeTenant(d.db);
    const { report, statusToken: token } = await fileReport(d.db, operatorContext(), tenant.company, { description: 'Login bypass on the T2' }, 'portal_form');
    const id = report.submissionId;
    const lines: string[] = [];
    const logger = pino({ level: 'info', serializers: { req: requestLogSerializer, err: errorLogSerializer } }, { write: (l: string) => void lines.push(l) });
    const logged = await buildApp({ config: t.config, database: d, rateLimiter: testRateLimiter() }, logger);
    try {
      for (const url of [`/%73tatus/${token}`, `/status/${token.replace(/a/g, '%61')}`]) {
        const res = await logged.inject({ url, headers: { host: portalHost(tenant.company.slug) } });
        assert.equal(res.statusCode, 200, url);
        assert.match(res.body, new RegExp(id));
      }
    } finally {
      await logged.close();
      await logged.deps.rateLimiter.close();
      await d.drop();
    }
    const all = lines.join('');
    assert.match(all, /"url":"\/status\/\[redacted\]"/);
    assert.ok(!all.includes(token) && !all.includes(token.replace(/a/g, '%61')), 'no status token in the service log');
  });
});

describe('researcher follow-up', () => {
  it('round trip: the researcher writes, the PSIRT replies from the report page, both are escaped', async () => {
    const { id, path } = await filed();
    const sent = await reply(path, 'Also works on firmware 2.5 <img src=x onerror=alert(1)>');
    assert.equal(sent.statusCode, 303);
    assert.equal(sent.headers.location, `${path}#thread`);
    const cookie = await signInCookie(t, acme.admin.email);
    const dash = await t.app.inject({ url: `/reports/${id}`, headers: { host: SITE, cookie } });
    assert.ok(dash.body.includes('Also works on firmware 2.5 &lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(!dash.body.includes('<img src=x'));
    const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec(dash.body)?.[1] ?? '';
    const answer = await t.app.inject({
      method: 'POST',
      url: `/reports/${id}/messages`,
      headers: { host: SITE, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, body: 'Thanks: can you share the request you sent?' }).toString(),
    });
    assert.equal(answer.statusCode, 303);
    await updateReport(t.database.db, operatorContext(), acme.company.id, id, { status: 'triaging' });
    const page = await portalGet(path);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="report-status"><strong>in triage<\/strong>: under review/);
    assert.match(page.body, /security team · <time[^>]*>[^<]*<\/time><\/p><pre>Thanks: can you share the request you sent\?<\/pre>/);
    assert.ok(page.body.includes('&lt;img src=x onerror=alert(1)&gt;') && !page.body.includes('<img src=x'));
    assert.ok(!page.body.includes('Login bypass on the T2'), 'the report text itself stays off the capability page');
    assert.deepEqual(
      (await listMessages(t.database.db, acme.company.id, id)).map((m) => m.author),
      ['researcher', 'company'],
    );
    const events = await t.database.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, acme.company.id), eq(outboxEvents.type, 'vulnerability.message')))
      .orderBy(outboxEvents.createdAt);
    assert.deepEqual(
      events.filter((e) => e.payload.data.submissionId === id).map((e) => e.payload.data.author),
      ['researcher', 'company'],
    );
    const audit = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, id), eq(auditLog.action, 'reports.message')))
      .orderBy(auditLog.id);
    assert.deepEqual(
      audit.map((a) => [a.actorType, (a.details as { author: string }).author]),
      [
        ['public', 'researcher'],
        ['user', 'company'],
      ],
    );
    assert.ok(
      audit.every((a) => !JSON.stringify(a.details).includes('firmware')),
      'no message text in the audit log',
    );
  });

  it('refuses a reply holding an unpaired surrogate with a clear 400, storing nothing', async () => {
    const { id } = await filed();
    const key = await makeKey(t.database.db, acme, { scopes: ['triage:write', 'read'] });
    // Raw JSON: "\ud800" alone is valid JSON but no character; the event's JSON cannot hold it.
    const posted = await t.app.inject({
      method: 'POST',
      url: `/api/v1/vulnerabilities/${id}/messages`,
      headers: { ...bearer(key.key), 'content-type': 'application/json' },
      payload: '{"body":"Fix ships \\ud800 Monday."}',
    });
    assert.equal(posted.statusCode, 400, posted.body);
    assert.equal(posted.json().type.endsWith('/problems/validation'), true);
    assert.match(posted.json().detail, /cannot be stored/);
    const thread = await t.app.inject({ url: `/api/v1/vulnerabilities/${id}/messages`, headers: bearer(key.key) });
    assert.deepEqual(thread.json(), []);
  });

  it('lets an API key with triage:write reply and read the thread over REST', async () => {
    const { id, path } = await filed();
    await reply(path, 'Any news?');
    const key = await makeKey(t.database.db, acme, { scopes: ['triage:write', 'read'] });
    const posted = await t.app.inject({
      method: 'POST',
      url: `/api/v1/vulnerabilities/${id}/messages`,
      headers: { ...bearer(key.key), 'content-type': 'application/json' },
      payload: { body: 'Fix ships Monday.' },
    });
    assert.equal(posted.statusCode, 201);
    assert.deepEqual([posted.json().author, posted.json().authorId, posted.json().body], ['company', key.id, 'Fix ships Monday.']);
    const thread = await t.app.inject({ url: `/api/v1/vulnerabilities/${id}/messages`, headers: bearer(key.key) });
    assert.deepEqual(
      thread.json().map((m: { author: string; body: string }) => [m.author, m.body]),
      [
        ['researcher', 'Any news?'],
        ['company', 'Fix ships Monday.'],
      ],
    );
    assert.match((await portalGet(path)).body, /<pre>Fix ships Monday\.<\/pre>/);
    const empty = await t.app.inject({
      method: 'POST',
      url: `/api/v1/vulnerabilities/${id}/messages`,
      headers: { ...bearer(key.key), 'content-type': 'application/json' },
      payload: { body: ' ' },
    });
    assert.equal(empty.statusCode, 400);
  });

  it('refuses an empty message with 400 and keeps the page; a foreign origin with 403', async () => {
    const { path } = await filed();
    const empty = await reply(path, '   ');
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /Your message must not be empty/);
    const foreign = await reply(path, 'hello', { origin: 'https://evil.example' });
    assert.equal(foreign.statusCode, 403);
  });

  it("answers 404 for an unknown token and for a token used on another company's portal", async () => {
    const { path } = await filed();
    const rival = await makeTenant(t.database.db);
    assert.equal((await portalGet(path, rival.company.slug)).statusCode, 404);
    assert.equal((await reply(path, 'hi', {}, rival.company.slug)).statusCode, 404);
    assert.equal((await reply(`/status/${'0'.repeat(64)}`, 'hi')).statusCode, 404);
  });

  it('rate-limits messages per address, keeping the draft', async () => {
    const { path } = await filed();
    const addr = freshAddress();
    for (let i = 0; i < 10; i++) assert.equal((await reply(path, `note ${i}`, { 'x-addr': addr })).statusCode, 303);
    const refused = await reply(path, 'one too many', { 'x-addr': addr });
    assert.equal(refused.statusCode, 429);
    assert.ok(refused.headers['retry-after']);
    assert.match(refused.body, /one too many<\/textarea>/);
  });
});
