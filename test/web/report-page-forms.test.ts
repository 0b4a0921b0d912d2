import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { getReport } from '../../src/modules/reports/get-report.js';
import { reportHistory } from '../../src/modules/reports/report-history.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';

let t: TestApp;
let acme: Tenant;
let client: ReturnType<typeof dashboardClient>;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  client = dashboardClient(t, await signInCookie(t, acme.admin.email));
});
after(() => t.close());

const file = async (description: string) =>
  (await fileReport(t.database.db, operatorContext(), acme.company, { description }, 'portal_form')).report.submissionId;
const valueOf = (body: string, id: string) => new RegExp(`id="${id}" name="[^"]+" value="([^"]*)"`).exec(body)?.[1];

describe('report page forms refused', () => {
  it('keep what was typed: CVSS vector and CWE, Article 14 facts, filing, reply', async () => {
    const id = await file('Telnet left open on the hub');
    const severity = await client.form(`/reports/${id}/severity`, { cvssVector: 'CVSS:3.1/AV:N/AC:L', cwe: 'CWE-1188' });
    assert.equal(severity.statusCode, 400);
    assert.equal(valueOf(severity.body, 'cvssVector'), 'CVSS:3.1/AV:N/AC:L');
    assert.equal(valueOf(severity.body, 'cwe'), 'CWE-1188');

    const future = new Date(Date.now() + 86_400_000).toISOString().slice(0, 19);
    const facts = await client.form(`/reports/${id}/facts`, {
      activelyExploited: 'yes',
      awareAt: future,
      exploitationEvidence: 'seen in <honeypot> logs',
      severeIncident: 'no',
      fixAvailableAt: '',
      memberStates: ['AT', 'FI'],
    });
    assert.equal(facts.statusCode, 400);
    assert.match(facts.body, /Not saved: Awareness time must not be in the future\./);
    assert.equal(valueOf(facts.body, 'awareAt'), future);
    assert.match(facts.body, /<option value="yes" selected>yes<\/option>/);
    assert.match(facts.body, /rows="3">seen in &lt;honeypot&gt; logs<\/textarea>/);
    assert.match(facts.body, /value="AT" checked/);
    assert.match(facts.body, /value="FI" checked/);
    assert.equal((await getReport(t.database.db, acme.company.id, id)).activelyExploited, null, 'nothing saved');

    const reply = await client.form(`/reports/${id}/messages`, { body: `Thanks: ${'x'.repeat(70_000)}` });
    assert.equal(reply.statusCode, 400);
    assert.match(reply.body, /<textarea id="reply-body" name="body" rows="4" required>Thanks: x{100}/);
  });
});

describe('Article 14 facts', () => {
  it('keep the awareness time to the second, show it with seconds and zone, and list only what changed', async () => {
    const id = await file('Command injection in the update service');
    const fields = {
      activelyExploited: 'yes',
      awareAt: '2026-11-20T08:00:17',
      exploitationEvidence: 'seen in honeypot logs',
      severeIncident: '',
      fixAvailableAt: '',
      memberStates: ['DE', 'FR'],
    };
    assert.equal((await client.form(`/reports/${id}/facts`, fields)).statusCode, 303);
    assert.equal((await getReport(t.database.db, acme.company.id, id)).awareAt, '2026-11-20T08:00:17.000Z');
    const view = await client.page(`/reports/${id}`);
    assert.equal(valueOf(view.body, 'awareAt'), '2026-11-20T08:00:17', 'the form offers the seconds back');
    assert.match(view.body, /aware at: 2026-11-20 08:00:17 UTC/);
    // Saved again as shown, with one fact changed: the history names that fact only.
    assert.equal(
      (await client.form(`/reports/${id}/facts`, { ...fields, awareAt: valueOf(view.body, 'awareAt') ?? '', memberStates: ['FR', 'DE', 'IT'] })).statusCode,
      303,
    );
    assert.equal((await getReport(t.database.db, acme.company.id, id)).awareAt, '2026-11-20T08:00:17.000Z');
    const history = await reportHistory(t.database.db, acme.company.id, id);
    assert.deepEqual(
      history.map((h) => Object.keys(h.changes).sort()),
      [['activelyExploited', 'awareAt', 'exploitationEvidence', 'memberStates'], ['memberStates']],
    );
    // Saved again unchanged: no history entry claims a change.
    await client.form(`/reports/${id}/facts`, { ...fields, memberStates: ['DE', 'FR', 'IT'] });
    assert.equal((await reportHistory(t.database.db, acme.company.id, id)).length, 2);
  });
});

describe('third-party component on the facts form', () => {
  const facts = { activelyExploited: '', awareAt: '', exploitationEvidence: '', severeIncident: '', fixAvailableAt: '' };
  it('is saved as a package URL, shown back, and a refused one comes back as typed with a sentence', async () => {
    const id = await file('Heap overflow in the bundled TCP/IP stack');
    const refused = await client.form(`/reports/${id}/facts`, { ...facts, componentPurl: 'lwip 2.1.3 <b>' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /Not saved: Third-party component must be a package URL such as pkg:npm\/lodash@4\.17\.20\./);
    assert.equal(valueOf(refused.body, 'componentPurl'), 'lwip 2.1.3 &lt;b&gt;');
    assert.equal((await getReport(t.database.db, acme.company.id, id)).componentPurl, null, 'nothing saved');

    assert.equal((await client.form(`/reports/${id}/facts`, { ...facts, componentPurl: ' pkg:github/lwip-tcpip/lwip@2.1.3 ' })).statusCode, 303);
    assert.equal((await getReport(t.database.db, acme.company.id, id)).componentPurl, 'pkg:github/lwip-tcpip/lwip@2.1.3');
    const view = await client.page(`/reports/${id}`);
    assert.equal(valueOf(view.body, 'componentPurl'), 'pkg:github/lwip-tcpip/lwip@2.1.3');
    assert.match(view.body, /third-party component: pkg:github\/lwip-tcpip\/lwip@2\.1\.3/);

    // Emptied: the flaw is the company's own code again.
    assert.equal((await client.form(`/reports/${id}/facts`, { ...facts, componentPurl: '' })).statusCode, 303);
    assert.equal((await getReport(t.database.db, acme.company.id, id)).componentPurl, null);
  });
});
