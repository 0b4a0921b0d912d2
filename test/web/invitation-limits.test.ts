import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { invitations } from '../../src/db/schema/index.js';
import { makeTenant, signInCookie } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { makeMember } from '../helpers/team.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const pending = async (companyId: string) => (await t.database.db.select().from(invitations).where(eq(invitations.companyId, companyId))).length;

describe('invitation rate limits (issue 32, finding 4)', () => {
  it('refuses the 11th invitation of one administrator within 10 minutes with 429, Retry-After and the form kept; nothing stored', async () => {
    const a = await makeTenant(t.database.db);
    const admin = dashboardClient(t, await signInCookie(t, a.admin.email));
    for (let i = 0; i < 10; i++) {
      const res = await admin.form('/settings/team/invitations', { email: `burst-${i}@example.test`, role: 'viewer' });
      assert.equal(res.statusCode, 201, res.body);
    }
    const refused = await admin.form('/settings/team/invitations', { email: 'one-too-many@example.test', role: 'psirt' });

    assert.equal(refused.statusCode, 429);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 600, String(refused.headers['retry-after']));
    assert.match(refused.body, /Nothing was sent: too many invitations in a short time\. Try again in \d+ minutes?\./);
    assert.match(refused.body, /value="one-too-many@example.test"/);
    assert.equal(await pending(a.company.id), 10);
    // Sending one again is an invitation mail too.
    const [first] = await t.database.db.select().from(invitations).where(eq(invitations.email, 'burst-0@example.test'));
    const resend = await admin.form(`/settings/team/invitations/${first?.id}/resend`, {});
    assert.equal(resend.statusCode, 429);
  });

  it('refuses the 31st invitation of one company within an hour, whoever sends it', async () => {
    const a = await makeTenant(t.database.db);
    const admins = [a.admin.email];
    for (let i = 0; i < 3; i++) admins.push((await makeMember(t.database.db, a.company.id, a.admin.id, 'admin')).email);
    // makeMember's own invitations went through the verb, not the page: they are not counted.
    const before = await pending(a.company.id);
    for (let k = 0; k < 3; k++) {
      const client = dashboardClient(t, await signInCookie(t, admins[k] ?? ''));
      for (let i = 0; i < 10; i++) {
        const res = await client.form('/settings/team/invitations', { email: `c${k}-${i}@example.test`, role: 'viewer' });
        assert.equal(res.statusCode, 201, `${k}/${i}`);
      }
    }
    const fourth = dashboardClient(t, await signInCookie(t, admins[3] ?? ''));
    const refused = await fourth.form('/settings/team/invitations', { email: 'fourth@example.test', role: 'viewer' });
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(await pending(a.company.id), before + 30);
    // Another company is not held by it.
    const b = await makeTenant(t.database.db);
    const other = await dashboardClient(t, await signInCookie(t, b.admin.email)).form('/settings/team/invitations', {
      email: 'x@example.test',
      role: 'viewer',
    });
    assert.equal(other.statusCode, 201);
  });
});
