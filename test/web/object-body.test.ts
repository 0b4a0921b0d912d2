import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { count, eq } from 'drizzle-orm';
import { auditLog } from '../../src/db/schema/index.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, portalHost, SITE, type TestApp } from '../helpers/app.js';

/**
 * Issue 32, finding 6, on the pages and the session's JSON endpoints: a body that parsed to
 * anything but an object is refused with 400 before a handler reads it as an empty form.
 */
let t: TestApp;
let acme: Tenant;
let cookie: string;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  cookie = await signInCookie(t, acme.admin.email);
});
after(() => t.close());

const auditRows = async () => (await t.database.db.select({ n: count() }).from(auditLog).where(eq(auditLog.companyId, acme.company.id)))[0]?.n;

describe('a body that is not an object', () => {
  const cases: [string, string, string][] = [
    ['site', '/login', ''],
    ['site', '/setup', ''],
    ['site', '/invite/00', ''],
    ['site', '/api/session', ''],
    ['site', '/api/settings/api-keys', 'session'],
    ['site', '/account/second-factor/start', 'session'],
    ['site', '/products', 'session'],
    ['portal', '/submit', ''],
  ];
  for (const [zone, url, auth] of cases)
    it(`is refused with 400 by POST ${url} (${zone}${auth ? ', signed in' : ''}), changing nothing`, async () => {
      for (const [payload, kind] of [
        ['null', 'null'],
        ['[]', 'array'],
        ['7', 'number'],
      ] as const) {
        const before = await auditRows();
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: {
            host: zone === 'portal' ? portalHost(acme.company.slug) : SITE,
            origin: `http://${SITE}`,
            'content-type': 'application/json',
            ...(auth ? { cookie } : {}),
          },
          payload,
        });
        assert.equal(res.statusCode, 400, `${url} with ${payload}: ${res.body.slice(0, 300)}`);
        assert.match(res.body, new RegExp(`the body must be a form or a JSON object, not ${kind}`));
        assert.equal(await auditRows(), before);
      }
    });
});
