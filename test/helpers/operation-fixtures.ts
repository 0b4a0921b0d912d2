import type { Db } from '../../src/db/client.js';
import type { Operation } from '../../src/modules/operations/operation.js';
import { outboxEvents, webhookDeliveries } from '../../src/db/schema/index.js';
import { type Context, operatorContext } from '../../src/kernel/context.js';
import { newId } from '../../src/kernel/ids.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { recordAttestation } from '../../src/modules/compliance/attestations.js';
import { listProducts } from '../../src/modules/products/list-products.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import { updateReport } from '../../src/modules/reports/update-report.js';
import { registerWebhook } from '../../src/modules/webhooks/webhook-endpoints.js';
import { sql } from 'drizzle-orm';
import { placeHold } from '../../src/modules/retention/legal-holds.js';
import { listAwareness } from '../../src/modules/known-vulns/awareness.js';
import { listKnownVulns } from '../../src/modules/known-vulns/list-known-vulns.js';
import { readOsvRecord } from '../../src/modules/vulndb/osv-record.js';
import { applyOsvBatch } from '../../src/modules/vulndb/osv-store.js';
import { fixedReport, publishedAdvisory, readyDraft } from './advisories.js';
import { osvRecord } from './vulndb.js';
import { makeCompany } from './factories.js';
import { openCase } from '../../src/modules/cases/open-case.js';
import { addParticipant } from '../../src/modules/cases/add-participant.js';
import { proposeEmbargo } from '../../src/modules/cases/case-embargo.js';
import { prepareNotices } from '../../src/modules/cases/case-notices.js';
import { confirmNotices } from '../../src/modules/cases/confirm-notices.js';
import { addCaseFix } from '../../src/modules/cases/case-fixes.js';
import { postCaseMessage } from '../../src/modules/cases/case-messages.js';
import { inboundParticipant, postSharedMessage } from '../../src/modules/cases/shared-thread.js';
import { listSavedFilters, saveFilter } from '../../src/modules/article14/saved-filters.js';
import { SAVED_FILTERS_MAX } from '../../src/modules/article14/saved-filters.schemas.js';

/**
 * Records an operation's example needs before it can succeed (its path parameters), created for
 * the calling company. The generated security suite fails, naming the operation, when one with
 * path parameters has no entry here. A value named `body.<field>` replaces that field of the
 * example body (a record the body refers to, such as the report an advisory is created from).
 */
type Fixture = (db: Db, company: Company) => Promise<Record<string, string>>;

const report = async (db: Db, c: Company) => (await fileReport(db, operatorContext(), c, { description: 'fixture report' }, 'api')).report.submissionId;
const newProduct = async (db: Db, c: Company) =>
  (await upsertProduct(db, operatorContext(), c.id, { name: 'Fixture product', identifier: `fixture-${newId()}` })).product.identifier;
const namedProduct = async (db: Db, c: Company) =>
  (await upsertProduct(db, operatorContext(), c.id, { name: 'Fixture product', identifier: `fixture-${c.slug}` })).product.identifier;
/** A saved inbox filter of the company's API keys (the set every key of the company sees). */
/**
 * One of the API keys' saved filters: a new one, or, once the set holds the most it may (a long fuzz
 * run's valid POSTs fill it before the update and delete operations run), the first kept.
 */
const savedFilter = async (db: Db, c: Company) => {
  const keys: Context = { actor: { type: 'api_key', id: newId() } };
  const kept = await listSavedFilters(db, keys, c.id);
  if (kept.length >= SAVED_FILTERS_MAX) return kept[0]!.id;
  return (await saveFilter(db, keys, c.id, { name: `Fixture ${newId()}`, criteria: { severity: 'high' } })).id;
};
const webhook = async (db: Db, c: Company) =>
  (await registerWebhook(db, operatorContext(), c.id, { url: 'https://hooks.example.com/cradle' }, { allowPrivate: false })).id;

/** The product the evidence operations' examples name (`?product=thermo-t2`). */
const product = (db: Db, c: Company) => upsertProduct(db, operatorContext(), c.id, { name: 'Thermostat T2', identifier: 'thermo-t2' });
/** An SBOM of the company's first active product (a new product only when it has none: tests count them). */
const sbom = async (db: Db, c: Company) => {
  const identifier = (await listProducts(db, c.id)).find((p) => !p.archivedAt)?.identifier ?? (await product(db, c)).product.identifier;
  const doc = { bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [{ type: 'library', name: 'lwip', version: '2.2.0' }] };
  return (await pushSbom(db, operatorContext(), c.id, identifier, JSON.stringify(doc))).id;
};

/**
 * A known vulnerability of the company's example product: an advisory record of our own for a
 * fixture package (written once to the shared store), and an SBOM naming the vulnerable version.
 */
const knownVuln = async (db: Db, c: Company) => {
  const record = osvRecord({
    id: 'TEST-FIXTURE-1',
    aliases: ['CVE-2099-4242'],
    ecosystem: 'npm',
    name: 'fixture-lib',
    events: [{ introduced: '0' }, { fixed: '2.0.0' }],
  });
  const read = readOsvRecord(Buffer.from(JSON.stringify(record)));
  if (!read.ok) throw new Error(read.error);
  await applyOsvBatch(db, 'osv:npm', [read.record]);
  await product(db, c);
  const doc = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    components: [{ type: 'library', name: 'fixture-lib', version: '1.0.0', purl: 'pkg:npm/fixture-lib@1.0.0' }],
  };
  await pushSbom(db, operatorContext(), c.id, 'thermo-t2', JSON.stringify(doc));
  const [match] = (await listKnownVulns(db, c.id, { vulnerability: 'CVE-2099-4242' })).items;
  if (!match) throw new Error('the fixture SBOM was not matched');
  return match;
};

/** A pending awareness decision: a KEV-listed flaw of our own in a fresh product's SBOM. */
const kevAwareness = async (db: Db, c: Company) => {
  await db.execute(sql`insert into vulndb_kev (cve_id, vendor_project, product, name, date_added, required_action, known_ransomware)
    values ('CVE-2099-4243', 'Fixture', 'fixture-kev-lib', 'Fixture flaw', '2026-11-01', 'Apply updates.', 'Unknown') on conflict do nothing`);
  const read = readOsvRecord(
    Buffer.from(
      JSON.stringify(osvRecord({ id: 'TEST-FIXTURE-2', aliases: ['CVE-2099-4243'], ecosystem: 'npm', name: 'fixture-kev-lib', events: [{ introduced: '0' }] })),
    ),
  );
  if (!read.ok) throw new Error(read.error);
  await applyOsvBatch(db, 'osv:npm', [read.record]);
  const identifier = await newProduct(db, c);
  const doc = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    components: [{ type: 'library', name: 'fixture-kev-lib', version: '1.0.0', purl: 'pkg:npm/fixture-kev-lib@1.0.0' }],
  };
  await pushSbom(db, operatorContext(), c.id, identifier, JSON.stringify(doc));
  const pending = (await listAwareness(db, c.id)).find((a) => a.productIdentifier === identifier);
  if (!pending) throw new Error('no awareness decision was opened for the fixture');
  return pending.id;
};

/** A coordination case of the company with an e-mail participant and a proposed embargo. */
const coordinationCase = async (db: Db, c: Company) => {
  const k = await openCase(db, operatorContext(), c.id, { title: 'Fixture case', reportIds: [await report(db, c)] });
  const p = await addParticipant(db, operatorContext(), c.id, k.id, { role: 'upstream_maintainer', email: 'security@upstream.example' });
  await proposeEmbargo(db, operatorContext(), c.id, k.id, { until: '2099-02-01' });
  return { id: k.id, participantId: p.id };
};

/** Another company's case that notified this one (channel cradle): the id of this company's participation. */
const inboundCase = async (db: Db, c: Company) => {
  const other = await makeCompany(db, { name: 'Fixture Upstream Ltd' });
  const k = await openCase(db, operatorContext(), other.id, { title: 'Fixture inbound case' });
  await addParticipant(db, operatorContext(), other.id, k.id, { role: 'upstream_maintainer', companySlug: c.slug });
  await proposeEmbargo(db, operatorContext(), other.id, k.id, { until: '2099-02-01' });
  const prepared = await prepareNotices(db, operatorContext(), other.id, k.id, {});
  const [sent] = await confirmNotices(db, operatorContext(), other.id, k.id, { noticeIds: prepared.map((n) => n.id) }, { siteUrl: 'http://localhost:3000' });
  if (!sent) throw new Error('the fixture notice was not sent');
  return { id: sent.participantId };
};

const FIXTURE_FILE = { filename: 'trace.txt', content: Buffer.from('fixture trace: len=0xffff\n').toString('base64') };

/** A case of the company whose thread holds a message with one file. */
const caseAttachment = async (db: Db, c: Company) => {
  const k = await coordinationCase(db, c);
  const m = await postCaseMessage(db, operatorContext(), c.id, k.id, { participantId: k.participantId, body: 'Trace attached.', attachments: [FIXTURE_FILE] });
  return { id: k.id, attachmentId: m.attachments[0]?.id ?? '' };
};

/** A file the company's team sent into the thread another company shares with it. */
const inboundAttachment = async (db: Db, c: Company) => {
  const { id } = await inboundCase(db, c);
  const m = await postSharedMessage(db, operatorContext(), await inboundParticipant(db, c.id, id), { body: 'Trace attached.', attachments: [FIXTURE_FILE] });
  return { id, attachmentId: m.attachments[0]?.id ?? '' };
};

export const OPERATION_FIXTURES: Record<string, Fixture> = {
  'cases.attachments.get': caseAttachment,
  'cases.attachments.download': caseAttachment,
  'cases.inbound.attachments.get': inboundAttachment,
  'cases.inbound.attachments.download': inboundAttachment,
  'retention.holds.release': async (db, c) => ({ id: (await placeHold(db, operatorContext(), c.id, { scope: 'company', reason: 'fixture hold' })).id }),
  'retention.erasures.record': async (db, c) => ({ 'body.reportId': await report(db, c) }),
  'retention.holds.place': async (db, c) => ({ 'body.target': await report(db, c) }),
  'cases.get': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.coordinator_pack': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.participants.add': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.participants.update': async (db, c) => coordinationCase(db, c),
  'cases.notices.list': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.notices.prepare': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.notices.confirm': async (db, c) => {
    const { id } = await coordinationCase(db, c);
    const [n] = await prepareNotices(db, operatorContext(), c.id, id, {});
    return { id, 'body.noticeIds[]': n?.id ?? '' };
  },
  'cases.messages.list': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.messages.post': async (db, c) => {
    const k = await coordinationCase(db, c);
    return { id: k.id, 'body.participantId': k.participantId };
  },
  'cases.fixes.list': async (db, c) => {
    const { id } = await coordinationCase(db, c);
    await addCaseFix(db, operatorContext(), c.id, id, { kind: 'description', body: 'Bound the copy by the buffer size.', osvDraft: true });
    return { id };
  },
  'cases.fixes.add': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.embargo.propose': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.embargo.end': async (db, c) => ({ id: (await coordinationCase(db, c)).id }),
  'cases.inbound.get': async (db, c) => inboundCase(db, c),
  'cases.inbound.acknowledge': async (db, c) => inboundCase(db, c),
  'cases.inbound.embargo': async (db, c) => inboundCase(db, c),
  'cases.inbound.messages.post': async (db, c) => inboundCase(db, c),
  'knownVulnerabilities.awareness.confirm': async (db, c) => ({ id: await kevAwareness(db, c) }),
  'knownVulnerabilities.awareness.dismiss': async (db, c) => ({ id: await kevAwareness(db, c) }),
  'knownVulnerabilities.get': async (db, c) => ({ id: (await knownVuln(db, c)).id }),
  'knownVulnerabilities.decide': async (db, c) => ({ id: (await knownVuln(db, c)).id }),
  'knownVulnerabilities.decideAcross': async (db, c) => ({ 'body.vulnerability': (await knownVuln(db, c)).vulnerability }),
  'knownVulnerabilities.vex': async (db, c) => (await knownVuln(db, c), {}),
  'reports.get': async (db, c) => ({ id: await report(db, c) }),
  'reports.update': async (db, c) => ({ id: await report(db, c) }),
  'article14.get': async (db, c) => ({ id: await report(db, c) }),
  'article14.file': async (db, c) => {
    const id = await report(db, c);
    await updateReport(db, operatorContext(), c.id, id, { activelyExploited: true, awareAt: new Date().toISOString() });
    return { id, stage: 'early_warning' };
  },
  'compliance.product_facts': async (db, c) => ({ identifier: await newProduct(db, c) }),
  // Named after the company: unique to it (the 404 walk), and the MCP parity walk replaces each company's slug.
  'products.get': async (db, c) => ({ identifier: await namedProduct(db, c) }),
  'products.archive': async (db, c) => ({ identifier: await namedProduct(db, c) }),
  'products.restore': async (db, c) => ({ identifier: await namedProduct(db, c) }),
  'compliance.set_product_facts': async (db, c) => ({ identifier: await newProduct(db, c) }),
  'compliance.withdraw_attestation': async (db, c) => ({
    id: (await recordAttestation(db, operatorContext(), c.id, { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'fixture' }, 'fixture')).id,
  }),
  'reports.messages.list': async (db, c) => ({ id: await report(db, c) }),
  'reports.messages.post': async (db, c) => ({ id: await report(db, c) }),
  'reports.notes.list': async (db, c) => ({ id: await report(db, c) }),
  'reports.notes.add': async (db, c) => ({ id: await report(db, c) }),
  'reports.saved_filters.update': async (db, c) => ({ id: await savedFilter(db, c) }),
  'reports.saved_filters.delete': async (db, c) => ({ id: await savedFilter(db, c) }),
  'webhooks.update': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.delete': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.rotate_secret': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.deliveries': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.test': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.redeliver': async (db, c) => {
    const webhookId = await webhook(db, c);
    const eventId = newId();
    const now = new Date();
    await db.insert(outboxEvents).values({
      id: eventId,
      companyId: c.id,
      type: 'webhook.test',
      payload: { type: 'webhook.test', timestamp: now.toISOString(), data: {} },
      createdAt: now,
      dispatchedAt: now,
    });
    const id = newId();
    await db.insert(webhookDeliveries).values({
      id,
      companyId: c.id,
      webhookId,
      eventId,
      eventType: 'webhook.test',
      state: 'succeeded',
      attempts: 1,
      nextAttemptAt: now,
      createdAt: now,
      finishedAt: now,
    });
    return { id };
  },
  'sboms.push': async (db, c) => (await product(db, c), {}),
  'sarif.push': async (db, c) => (await product(db, c), {}),
  'sboms.get': async (db, c) => ({ id: await sbom(db, c) }),
  'sboms.components': async (db, c) => ({ id: await sbom(db, c) }),
  'sboms.diff': async (db, c) => ({ id: await sbom(db, c) }),
  'sboms.document': async (db, c) => ({ id: await sbom(db, c) }),
  'advisories.create': async (db, c) => ({ 'body.vulnerabilityId': await fixedReport(db, c) }),
  'advisories.get': async (db, c) => ({ id: (await readyDraft(db, c)).id }),
  'advisories.update': async (db, c) => ({ id: (await readyDraft(db, c)).id }),
  'advisories.publish': async (db, c) => ({ id: (await readyDraft(db, c)).id }),
  'advisories.revise': async (db, c) => ({ id: (await publishedAdvisory(db, c)).id }),
  'advisories.withdraw': async (db, c) => ({ id: (await publishedAdvisory(db, c)).id }),
  'advisories.csaf': async (db, c) => ({ id: (await publishedAdvisory(db, c)).id }),
  'advisories.vex': async (db, c) => ({ id: (await readyDraft(db, c)).id }),
  'advisories.openvex': async (db, c) => ({ id: (await publishedAdvisory(db, c)).id }),
  'advisories.cyclonedx_vex': async (db, c) => ({ id: (await readyDraft(db, c)).id }),
};

/** The operation's example body with the fixture's `body.<field>` values laid over it. */
export function exampleBody(op: Operation, values: Record<string, string>): unknown {
  const over = Object.entries(values)
    .filter(([k]) => k.startsWith('body.'))
    // `body.<field>[]` names a field that holds a list of records (the notices to confirm).
    .map(([k, v]) => (k.endsWith('[]') ? [k.slice(5, -2), [v]] : [k.slice(5), v]));
  if (over.length === 0) return op.example.body;
  return { ...(op.example.body as Record<string, unknown>), ...Object.fromEntries(over) };
}
