// Decisions on known vulnerabilities (CycloneDX VEX vocabulary): they last across SBOM versions,
// apply across products, are audited, feed the VEX exports and close the CRA Part I (2)(a) gap.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { readCompliance } from '../../../src/modules/compliance/read-compliance.js';
import { decideAcrossProducts, decideKnownVuln, getKnownVuln } from '../../../src/modules/known-vulns/decide-known-vuln.js';
import { listKnownVulns } from '../../../src/modules/known-vulns/list-known-vulns.js';
import { refreshVulndb } from '../../../src/modules/known-vulns/refresh-vulndb.js';
import { cycloneDxVexOf, openVexOf } from '../../../src/modules/known-vulns/vex-documents.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { validateSbom } from '../../../src/modules/sboms/sboms.validate.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';
import { cycloneDxOf, feedFolder } from '../../helpers/vulndb.js';

const ctx = operatorContext();
const LOG4J = 'org.apache.logging.log4j:log4j-core';
let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
  await refreshVulndb(d.db, new URL('../../../../shared/data/vulndb/kev', import.meta.url).pathname);
  // Both log4j CVEs are in the KEV snapshot; the left-pad one is ours and in no catalog.
  await refreshVulndb(
    d.db,
    feedFolder([
      { id: 'GHSA-jfh8-c2jp-5v3q', aliases: ['CVE-2021-44228'], ecosystem: 'Maven', name: LOG4J, events: [{ introduced: '2.13.0' }, { fixed: '2.15.0' }] },
      { id: 'GHSA-7rjr-3q55-vv33', aliases: ['CVE-2021-45046'], ecosystem: 'Maven', name: LOG4J, events: [{ introduced: '2.13.0' }, { fixed: '2.16.0' }] },
      { id: 'TEST-LEFTPAD-9', aliases: ['CVE-2099-0009'], ecosystem: 'npm', name: 'left-pad', events: [{ introduced: '0' }, { fixed: '2.0.0' }] },
    ]),
  );
});
after(() => d.drop());

const log4j = (v: string) => ({ name: 'log4j-core', version: v, purl: `pkg:maven/org.apache.logging.log4j/log4j-core@${v}` });
const leftPad = { name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' };

async function company(productIds: string[], components = [log4j('2.14.1'), leftPad]) {
  const c = await makeCompany(d.db);
  for (const id of productIds) {
    await upsertProduct(d.db, ctx, c.id, { name: id, identifier: id, firmwareVersion: '1.0' });
    await pushSbom(d.db, ctx, c.id, id, cycloneDxOf(components));
  }
  return c;
}
const byVuln = async (companyId: string, product?: string) =>
  new Map(
    (await listKnownVulns(d.db, companyId, product ? { product } : {}, { limit: 100 })).items.map((m) => [`${m.productIdentifier}/${m.vulnerability}`, m]),
  );
async function gapReason(companyId: string, product: string) {
  const { snapshot, assessments } = await readCompliance(d.db, companyId, {});
  const id = snapshot.evidence.products.find((p) => p.identifier === product)?.id;
  return assessments.find((a) => a.requirementId === 'cra-ai-p1-2a' && a.productId === id);
}

describe('decisions on known vulnerabilities', () => {
  it('refuses a not_affected without justification, a justification elsewhere and an empty reason', async () => {
    const c = await company(['gw']);
    const id = (await byVuln(c.id)).get('gw/CVE-2021-44228')!.id;
    await assert.rejects(decideKnownVuln(d.db, ctx, c.id, id, { state: 'not_affected', detail: 'x' }), /justification/);
    await assert.rejects(decideKnownVuln(d.db, ctx, c.id, id, { state: 'exploitable', justification: 'code_not_reachable', detail: 'x' }), /justification/);
    await assert.rejects(decideKnownVuln(d.db, ctx, c.id, id, { state: 'exploitable', detail: '   ' }), /reason/);
    assert.equal((await getKnownVuln(d.db, c.id, id)).analysis, null);
  });

  it('a decision survives a new SBOM version with the same component, and the history keeps every one', async () => {
    const c = await company(['gw']);
    const id = (await byVuln(c.id)).get('gw/CVE-2021-44228')!.id;
    await decideKnownVuln(d.db, ctx, c.id, id, { state: 'in_triage', detail: 'Looking at the JNDI lookup path.' });
    await decideKnownVuln(d.db, ctx, c.id, id, {
      state: 'not_affected',
      justification: 'code_not_reachable',
      response: ['will_not_fix'],
      detail: 'The firmware never logs attacker input.',
    });
    await pushSbom(d.db, ctx, c.id, 'gw', cycloneDxOf([log4j('2.14.1'), leftPad, { name: 'zlib', version: '1.3', purl: 'pkg:generic/zlib@1.3' }]));
    const m = await getKnownVuln(d.db, c.id, id);
    assert.equal(m.state, 'open');
    assert.deepEqual(
      { ...m.analysis, decidedAt: undefined },
      {
        state: 'not_affected',
        justification: 'code_not_reachable',
        response: ['will_not_fix'],
        detail: 'The firmware never logs attacker input.',
        decidedAt: undefined,
        decidedBy: 'operator',
      },
    );
    assert.deepEqual(
      m.history.map((h) => h.state),
      ['in_triage', 'not_affected'],
    );
    const audit = await d.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, c.id), eq(auditLog.action, 'knownVulnerabilities.decide')));
    assert.equal(audit.length, 2);
    assert.equal(JSON.stringify(audit).includes('never logs attacker input'), false, 'the reason stays out of the audit row');
  });

  it('a new component version is a new match, undecided', async () => {
    const c = await company(['gw']);
    const id = (await byVuln(c.id)).get('gw/CVE-2021-44228')!.id;
    await decideKnownVuln(d.db, ctx, c.id, id, { state: 'false_positive', detail: 'Shaded copy, not on the class path.' });
    await pushSbom(d.db, ctx, c.id, 'gw', cycloneDxOf([log4j('2.14.0'), leftPad]));
    const now = await byVuln(c.id);
    assert.equal(now.get('gw/CVE-2021-44228')!.component.version, '2.14.0');
    assert.equal(now.get('gw/CVE-2021-44228')!.analysis, null);
    assert.equal((await getKnownVuln(d.db, c.id, id)).state, 'resolved');
  });

  it('one decision applies to every product at once, or to one product; another company is untouched', async () => {
    const c = await company(['gw', 'cam', 'hub']);
    const other = await company(['gw']);
    const r = await decideAcrossProducts(d.db, ctx, c.id, {
      vulnerability: 'ghsa-7rjr-3q55-vv33',
      state: 'exploitable',
      response: ['update'],
      detail: 'Upgrading to 2.17.1 in the next release.',
    });
    assert.equal(r.updated, 3);
    assert.deepEqual(r.items.map((m) => `${m.productIdentifier} ${m.vulnerability} ${m.analysis?.state}`).sort(), [
      'cam CVE-2021-45046 exploitable',
      'gw CVE-2021-45046 exploitable',
      'hub CVE-2021-45046 exploitable',
    ]);
    const one = await decideAcrossProducts(d.db, ctx, c.id, {
      vulnerability: 'CVE-2021-45046',
      product: 'cam',
      state: 'resolved',
      detail: 'cam ships 2.17.1 since build 42.',
    });
    assert.deepEqual(
      one.items.map((m) => m.productIdentifier),
      ['cam'],
    );
    assert.equal((await byVuln(other.id)).get('gw/CVE-2021-45046')!.analysis, null);
    await assert.rejects(decideAcrossProducts(d.db, ctx, c.id, { vulnerability: 'CVE-1999-0001', state: 'in_triage', detail: 'x' }), /not found/);
    const foreign = (await byVuln(other.id)).get('gw/CVE-2021-45046')!.id;
    await assert.rejects(decideKnownVuln(d.db, ctx, c.id, foreign, { state: 'in_triage', detail: 'x' }), /not found/);
    await assert.rejects(getKnownVuln(d.db, c.id, foreign), /not found/);
  });

  it('the Part I (2)(a) gap opens with KEV matches first and closes when every match is addressed', async () => {
    const c = await company(['gw']);
    assert.equal(
      (await gapReason(c.id, 'gw'))?.reason,
      '2 known exploited vulnerabilities (CISA KEV) in components of the latest SBOM, untriaged or exploitable',
    );
    await decideAcrossProducts(d.db, ctx, c.id, {
      vulnerability: 'CVE-2021-44228',
      state: 'not_affected',
      justification: 'code_not_reachable',
      detail: 'No attacker input is logged.',
    });
    await decideAcrossProducts(d.db, ctx, c.id, { vulnerability: 'CVE-2021-45046', state: 'in_triage', detail: 'Checking the thread context map.' });
    assert.equal(
      (await gapReason(c.id, 'gw'))?.reason,
      '1 known exploited vulnerability (CISA KEV) in components of the latest SBOM, untriaged or exploitable',
    );
    await decideAcrossProducts(d.db, ctx, c.id, {
      vulnerability: 'CVE-2021-45046',
      state: 'not_affected',
      justification: 'requires_configuration',
      detail: 'No pattern layout with lookups.',
    });
    assert.equal((await gapReason(c.id, 'gw'))?.reason, '1 known vulnerability in components of the latest SBOM, untriaged or exploitable');
    // Upgrading left-pad past the fix resolves the last one: the requirement is met.
    await pushSbom(d.db, ctx, c.id, 'gw', cycloneDxOf([log4j('2.14.1'), { ...leftPad, version: '2.0.0', purl: 'pkg:npm/left-pad@2.0.0' }]));
    const met = await gapReason(c.id, 'gw');
    assert.equal(met?.verdict, 'met');
  });
});

describe('VEX exports of known vulnerabilities', () => {
  it('CycloneDX 1.6 VEX validates against the official schema and states each decision', async () => {
    const c = await company(['gw']);
    await decideAcrossProducts(d.db, ctx, c.id, {
      vulnerability: 'CVE-2021-44228',
      state: 'not_affected',
      justification: 'code_not_reachable',
      detail: 'No attacker input is logged.',
    });
    const vex = await cycloneDxVexOf(d.db, c.id, 'gw');
    validateSbom('cyclonedx', '1.6', vex);
    const vulns = vex.vulnerabilities as { id: string; analysis: { state: string; justification?: string }; affects: { ref: string }[] }[];
    const components = vex.components as { 'bom-ref': string; purl: string }[];
    assert.deepEqual(vulns.map((v) => [v.id, v.analysis.state, v.analysis.justification ?? null]).sort(), [
      ['CVE-2021-44228', 'not_affected', 'code_not_reachable'],
      ['CVE-2021-45046', 'in_triage', null],
      ['CVE-2099-0009', 'in_triage', null],
    ]);
    const refs = new Set(components.map((x) => x['bom-ref']));
    assert.ok(
      vulns.every((v) => v.affects.every((a) => refs.has(a.ref))),
      'every affects ref names a listed component',
    );
    assert.deepEqual(components.map((x) => x.purl).sort(), ['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1', 'pkg:npm/left-pad@1.3.0']);
  });

  it('OpenVEX 0.2.0 maps states and justifications, with an action for affected ones', async () => {
    const c = await company(['gw']);
    await decideAcrossProducts(d.db, ctx, c.id, {
      vulnerability: 'CVE-2021-44228',
      state: 'not_affected',
      justification: 'code_not_reachable',
      detail: 'No attacker input is logged.',
    });
    await decideAcrossProducts(d.db, ctx, c.id, { vulnerability: 'CVE-2021-45046', state: 'exploitable', detail: 'Reachable through the admin UI.' });
    await decideAcrossProducts(d.db, ctx, c.id, { vulnerability: 'CVE-2099-0009', state: 'false_positive', detail: 'Dev dependency only.' });
    const doc = await openVexOf(d.db, c.id, 'gw', 'Acme');
    assert.equal(doc['@context'], 'https://openvex.dev/ns/v0.2.0');
    assert.match(String(doc['@id']), /^urn:uuid:[0-9a-f-]{36}$/);
    const st = doc.statements as Record<string, unknown>[];
    const of = (name: string) => st.find((s) => (s.vulnerability as { name: string }).name === name)!;
    assert.deepEqual([of('CVE-2021-44228').status, of('CVE-2021-44228').justification], ['not_affected', 'vulnerable_code_not_in_execute_path']);
    assert.deepEqual([of('CVE-2021-45046').status, of('CVE-2021-45046').action_statement], ['affected', 'Upgrade log4j-core to 2.16.0 or later.']);
    assert.deepEqual([of('CVE-2099-0009').status, of('CVE-2099-0009').justification], ['not_affected', 'component_not_present']);
    assert.deepEqual((of('CVE-2021-44228').products as { '@id': string; subcomponents: { '@id': string }[] }[])[0]!.subcomponents, [
      { '@id': 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' },
    ]);
  });
});
