// CRA Article 14 tie-in: a CISA KEV entry on a component of a product on the market opens an
// awareness decision; confirming opens the Article 14 case with its clocks, dismissing keeps the
// reason; the events reach a webhook receiver signed. Nothing is reported to anyone by Cradle.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { auditLog, mailMessages, outboxEvents, webhookDeliveries } from '../../../src/db/schema/index.js';
import { fanOutMail } from '../../../src/modules/mail/fan-out-mail.js';
import { renderMail } from '../../../src/modules/mail/mail-templates.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { getArticle14 } from '../../../src/modules/article14/article14.js';
import { setProductCraFacts } from '../../../src/modules/compliance/product-cra-facts.js';
import { confirmAwareness, dismissAwareness, listAwareness, openAwareness } from '../../../src/modules/known-vulns/awareness.js';
import { setProductArchived } from '../../../src/modules/products/manage-products.js';
import { createAdvisory } from '../../../src/modules/advisories/create-advisory.js';
import { getCompanyById } from '../../../src/modules/companies/get-company.js';
import { decideKnownVuln } from '../../../src/modules/known-vulns/decide-known-vuln.js';
import { listKnownVulns } from '../../../src/modules/known-vulns/list-known-vulns.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { refreshVulndb } from '../../../src/modules/known-vulns/refresh-vulndb.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { getReport } from '../../../src/modules/reports/get-report.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { registerWebhook } from '../../../src/modules/webhooks/webhook-endpoints.js';
import { runDeliveryCycle } from '../../../src/modules/webhooks/webhook-worker.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeAdmin, makeCompany } from '../../helpers/factories.js';
import { type Received, startReceiver } from '../../helpers/receiver.js';
import { cycloneDxOf, feedFolder } from '../../helpers/vulndb.js';

const SNAPSHOT_KEV = new URL('../../../../shared/data/vulndb/kev/known_exploited_vulnerabilities.json', import.meta.url).pathname;
const ctx = operatorContext();
const LOG4J = { name: 'log4j-core', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' };
const URLLIB3 = { name: 'urllib3', version: '1.26.4', purl: 'pkg:pypi/urllib3@1.26.4' };
let d: TestDatabase;
let rx: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  d = await createTestDatabase();
  rx = await startReceiver();
  await refreshVulndb(d.db, SNAPSHOT_KEV);
  await refreshVulndb(
    d.db,
    feedFolder([
      {
        id: 'GHSA-jfh8-c2jp-5v3q',
        aliases: ['CVE-2021-44228'],
        ecosystem: 'Maven',
        name: 'org.apache.logging.log4j:log4j-core',
        events: [{ introduced: '2.13.0' }, { fixed: '2.15.0' }],
      },
      // CVE-2023-43804 is not in the snapshot catalog: the KEV update below adds it.
      { id: 'GHSA-v845-jxx5-vc9f', aliases: ['CVE-2023-43804'], ecosystem: 'PyPI', name: 'urllib3', events: [{ introduced: '0' }, { fixed: '1.26.17' }] },
    ]),
  );
});
after(async () => {
  await rx.close();
  await d.drop();
});

async function companyWith(products: { id: string; placedOnMarketAt?: string }[], components = [LOG4J]) {
  const c = await makeCompany(d.db);
  for (const p of products) {
    await upsertProduct(d.db, ctx, c.id, { name: `Gateway ${p.id}`, identifier: p.id });
    if (p.placedOnMarketAt) await setProductCraFacts(d.db, ctx, c.id, p.id, { placedOnMarketAt: p.placedOnMarketAt });
    await pushSbom(d.db, ctx, c.id, p.id, cycloneDxOf(components));
  }
  return c;
}

async function drain() {
  const opts = { allowPrivate: true, retryScale: 1e-6, totalTimeoutMs: 3000 };
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    await runDeliveryCycle(d.db, opts);
    const pending = await d.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.state, 'pending'));
    const undispatched = await d.db.select({ id: outboxEvents.id }).from(outboxEvents).where(isNull(outboxEvents.dispatchedAt));
    if (pending.length === 0 && undispatched.length === 0) return;
    await sleep(5);
  }
  throw new Error('deliveries still pending');
}

describe('KEV awareness decisions', () => {
  it('open for products on the market (or not dated), not for one placed in the future', async () => {
    const c = await companyWith([
      { id: 'on-market', placedOnMarketAt: '2025-01-01T00:00:00.000Z' },
      { id: 'undated' },
      { id: 'planned', placedOnMarketAt: '2030-01-01T00:00:00.000Z' },
    ]);
    const pending = await listAwareness(d.db, c.id);
    assert.deepEqual(pending.map((a) => [a.productIdentifier, a.vulnerability, a.cves, a.kevDateAdded, a.components]).sort(), [
      ['on-market', 'CVE-2021-44228', ['CVE-2021-44228'], '2021-12-10', ['log4j-core 2.14.1']],
      ['undated', 'CVE-2021-44228', ['CVE-2021-44228'], '2021-12-10', ['log4j-core 2.14.1']],
    ]);
    // A second SBOM push does not open a second decision.
    await pushSbom(d.db, ctx, c.id, 'on-market', cycloneDxOf([LOG4J]));
    assert.equal((await listAwareness(d.db, c.id)).length, 2);
    // An archived product is not on offer: a KEV change prompts nothing for it.
    await upsertProduct(d.db, ctx, c.id, { name: 'Gateway old', identifier: 'old' });
    await setProductArchived(d.db, ctx, c.id, 'old', true);
    await d.db
      .execute(sql`insert into vuln_matches (id, company_id, product_id, vuln_key, vuln_ids, record_ids, package_key, component_name, component_version, component_purl, in_kev, first_seen_at, last_seen_at)
      select gen_random_uuid(), company_id, id, 'CVE-2021-44228', '{CVE-2021-44228}', '{GHSA-jfh8-c2jp-5v3q}', 'maven/org.apache.logging.log4j/log4j-core', 'log4j-core', '2.14.1', '', true, now(), now() from products where identifier = 'old' and company_id = ${c.id}::uuid`);
    await openAwareness(d.db, new Date(), 'all');
    assert.deepEqual((await listAwareness(d.db, c.id)).map((a) => a.productIdentifier).sort(), ['on-market', 'undated']);
  });

  it('confirming opens the Article 14 case (actively exploited, aware at the given time) once', async () => {
    const c = await companyWith([{ id: 'gw' }]);
    const [a] = await listAwareness(d.db, c.id);
    const awareAt = new Date(Date.now() - 60 * 60_000).toISOString();
    const done = await confirmAwareness(d.db, ctx, c.id, a!.id, { awareAt, note: 'The gateway logs request headers.' }, 'api');
    assert.equal(done.state, 'confirmed');
    assert.equal(done.reason, 'The gateway logs request headers.');
    const report = await getReport(d.db, c.id, done.reportId!);
    assert.equal(report.activelyExploited, true);
    assert.equal(report.awareAt, awareAt);
    assert.equal(report.productName, 'Gateway gw');
    assert.match(
      report.description,
      /^Actively exploited vulnerability CVE-2021-44228, listed in the CISA Known Exploited Vulnerabilities catalog since 2021-12-10, in log4j-core 2\.14\.1 of Gateway gw\./,
    );
    const clocks = await getArticle14(d.db, c.id, report.submissionId);
    const early = clocks.stages.find((s) => s.stage === 'early_warning');
    assert.equal(early?.dueAt, new Date(Date.parse(awareAt) + 24 * 3600_000).toISOString());
    await assert.rejects(confirmAwareness(d.db, ctx, c.id, a!.id, {}, 'api'), /already confirmed/);
    await assert.rejects(dismissAwareness(d.db, ctx, c.id, a!.id, { reason: 'x' }), /already confirmed/);
    const audit = await d.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, c.id), eq(auditLog.action, 'knownVulnerabilities.awareness.confirm')));
    assert.equal(audit.length, 1);
  });

  it("the advisory drafted from a confirmed case takes its CVE and each product's status from the decisions", async () => {
    const c = await companyWith([{ id: 'gw-a' }, { id: 'gw-b' }, { id: 'gw-c' }, { id: 'gw-d' }]);
    const ids = Object.fromEntries((await listKnownVulns(d.db, c.id, { vulnerability: 'CVE-2021-44228' })).items.map((m) => [m.productIdentifier, m.id]));
    await decideKnownVuln(d.db, ctx, c.id, ids['gw-a']!, { state: 'exploitable', detail: 'Reachable from the admin UI.' });
    await decideKnownVuln(d.db, ctx, c.id, ids['gw-b']!, { state: 'not_affected', justification: 'code_not_reachable', detail: 'No user input is logged.' });
    await decideKnownVuln(d.db, ctx, c.id, ids['gw-c']!, { state: 'resolved', detail: 'Shipped 2.17.1 in 3.2.' });
    const [a] = (await listAwareness(d.db, c.id)).filter((x) => x.productIdentifier === 'gw-a');
    const { reportId } = await confirmAwareness(d.db, ctx, c.id, a!.id, {}, 'api');
    await updateReport(d.db, ctx, c.id, reportId!, { status: 'accepted' });
    await updateReport(d.db, ctx, c.id, reportId!, { status: 'fixed' });
    const company = await getCompanyById(d.db, c.id);
    const adv = await createAdvisory(d.db, ctx, company, 'https://example.test/.well-known/csaf/clear', { vulnerabilityId: reportId });
    assert.equal(adv.cve, 'CVE-2021-44228');
    // The version is the one the latest SBOM names for the product (its metadata component).
    assert.deepEqual(adv.products.map((p) => [p.productIdentifier, p.version, p.status, p.justification]).sort(), [
      ['gw-a', '1.0.0', 'known_affected', null],
      ['gw-b', '1.0.0', 'not_affected', 'vulnerable_code_not_in_execute_path'],
      ['gw-c', '1.0.0', 'fixed', null],
      ['gw-d', '1.0.0', 'under_investigation', null],
    ]);
  });

  it('dismissing keeps the reason; bad input and another company get clear refusals', async () => {
    const c = await companyWith([{ id: 'gw' }]);
    const other = await makeCompany(d.db);
    const [a] = await listAwareness(d.db, c.id);
    await assert.rejects(dismissAwareness(d.db, ctx, c.id, a!.id, { reason: '  ' }), /say why/);
    await assert.rejects(confirmAwareness(d.db, ctx, c.id, a!.id, { awareAt: new Date(Date.now() + 3600_000).toISOString() }, 'api'), /future/);
    await assert.rejects(dismissAwareness(d.db, ctx, other.id, a!.id, { reason: 'probe' }), /not found/);
    const done = await dismissAwareness(d.db, ctx, c.id, a!.id, { reason: 'The build excludes the JNDI lookup class.' });
    assert.deepEqual([done.state, done.reason, done.reportId], ['dismissed', 'The build excludes the JNDI lookup class.', null]);
    assert.deepEqual(await listAwareness(d.db, c.id), []);
    assert.equal((await listAwareness(d.db, c.id, { state: 'all' })).length, 1);
  });

  it('a KEV match queues one team mail that names the product and public ids only', async () => {
    const c = await companyWith([{ id: 'mail-gw' }]);
    await makeAdmin(d.db, c.slug, `psirt-${c.slug}@example.com`);
    const [event] = await d.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, c.id), eq(outboxEvents.type, 'vulnerability.matched')));
    await d.db.transaction((tx) =>
      fanOutMail(tx, [{ id: event!.id, companyId: c.id, type: event!.type, payload: event!.payload as { data: Record<string, unknown> } }], new Date()),
    );
    const [mail, ...more] = await d.db.select().from(mailMessages).where(eq(mailMessages.companyId, c.id));
    assert.equal(more.length, 0);
    assert.deepEqual([mail!.kind, mail!.data], ['vulnerability.kev', { product: 'mail-gw', vulnerabilities: 'CVE-2021-44228' }]);
    const rendered = renderMail('vulnerability.kev', mail!.data as Record<string, string>, 'Acme', { action: 'https://cradle.example/known-vulnerabilities' });
    assert.equal(rendered.subject, 'Actively exploited vulnerability in mail-gw: CVE-2021-44228');
  });

  it('a KEV update opens decisions and its events reach a webhook receiver, signed', async () => {
    const c = await companyWith([{ id: 'py-gw' }], [URLLIB3]);
    const hook = await registerWebhook(d.db, ctx, c.id, { url: rx.url('/cradle') }, { allowPrivate: true });
    assert.deepEqual(await listAwareness(d.db, c.id), []);
    const catalog = JSON.parse(readFileSync(SNAPSHOT_KEV, 'utf8')) as { vulnerabilities: Record<string, unknown>[] };
    catalog.vulnerabilities.push({
      cveID: 'CVE-2023-43804',
      vendorProject: 'urllib3',
      product: 'urllib3',
      vulnerabilityName: 'test entry',
      dateAdded: '2026-11-25',
      shortDescription: 't',
      requiredAction: 'Apply updates.',
      dueDate: '2026-12-16',
      knownRansomwareCampaignUse: 'Unknown',
      notes: '',
      cwes: [],
    });
    const dir = mkdtempSync(join(tmpdir(), 'cradle-kev-'));
    writeFileSync(join(dir, 'known_exploited_vulnerabilities.json'), JSON.stringify(catalog));
    await refreshVulndb(d.db, dir);
    const [a] = await listAwareness(d.db, c.id);
    assert.deepEqual([a?.productIdentifier, a?.vulnerability, a?.kevDateAdded], ['py-gw', 'CVE-2023-43804', '2026-11-25']);
    await drain();
    const got = rx.seen
      .filter((r) => r.path === '/cradle')
      .map(
        (r: Received) =>
          new Webhook(hook.secret as string).verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> },
      );
    // Nothing was dispatched before the endpoint existed: the push's events arrive too.
    assert.deepEqual(got.map((e) => e.type).sort(), ['sbom.ingested', 'vulnerability.kev_added', 'vulnerability.matched']);
    assert.equal(got.find((e) => e.type === 'vulnerability.matched')!.data.total, 1);
    const kev = got.find((e) => e.type === 'vulnerability.kev_added')!;
    assert.deepEqual(kev.data, {
      productIdentifier: 'py-gw',
      matches: [{ vulnerability: 'CVE-2023-43804', cves: ['CVE-2023-43804'], component: 'urllib3', version: '1.26.4' }],
    });
  });
});
