import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../../../src/db/client.js';
import { companyDataVersions, findings, products, reports, sboms } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { recordFiling } from '../../../src/modules/article14/article14.js';
import type { Company } from '../../../src/modules/companies/companies.schemas.js';
import { updateCompany } from '../../../src/modules/companies/update-company.js';
import { recordAttestation, withdrawAttestation } from '../../../src/modules/compliance/attestations.js';
import { evaluate } from '../../../src/modules/compliance/evaluate.js';
import { factsCacheStats, readFacts } from '../../../src/modules/compliance/facts-cache.js';
import { type EvidenceSnapshot, snapshotAt } from '../../../src/modules/compliance/evidence-snapshot.js';
import { gatherEvidence } from '../../../src/modules/compliance/gather-evidence.js';
import { setProductCraFacts } from '../../../src/modules/compliance/product-cra-facts.js';
import { snapshotFor } from '../../../src/modules/compliance/read-compliance.js';
import { pushSarif } from '../../../src/modules/findings/push-sarif.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { fixedReport, publishedAdvisory } from '../../helpers/advisories.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { fixture, sarif } from '../../helpers/evidence.js';
import { makeCompany } from '../../helpers/factories.js';

/**
 * The compliance facts cache (ADR 0012): every change to what the evaluation reads, through the
 * verbs or by hand in SQL, is seen by the very next read; reads with no change in between are
 * answered from memory; the clock is applied afresh to cached facts.
 */
let database: TestDatabase;
let acme: Company;
let other: Company;
const ctx = operatorContext();
const DAY = 86_400_000;
const onPostgres = Boolean(process.env.DATABASE_URL);

before(async () => {
  database = await createTestDatabase();
  acme = await makeCompany(database.db, { plan: 'enterprise' });
  other = await makeCompany(database.db, { plan: 'enterprise' });
  await upsertProduct(database.db, ctx, acme.id, { name: 'Hub', identifier: 'hub' });
  await upsertProduct(database.db, ctx, other.id, { name: 'Hub', identifier: 'hub' });
});
after(() => database.drop());

/** What a compliance read shows: the snapshot and its verdicts, dates as text, less the moment itself. */
const shown = ({ takenAt, ...s }: EvidenceSnapshot) => JSON.parse(JSON.stringify({ ...s, assessments: evaluate(s.evidence, takenAt) })) as unknown;
const cached = (c: Company, now = new Date(), product?: string) => snapshotFor(database.db, c.id, product ? { product } : {}, now);
const fresh = async (c: Company, now: Date, product?: string) =>
  gatherEvidence(
    database.db,
    c.id,
    product
      ? (
          await database.db
            .select()
            .from(products)
            .where(and(eq(products.companyId, c.id), eq(products.identifier, product)))
        )[0]?.id
      : undefined,
    now,
  );

/** The cached read equals a fresh gathering at the same moment; returns what it showed. */
async function assertCurrent(c: Company, product?: string): Promise<unknown> {
  const now = new Date();
  const got = shown(await cached(c, now, product));
  assert.deepEqual(got, shown(await fresh(c, now, product)));
  return got;
}

async function version(c: Company): Promise<number> {
  const [row] = await database.db
    .select()
    .from(companyDataVersions)
    .where(and(eq(companyDataVersions.companyId, c.id), eq(companyDataVersions.domain, 'compliance')));
  return row?.version ?? 0;
}

/** Reads, applies `change`, reads again: the second read shows the change and equals a fresh one. */
async function changes(what: string, change: () => Promise<unknown>, product?: string): Promise<void> {
  const before = await assertCurrent(acme, product);
  const hits = factsCacheStats.hits;
  assert.deepEqual(await assertCurrent(acme, product), before, `${what}: nothing changed yet`);
  assert.equal(factsCacheStats.hits, hits + 1, `${what}: an unchanged company is answered from memory`);
  const v = await version(acme);
  await change();
  assert.ok((await version(acme)) > v, `${what}: raises the compliance version`);
  const misses = factsCacheStats.misses;
  const after = await assertCurrent(acme, product);
  assert.equal(factsCacheStats.misses, misses + 1, `${what}: gathered again`);
  assert.notDeepEqual(after, before, `${what}: the read shows the change`);
}

describe('compliance facts cache: every evidence change is seen by the next read', () => {
  it('SBOM push', () => changes('sbom', () => pushSbom(database.db, ctx, acme.id, 'hub', fixture('cradle-cyclonedx-npm-1.6.cdx.json'))));
  it('SARIF push with a critical finding, then one without it', async () => {
    const critical = sarif('Semgrep', [{ rule: 'overflow', file: 'src/a.c', line: 4, level: 'error' }], { overflow: { securitySeverity: '9.8' } });
    await changes('sarif', () => pushSarif(database.db, ctx, acme.id, 'hub', critical));
    await changes('sarif fixed', () => pushSarif(database.db, ctx, acme.id, 'hub', sarif('Semgrep', [])));
  });
  it('a report filed, then triaged as actively exploited', async () => {
    let id = '';
    await changes(
      'report filed',
      async () => (id = (await fileReport(database.db, ctx, acme, { description: 'RCE in the hub', productName: 'hub' }, 'api')).report.submissionId),
    );
    await changes('report triaged', () =>
      updateReport(database.db, ctx, acme.id, id, { status: 'triaging', activelyExploited: true, awareAt: new Date(Date.now() - 2 * DAY).toISOString() }),
    );
    await changes('article 14 filing', () => recordFiling(database.db, ctx, acme.id, id, 'early_warning', { reference: 'SRP-1' }));
  });
  it('an attestation recorded, then withdrawn', async () => {
    let id = '';
    await changes(
      'attested',
      async () =>
        (id = (
          await recordAttestation(
            database.db,
            ctx,
            acme.id,
            { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'Images are signed.' },
            'a@acme.test',
          )
        ).id),
    );
    await changes('withdrawn', () => withdrawAttestation(database.db, ctx, acme.id, id));
  });
  it("a product's CRA facts, a new product, a deleted product", async () => {
    await changes('cra facts', () => setProductCraFacts(database.db, ctx, acme.id, 'hub', { category: 'important_i', supportEndsAt: '2033-01-01T00:00:00Z' }));
    await changes('product added', () => upsertProduct(database.db, ctx, acme.id, { name: 'Cam', identifier: 'cam' }));
    await changes('product renamed', () => upsertProduct(database.db, ctx, acme.id, { name: 'Camera', identifier: 'cam' }));
    await changes('product deleted', () => database.db.delete(products).where(and(eq(products.companyId, acme.id), eq(products.identifier, 'cam'))));
  });
  it("the company's security contact, disclosure policy and plan", async () => {
    await changes('contact', () => updateCompany(database.db, ctx, acme.slug, { securityEmail: 'psirt@acme.test' }));
    await changes('policy', () => updateCompany(database.db, ctx, acme.slug, { policyText: 'We answer within 5 days.' }));
    await changes('plan', () => updateCompany(database.db, ctx, acme.slug, { plan: 'reporting' }));
  });
  it('an advisory published for a fixed report', async () => {
    let id = '';
    await changes('fixed report', async () => (id = await fixedReport(database.db, acme, { productName: 'hub' })));
    await changes('advisory', () => publishedAdvisory(database.db, acme, id));
  });
  it('changes made by hand in SQL, outside Cradle', async () => {
    await changes('sbom aged by hand', () =>
      database.db
        .update(sboms)
        .set({ createdAt: new Date(Date.now() - 200 * DAY) })
        .where(eq(sboms.companyId, acme.id)),
    );
    await changes('finding closed by hand', () =>
      database.db
        .execute(sql`update findings set state = 'fixed' where company_id = ${acme.id}`)
        .then(() => database.db.update(findings).set({ state: 'open', severity: 'high' }).where(eq(findings.companyId, acme.id))),
    );
    await changes('components changed by hand', () => database.db.execute(sql`update sbom_components set purl = null where company_id = ${acme.id}`));
    await changes('reports deleted by hand', () => database.db.delete(reports).where(eq(reports.companyId, acme.id)));
  });
  it('a one-product read is cached apart from the whole company', async () => {
    await changes(
      'product filter',
      () =>
        pushSarif(
          database.db,
          ctx,
          acme.id,
          'hub',
          sarif('Semgrep', [{ rule: 'x', file: 'b.c', line: 1, level: 'error' }], { x: { securitySeverity: '7.5' } }),
        ),
      'hub',
    );
  });
});

describe('compliance data versions', () => {
  it('rise once per committing transaction, for each company it changed, and not for a rolled-back one', async () => {
    const [a0, b0] = [await version(acme), await version(other)];
    await database.db.transaction(async (tx) => {
      await tx.update(products).set({ producer: 'one' }).where(eq(products.companyId, acme.id));
      await tx.update(products).set({ producer: 'two' }).where(eq(products.companyId, acme.id));
    });
    assert.deepEqual([await version(acme), await version(other)], [a0 + 1, b0]);
    await database.db
      .update(products)
      .set({ producer: 'both' })
      .where(sql`${products.companyId} in (${acme.id}, ${other.id})`);
    assert.deepEqual([await version(acme), await version(other)], [a0 + 2, b0 + 1]);
    await assert.rejects(
      database.db.transaction(async (tx) => {
        await tx.update(products).set({ producer: 'never' }).where(eq(products.companyId, acme.id));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual([await version(acme), await version(other)], [a0 + 2, b0 + 1]);
    const pending = (await database.db.execute(sql`select count(*)::int as n from company_data_pending`)) as unknown as { rows: { n: number }[] };
    assert.equal(pending.rows[0]?.n, 0, 'no pending row outlives its transaction');
  });

  it("keeps one company's facts apart from another's", async () => {
    await pushSbom(database.db, ctx, other.id, 'hub', fixture('cradle-cyclonedx-npm-1.6.cdx.json'));
    const [a, b] = [await readFacts(database.db, acme.id, undefined), await readFacts(database.db, other.id, undefined)];
    assert.deepEqual(b.products, (await fresh(other, new Date())).evidence.products);
    assert.notDeepEqual(a.products, b.products);
  });

  // Were the counter raised when the statement ran, the filing below would wait for the open
  // transaction forever: the timeout turns that hang into a failure.
  it(
    'does not make a long transaction hold up other writers of the same company',
    { skip: !onPostgres && 'needs a second connection (PostgreSQL)', timeout: 60_000 },
    async () => {
      const url = database.url as string;
      const long = new pg.Client({ connectionString: url });
      await long.connect();
      try {
        const v = await version(acme);
        await long.query('begin');
        await long.query(`update products set producer = 'long' where company_id = $1`, [acme.id]);
        // Another transaction of the same company commits while the first is still open.
        await fileReport(database.db, ctx, acme, { description: 'filed meanwhile' }, 'api');
        assert.equal(await version(acme), v + 1);
        await long.query('commit');
        assert.equal(await version(acme), v + 2);
      } finally {
        await long.end();
      }
    },
  );

  it('a second instance on the same database sees the first one change', { skip: !onPostgres && 'needs a second instance (PostgreSQL)' }, async () => {
    const second = await openDatabase({ databaseUrl: database.url as string, poolSize: 2 });
    try {
      const now = new Date();
      const read = async () => shown(snapshotAt(await readFacts(second.db, acme.id, undefined), now));
      const before = await read();
      assert.deepEqual(await read(), before);
      await pushSarif(
        database.db,
        ctx,
        acme.id,
        'hub',
        sarif('CodeQL', [{ rule: 'sqli', file: 'q.c', line: 9, level: 'error' }], { sqli: { securitySeverity: '9.1' } }),
      );
      const after = await read();
      assert.notDeepEqual(after, before);
      assert.deepEqual(after, shown(await fresh(acme, now)));
    } finally {
      await second.close();
    }
  });
});

describe('the clock, applied afresh to cached facts', () => {
  it('gives what a fresh gathering gives at every moment around each edge', async () => {
    const c = await makeCompany(database.db, { plan: 'enterprise' });
    const t0 = Date.now();
    await upsertProduct(database.db, ctx, c.id, { name: 'Gate', identifier: 'gate' });
    await pushSbom(database.db, ctx, c.id, 'gate', fixture('cradle-cyclonedx-npm-1.6.cdx.json'));
    await pushSarif(database.db, ctx, c.id, 'gate', sarif('Semgrep', []));
    const sbomAt = new Date(t0 - 85 * DAY);
    const scanAt = new Date(t0 - 27 * DAY);
    await database.db.update(sboms).set({ createdAt: sbomAt }).where(eq(sboms.companyId, c.id));
    await database.db.execute(sql`update sarif_scans set created_at = ${scanAt} where company_id = ${c.id}`);
    const waiting: Date[] = [];
    for (const age of [1, 5, 6.5]) {
      const { report } = await fileReport(database.db, ctx, c, { description: `waiting ${age} days`, productName: 'gate' }, 'api');
      const at = new Date(t0 - age * DAY);
      waiting.push(at);
      await database.db.update(reports).set({ createdAt: at }).where(eq(reports.id, report.submissionId));
    }
    const { report } = await fileReport(database.db, ctx, c, { description: 'exploited', productName: 'gate' }, 'api');
    const aware = new Date(t0 - 20 * 3_600_000);
    await updateReport(database.db, ctx, c.id, report.submissionId, { status: 'triaging', activelyExploited: true, awareAt: aware.toISOString() });
    const expires = new Date(t0 + 3 * DAY);
    await recordAttestation(
      database.db,
      ctx,
      c.id,
      { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'Signed images.', expiresAt: expires.toISOString() },
      'a@c.test',
    );

    const edges = [
      sbomAt.getTime() + 90 * DAY,
      sbomAt.getTime() + 91 * DAY,
      scanAt.getTime() + 30 * DAY,
      scanAt.getTime() + 31 * DAY,
      ...waiting.map((w) => w.getTime() + 7 * DAY),
      aware.getTime() + DAY,
      aware.getTime() + 3 * DAY,
      aware.getTime() + 14 * DAY,
      expires.getTime(),
    ];
    const moments = [t0, ...edges.flatMap((e) => [e - 1, e, e + 1])];
    let seed = 7;
    for (let i = 0; i < 20; i++) moments.push(t0 + ((seed = (seed * 48271) % 2147483647) % (40 * DAY)));
    const facts = await readFacts(database.db, c.id, undefined);
    const states = new Set<string>();
    for (const m of moments) {
      const now = new Date(m);
      const got = shown(snapshotAt(facts, now));
      assert.deepEqual(got, shown(await fresh(c, now)), `at ${now.toISOString()}`);
      states.add(JSON.stringify((got as { assessments: { verdict: string }[] }).assessments.map((a) => a.verdict)));
    }
    assert.ok(states.size >= 4, `the moments cross verdict changes (${states.size} distinct verdict sets)`);
  });
});
