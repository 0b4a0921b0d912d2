import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { and, eq, like } from 'drizzle-orm';
import { auditLog, outboxEvents } from '../../src/db/schema/index.js';
import { API_BASE } from '../../src/http/api-routes.js';
import { operatorContext } from '../../src/kernel/context.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import { validateSbom } from '../../src/modules/sboms/sboms.validate.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { fixedReport } from '../helpers/advisories.js';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, portalHost, type TestApp } from '../helpers/app.js';
import { csafValidator } from '../helpers/csaf-validator.js';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let key: string;
const validate = csafValidator();
const assertCsaf = (doc: unknown) => assert.ok(validate(doc), JSON.stringify(validate.errors?.slice(0, 3)));

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reading response bodies
const api = async (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: unknown) => {
  const res = await t.app.inject({
    method,
    url: `${API_BASE}${path}`,
    headers: { ...bearer(key), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
  });
  return {
    status: res.statusCode,
    body: res.body,
    json: (() => {
      try {
        return JSON.parse(res.body) as Json;
      } catch {
        return {} as Json;
      }
    })(),
    headers: res.headers,
  };
};
const portal = (path: string) => t.app.inject({ url: path, headers: { host: portalHost(acme.company.slug) } });

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme)).key;
  assert.equal((await api('POST', '/products', { name: 'Thermostat T2', identifier: 'thermo-t2', producer: 'Acme', firmwareVersion: '2.4.1' })).status, 201);
  const sbom = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    metadata: { component: { type: 'firmware', name: 'Thermostat T2', version: '2.3.0' } },
    components: [],
  };
  await pushSbom(t.database.db, operatorContext(), acme.company.id, 'thermo-t2', JSON.stringify(sbom));
});
after(() => t.close());

describe('advisories over HTTP', () => {
  let id = '';
  let reportId = '';

  it('refuses a report that is not fixed, naming its state (409)', async () => {
    const { report } = await fileReport(t.database.db, operatorContext(), acme.company, { description: 'open issue', productName: 'Thermostat T2' }, 'api');
    const res = await api('POST', '/advisories', { vulnerabilityId: report.submissionId });
    assert.equal(res.status, 409);
    assert.match(res.json.detail, /the report is new; an advisory needs a report that is fixed or disclosed/);
  });

  it("answers 404 for another company's report and 400 for a malformed id", async () => {
    const theirs = await fixedReport(t.database.db, rival.company);
    assert.equal((await api('POST', '/advisories', { vulnerabilityId: theirs })).status, 404);
    const bad = await api('POST', '/advisories', { vulnerabilityId: 'nope' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.errors[0].path, 'vulnerabilityId');
  });

  it('creates a draft from a fixed report, prefilled from the report, the product and its SBOMs', async () => {
    reportId = await fixedReport(t.database.db, acme.company, { productName: 'Thermostat T2', vulnerabilityType: 'authentication_bypass' });
    await t.app.inject({
      method: 'PATCH',
      url: `${API_BASE}/vulnerabilities/${reportId}`,
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', cwe: 'CWE-287' }),
    });
    const res = await api('POST', '/advisories', { vulnerabilityId: reportId });
    assert.equal(res.status, 201, res.body);
    const a = res.json;
    id = a.id;
    assert.equal(a.status, 'draft');
    assert.equal(a.trackingId, `${acme.company.slug.toUpperCase()}-${new Date().getUTCFullYear()}-0001`);
    assert.equal(a.vulnerabilityId, reportId);
    assert.equal(a.cvssVector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
    assert.equal(a.cwe, 'CWE-287');
    // The text is written from the company's facts; the reporter's words stay in the report.
    assert.equal(a.title, 'Authentication bypass in Thermostat T2');
    assert.equal(a.description, 'Authentication bypass (CWE-287) in Thermostat T2. CVSS vector: CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H.');
    assert.match(a.summary, /^An authentication bypass vulnerability \(CWE-287\) rated critical \(CVSS 9\.8\) in Thermostat T2 has been fixed\./);
    assert.ok(!`${a.summary} ${a.description}`.includes('Login accepts any password'));
    assert.equal(a.tlp, 'CLEAR');
    assert.equal(a.version, null);
    assert.equal(a.publicUrl, null);
    assert.deepEqual(a.products.map((p: Json) => [p.vendor, p.name, p.version, p.status]).sort(), [
      ['Acme', 'Thermostat T2', '2.3.0', 'known_affected'],
      ['Acme', 'Thermostat T2', '2.4.1', 'known_affected'],
    ]);
    assert.equal((await api('POST', '/advisories', { vulnerabilityId: reportId })).status, 409, 'one live advisory per report');
  });

  it('previews a draft as CSAF status draft, version 0, and never serves it on the portal', async () => {
    const csaf = await api('GET', `/advisories/${id}/csaf`);
    assert.equal(csaf.status, 200);
    assert.equal(csaf.json.document.tracking.status, 'draft');
    assert.equal(csaf.json.document.tracking.version, '0');
    assert.equal(csaf.json.document.references, undefined, 'a draft is served nowhere: no canonical URL');
    assert.equal((await portal('/.well-known/csaf/provider-metadata.json')).statusCode, 404);
    assert.equal((await portal('/.well-known/csaf/clear/index.txt')).statusCode, 404);
    assert.doesNotMatch((await portal('/.well-known/security.txt')).body, /^CSAF:/m);
    assert.doesNotMatch((await portal('/advisories')).body, new RegExp(`${acme.company.slug.toUpperCase()}-`));
  });

  it('refuses acknowledgments without consent and not_affected without a justification, naming the fields', async () => {
    const ack = await api('PATCH', `/advisories/${id}`, { acknowledgments: [{ name: 'Jane Researcher' }] });
    assert.equal(ack.status, 400);
    assert.equal(ack.json.errors[0].path, 'acknowledgments.0.consent');
    const na = await api('PATCH', `/advisories/${id}`, { products: [{ name: 'Hub', version: '1.0', status: 'not_affected' }] });
    assert.equal(na.status, 400);
    assert.equal(na.json.errors[0].path, 'products.0.justification');
    const unknown = await api('PATCH', `/advisories/${id}`, { products: [{ productIdentifier: 'no-such', version: '1.0', status: 'fixed' }] });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.errors[0].path, 'products.0.productIdentifier');
  });

  it('refuses to publish an advisory whose affected products lack a remediation (422), leaving it a draft', async () => {
    const res = await api('POST', `/advisories/${id}/publish`);
    assert.equal(res.status, 422, res.body);
    assert.match(res.headers['content-type'] as string, /application\/problem\+json/);
    assert.deepEqual(
      res.json.errors.map((e: Json) => e.path),
      ['remediation', 'cweName'],
    );
    assert.equal((await api('GET', `/advisories/${id}`)).json.status, 'draft');
  });

  it('edits the draft: VEX decisions, ids, CWE name, remediation and consented acknowledgments', async () => {
    const res = await api('PATCH', `/advisories/${id}`, {
      title: 'Authentication bypass in Thermostat T2 <firmware>',
      summary: 'An attacker on the network can log in without a password.',
      cve: 'CVE-2026-12345',
      ids: [{ systemName: 'Acme PSIRT', text: 'PSIRT-77' }],
      cweName: 'Improper Authentication',
      products: [
        { productIdentifier: 'thermo-t2', version: '2.3.0', status: 'known_affected' },
        { productIdentifier: 'thermo-t2', version: '2.4.1', status: 'fixed' },
        {
          vendor: 'Acme',
          name: 'Hub',
          version: '1.0',
          status: 'not_affected',
          justification: 'component_not_present',
          impact: 'The hub has no web interface.',
        },
        { vendor: 'Acme', name: 'Thermostat T3', version: '0.9-beta', status: 'under_investigation' },
      ],
      remediation: { category: 'vendor_fix', details: 'Update the firmware to 2.4.1.', url: 'https://acme.example/fw' },
      acknowledgments: [{ name: 'Jane Researcher', organization: 'Example Labs', consent: true }],
    });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.products[0].vendor, 'Acme', 'vendor from the registered product');
    assert.equal(res.json.acknowledgments[0].name, 'Jane Researcher');
    assert.ok(Date.parse(res.json.acknowledgments[0].consentRecordedAt) > 0);
  });

  it('publishes: 200, version 1, CSAF advisory and VEX both valid against the official schema', async () => {
    const res = await api('POST', `/advisories/${id}/publish`);
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.status, 'published');
    assert.equal(res.json.version, '1');
    assert.equal(res.json.revisions[0].summary, 'Initial public release');
    // Publishing discloses: the fixed report moved on, with its history entry.
    const report = await api('GET', `/vulnerabilities/${reportId}`);
    assert.equal(report.json.status, 'disclosed');
    const year = new Date().getUTCFullYear();
    assert.equal(res.json.publicUrl, `http://${portalHost(acme.company.slug)}/.well-known/csaf/clear/${year}/${res.json.trackingId.toLowerCase()}.json`);

    const csaf = await api('GET', `/advisories/${id}/csaf`);
    assert.match(csaf.headers['content-type'] as string, /^application\/json/);
    assertCsaf(csaf.json);
    const d = csaf.json;
    assert.equal(d.document.category, 'csaf_security_advisory');
    assert.equal(d.document.tracking.status, 'final');
    assert.equal(d.document.tracking.version, '1');
    assert.deepEqual(d.document.distribution, { tlp: { label: 'WHITE' } });
    // The canonical URL (CSAF 2.0 test 6.2.11) is the advisory's public URL, where the portal serves it.
    assert.deepEqual(d.document.references, [{ category: 'self', summary: 'Canonical URL', url: res.json.publicUrl }]);
    const v = d.vulnerabilities[0];
    assert.equal(v.cve, 'CVE-2026-12345');
    assert.deepEqual(v.cwe, { id: 'CWE-287', name: 'Improper Authentication' });
    assert.deepEqual(v.ids, [
      { system_name: 'Cradle', text: reportId },
      { system_name: 'Acme PSIRT', text: 'PSIRT-77' },
    ]);
    assert.deepEqual(v.product_status, {
      known_affected: ['CSAFPID-0001'],
      fixed: ['CSAFPID-0002'],
      known_not_affected: ['CSAFPID-0003'],
      under_investigation: ['CSAFPID-0004'],
    });
    assert.deepEqual(v.flags, [{ label: 'component_not_present', product_ids: ['CSAFPID-0003'] }]);
    assert.equal(v.scores[0].cvss_v3.baseScore, 9.8);
    // The vendor fix applies to the affected version only, never to the version that has the fix.
    assert.deepEqual(v.remediations[0].product_ids, ['CSAFPID-0001']);
    assert.deepEqual(v.acknowledgments, [{ names: ['Jane Researcher (Example Labs)'] }]);

    const vex = await api('GET', `/advisories/${id}/vex`);
    assertCsaf(vex.json);
    assert.equal(vex.json.document.category, 'csaf_vex');
    assert.equal(vex.json.document.tracking.id, `${res.json.trackingId}-VEX`);
    assert.deepEqual(vex.json.document.references, [{ category: 'self', summary: 'Canonical URL', url: res.json.publicUrl.replace(/\.json$/, '-vex.json') }]);
    assert.deepEqual(vex.json.vulnerabilities[0].threats, [{ category: 'impact', details: 'The hub has no web interface.', product_ids: ['CSAFPID-0003'] }]);

    const served = await portal(new URL(res.json.publicUrl).pathname);
    assert.equal(served.body, csaf.body, 'the API and the portal serve the same bytes');
    const events = await t.database.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, acme.company.id), eq(outboxEvents.type, 'advisory.published')));
    assert.equal(events.length, 1);
    assert.equal((events[0]?.payload as Json).data.trackingId, res.json.trackingId);
    assert.equal((events[0]?.payload as Json).data.url, res.json.publicUrl);
  });

  it('exports the same decisions as OpenVEX and as CycloneDX 1.6 VEX (schema-valid)', async () => {
    const open = await api('GET', `/advisories/${id}/openvex`);
    assert.equal(open.status, 200);
    assert.equal(open.json['@context'], 'https://openvex.dev/ns/v0.2.0');
    assert.match(open.json['@id'], /^urn:uuid:/);
    assert.equal(open.json.version, 1);
    const byProduct = Object.fromEntries(open.json.statements.map((s: Json) => [s.products[0]['@id'], s]));
    assert.deepEqual(Object.keys(byProduct).sort(), [
      'pkg:generic/Acme/Hub@1.0',
      'pkg:generic/Acme/Thermostat%20T2@2.3.0',
      'pkg:generic/Acme/Thermostat%20T2@2.4.1',
      'pkg:generic/Acme/Thermostat%20T3@0.9-beta',
    ]);
    const hub = byProduct['pkg:generic/Acme/Hub@1.0'];
    assert.deepEqual(
      [hub.status, hub.justification, hub.impact_statement, hub.vulnerability.name],
      ['not_affected', 'component_not_present', 'The hub has no web interface.', 'CVE-2026-12345'],
    );
    assert.deepEqual(
      [byProduct['pkg:generic/Acme/Thermostat%20T2@2.3.0'].status, byProduct['pkg:generic/Acme/Thermostat%20T2@2.3.0'].action_statement],
      ['affected', 'Update the firmware to 2.4.1.'],
    );
    assert.equal(byProduct['pkg:generic/Acme/Thermostat%20T3@0.9-beta'].status, 'under_investigation');

    const cdx = await api('GET', `/advisories/${id}/cyclonedx-vex`);
    assert.match(cdx.headers['content-type'] as string, /^application\/vnd\.cyclonedx\+json/);
    assert.doesNotThrow(() => validateSbom('cyclonedx', '1.6', cdx.json));
    const states = Object.fromEntries(
      cdx.json.vulnerabilities.map((v: Json) => [
        v.analysis.state,
        v.affects.map((a: Json) => cdx.json.components.find((c: Json) => c['bom-ref'] === a.ref).version),
      ]),
    );
    assert.deepEqual(states, { exploitable: ['2.3.0'], resolved: ['2.4.1'], not_affected: ['1.0'], in_triage: ['0.9-beta'] });
    const notAffected = cdx.json.vulnerabilities.find((v: Json) => v.analysis.state === 'not_affected');
    assert.deepEqual(notAffected.analysis, { state: 'not_affected', justification: 'code_not_present', detail: 'The hub has no web interface.' });
    assert.deepEqual(cdx.json.vulnerabilities.find((v: Json) => v.analysis.state === 'exploitable').analysis.response, ['update']);
    assert.equal(cdx.json.vulnerabilities.find((v: Json) => v.analysis.state === 'resolved').analysis.response, undefined);
    assert.deepEqual(notAffected.cwes, [287]);
  });

  it('keeps the served bytes while a published advisory is edited, and releases the edits as revision 2', async () => {
    const before = await api('GET', `/advisories/${id}/csaf`);
    const edited = await api('PATCH', `/advisories/${id}`, { summary: 'Also mitigated by disabling remote access.' });
    assert.equal(edited.json.pendingChanges, true);
    assert.equal((await api('GET', `/advisories/${id}/csaf`)).body, before.body);
    const res = await api('POST', `/advisories/${id}/revise`, { summary: 'Added the mitigation' });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.version, '2');
    assert.equal(res.json.pendingChanges, false);
    const after = (await api('GET', `/advisories/${id}/csaf`)).json;
    assertCsaf(after);
    assert.deepEqual(
      after.document.tracking.revision_history.map((r: Json) => [r.number, r.summary]),
      [
        ['1', 'Initial public release'],
        ['2', 'Added the mitigation'],
      ],
    );
    assert.equal(after.document.notes[0].text, 'Also mitigated by disabling remote access.');
    assert.equal(after.document.tracking.initial_release_date, before.json.document.tracking.initial_release_date);
    assert.equal((await api('POST', `/advisories/${id}/publish`)).status, 409, 'publishing twice is a conflict');
  });

  it('withdraws: a last revision saying why, still listed on the portal, and no more edits', async () => {
    const res = await api('POST', `/advisories/${id}/withdraw`, { reason: 'Issued for the wrong product line' });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.status, 'withdrawn');
    assert.equal(res.json.version, '3');
    const doc = (await api('GET', `/advisories/${id}/csaf`)).json;
    assertCsaf(doc);
    assert.deepEqual(doc.document.notes[1], { category: 'general', title: 'Withdrawn', text: 'Withdrawn: Issued for the wrong product line' });
    assert.match((await portal('/.well-known/csaf/clear/index.txt')).body, new RegExp(res.json.trackingId.toLowerCase()));
    const page = await portal(`/advisories/${res.json.trackingId.toLowerCase()}`);
    assert.match(page.body, /<strong>Withdrawn\.<\/strong> Withdrawn: Issued for the wrong product line/);
    assert.equal((await api('PATCH', `/advisories/${id}`, { title: 'x' })).status, 409);
    assert.equal((await api('POST', `/advisories/${id}/revise`, { summary: 'x' })).status, 409);
  });

  it('audits every change with its action', async () => {
    const rows = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, acme.company.id), like(auditLog.action, 'advisories.%'), eq(auditLog.targetId, id)));
    const actions = rows.map((r) => r.action);
    for (const a of ['advisories.create', 'advisories.update', 'advisories.publish', 'advisories.revise', 'advisories.withdraw'])
      assert.ok(actions.includes(a), `${a} in ${actions.join(', ')}`);
    assert.ok(rows.every((r) => r.actorType === 'api_key'));
  });

  it("lists the company's advisories only, filtered by status", async () => {
    await fixedReport(t.database.db, rival.company);
    const all = await api('GET', '/advisories');
    assert.ok(all.json.advisories.every((a: Json) => a.trackingId.startsWith(acme.company.slug.toUpperCase())));
    assert.deepEqual(
      (await api('GET', '/advisories?status=withdrawn')).json.advisories.map((a: Json) => a.id),
      [id],
    );
    assert.equal((await api('GET', '/advisories?status=bogus')).status, 400);
  });

  it('withdraws a draft without ever releasing it', async () => {
    const draft = (await api('POST', '/advisories', { vulnerabilityId: await fixedReport(t.database.db, acme.company) })).json;
    assert.match(draft.trackingId, /-0002$/, 'tracking numbers count up per company');
    const res = await api('POST', `/advisories/${draft.id}/withdraw`, { reason: 'duplicate' });
    assert.equal(res.json.status, 'withdrawn');
    assert.equal(res.json.version, null);
    assert.equal((await api('GET', `/advisories/${draft.id}/csaf`)).status, 409);
    assert.doesNotMatch((await portal('/.well-known/csaf/clear/index.txt')).body, new RegExp(draft.trackingId.toLowerCase()));
    const sha = createHash('sha256').update('x').digest('hex');
    assert.equal((await portal(`/.well-known/csaf/clear/2026/${sha}.json`)).statusCode, 404);
  });
});
