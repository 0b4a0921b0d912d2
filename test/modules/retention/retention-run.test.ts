import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, count, eq, sql } from 'drizzle-orm';
import { advisories, attestations, auditLog, reports, sboms } from '../../../src/db/schema/index.js';
import { type Context, operatorContext } from '../../../src/kernel/context.js';
import { isAppError } from '../../../src/kernel/errors.js';
import { recordAttestation } from '../../../src/modules/compliance/attestations.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { getReportStatus } from '../../../src/modules/reports/get-report-status.js';
import { addNote, listNotes } from '../../../src/modules/reports/report-notes.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { setProductCraFacts } from '../../../src/modules/compliance/product-cra-facts.js';
import { craFloors } from '../../../src/modules/retention/cra-floor.js';
import { placeHold, releaseHold } from '../../../src/modules/retention/legal-holds.js';
import { updateRetentionPolicy } from '../../../src/modules/retention/retention-policy.js';
import { previewRetention, REMOVED_TEXT, retentionForCompanies, runRetention } from '../../../src/modules/retention/retention-run.js';
import { retentionPass } from '../../../src/modules/retention/retention-worker.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { makeTenant, type Tenant } from '../../helpers/access.js';
import { fixedReport, readyDraft } from '../../helpers/advisories.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeMember } from '../../helpers/team.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

const DAY = 86_400_000;
const ctx: Context = { actor: { type: 'operator' }, ip: '203.0.113.77', userAgent: 'FilingBrowser/1.0' };

async function file(t: Tenant, email: string, description: string) {
  const r = await fileReport(
    database.db,
    { actor: { type: 'public' }, ip: '198.51.100.9', userAgent: 'ResearcherAgent/3.1' },
    t.company,
    { description, contactEmail: email, productName: 'Thermostat T2' },
    'api',
  );
  return { id: r.report.submissionId, token: r.statusToken };
}
const row = async (id: string) => (await database.db.select().from(reports).where(eq(reports.id, id)))[0];
const countOf = async (table: typeof sboms | typeof attestations | typeof advisories, companyId: string) =>
  Number((await database.db.select({ n: count() }).from(table).where(eq(table.companyId, companyId)))[0]?.n ?? 0);

describe('retention rules, legal holds and the CRA floor', () => {
  let t: Tenant;
  let informative: { id: string; token: string };
  let spam: { id: string; token: string };
  let exploitedSpam: { id: string; token: string };
  let heldSpam: { id: string; token: string };
  let open: { id: string; token: string };
  let holdId: string;

  before(async () => {
    const db = database.db;
    t = await makeTenant(db);
    await upsertProduct(db, operatorContext(), t.company.id, { name: 'Thermostat T2', identifier: 'thermo-t2' });
    await setProductCraFacts(db, operatorContext(), t.company.id, 'thermo-t2', {
      placedOnMarketAt: '2020-01-01T00:00:00.000Z',
      supportEndsAt: '2034-06-30T00:00:00.000Z',
    });
    await pushSbom(
      db,
      operatorContext(),
      t.company.id,
      'thermo-t2',
      JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [{ type: 'library', name: 'lwip', version: '2.2.0' }] }),
    );
    await recordAttestation(db, operatorContext(), t.company.id, { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'floor test' }, 'test');
    informative = await file(t, 'ida@researcher.example', 'informative finding');
    spam = await file(t, 'sam@researcher.example', 'buy cheap watches');
    exploitedSpam = await file(t, 'eve@researcher.example', 'exploited but closed as not applicable');
    heldSpam = await file(t, 'hal@researcher.example', 'held spam text');
    open = await file(t, 'olga@researcher.example', 'still open');
    await updateReport(db, operatorContext(), t.company.id, informative.id, { status: 'informative' });
    await updateReport(db, operatorContext(), t.company.id, spam.id, { status: 'spam' });
    await updateReport(db, operatorContext(), t.company.id, exploitedSpam.id, { activelyExploited: true, awareAt: new Date().toISOString() });
    await updateReport(db, operatorContext(), t.company.id, exploitedSpam.id, { status: 'not_applicable' });
    await updateReport(db, operatorContext(), t.company.id, heldSpam.id, { status: 'spam' });
    await readyDraft(db, t.company, await fixedReport(db, t.company));
    const note = (id: string, body: string) => addNote(db, operatorContext(), t.company.id, id, { body });
    await note(informative.id, 'Asked ida@researcher.example which firmware she ran.');
    await note(spam.id, 'Watch spam again, from sam@researcher.example.');
    await note(heldSpam.id, 'Spam, but counsel wants it kept: hal@researcher.example.');
    holdId = (await placeHold(db, ctx, t.company.id, { scope: 'report', target: heldSpam.id, reason: 'Matter 7: preserve' })).id;
    // The shortest settings a company may choose.
    await updateRetentionPolicy(db, ctx, t.company.id, { reporterDataDays: 30, rejectedBodyDays: 30, accessRecordDays: 7 });
  });

  it('refuses settings below the shortest, naming the field, and changes nothing', async () => {
    await assert.rejects(updateRetentionPolicy(database.db, ctx, t.company.id, { rejectedBodyDays: 1, accessRecordDays: 3 }), (e) => {
      assert.ok(isAppError(e) && e.code === 'VALIDATION');
      assert.deepEqual(
        (e.extra.issues ?? []).map((i) => i.path),
        ['rejectedBodyDays', 'accessRecordDays'],
      );
      return true;
    });
    const preview = await previewRetention(database.db, ctx, t.company.id);
    assert.deepEqual(
      preview.rules.map((r) => r.days),
      [30, 30, 7],
    );
  });

  it('previews nothing due before the days have passed', async () => {
    const preview = await previewRetention(database.db, ctx, t.company.id, { now: new Date(Date.now() + 6 * DAY) });
    assert.deepEqual(
      preview.rules.map((r) => [r.rule, r.count]),
      [
        ['reporter_data', 0],
        ['rejected_bodies', 0],
        ['access_records', 0],
      ],
    );
  });

  it('runs exactly what the preview showed, with the clock moved, and a held report survives', async () => {
    const db = database.db;
    const now = new Date(Date.now() + 31 * DAY);
    const before = await previewRetention(db, ctx, t.company.id, { now });
    const byRule = Object.fromEntries(before.rules.map((r) => [r.rule, r]));
    assert.equal(byRule.reporter_data?.count, 3, 'informative, spam and the exploited one are closed and due');
    assert.equal(byRule.reporter_data?.held, 1);
    assert.equal(byRule.rejected_bodies?.count, 1, 'only the plain spam report loses its text');
    assert.equal(byRule.rejected_bodies?.held, 1);
    assert.equal(byRule.rejected_bodies?.keptByCraFloor, 1, 'the exploited report is technical documentation');
    assert.ok((byRule.access_records?.count ?? 0) > 0, 'the audit rows carry addresses');
    const run = await runRetention(db, ctx, t.company.id, { now });
    assert.equal(run.applied, true);
    assert.deepEqual(run.rules, before.rules);

    const i = await row(informative.id);
    assert.equal(i?.contactEmail, null);
    assert.match(i?.researcherPseudonym ?? '', /^Researcher [0-9A-F]{4}$/);
    assert.equal(i?.description, 'informative finding', 'pseudonymising keeps the text');
    await assert.rejects(getReportStatus(db, t.company.id, informative.token), (e) => isAppError(e) && e.code === 'NOT_FOUND');
    assert.equal((await row(spam.id))?.description, REMOVED_TEXT);
    assert.equal((await row(exploitedSpam.id))?.description, 'exploited but closed as not applicable');
    const held = await row(heldSpam.id);
    assert.equal(held?.description, 'held spam text');
    assert.equal(held?.contactEmail, 'hal@researcher.example');
    assert.equal((await row(open.id))?.contactEmail, 'olga@researcher.example');
    const notesOf = async (id: string) => (await listNotes(db, t.company.id, id)).map((n) => n.body);
    assert.deepEqual(await notesOf(informative.id), [`Asked ${i?.researcherPseudonym} which firmware she ran.`], 'a note names the pseudonym');
    assert.deepEqual(await notesOf(spam.id), [REMOVED_TEXT], "a rejected report's notes go with its text");
    assert.deepEqual(await notesOf(heldSpam.id), ['Spam, but counsel wants it kept: hal@researcher.example.'], 'a hold keeps the notes');
    const addressed = await db
      .select({ n: count() })
      .from(auditLog)
      .where(
        and(
          eq(auditLog.companyId, t.company.id),
          sql`${auditLog.at} < ${new Date(now.getTime() - 7 * DAY)}`,
          sql`(${auditLog.ip} is not null or ${auditLog.userAgent} is not null)`,
        ),
      );
    assert.equal(Number(addressed[0]?.n), 0);

    const [audit] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, t.company.id), eq(auditLog.action, 'retention.run')));
    assert.deepEqual(audit?.details, {
      reporter_data: { count: 3, held: 1, keptByCraFloor: 0 },
      rejected_bodies: { count: 1, held: 1, keptByCraFloor: 1 },
      access_records: { count: byRule.access_records?.count, held: 0, keptByCraFloor: 0 },
    });
    assert.doesNotMatch(JSON.stringify(audit), /researcher\.example|watches/);

    const again = await previewRetention(db, ctx, t.company.id, { now });
    assert.deepEqual(
      again.rules.map((r) => [r.count, r.held]),
      [
        [0, 1],
        [0, 1],
        [0, 0],
      ],
    );
  });

  it('keeps CRA technical documentation against the shortest settings, twenty years on', async () => {
    const db = database.db;
    const counts = async () => [await countOf(sboms, t.company.id), await countOf(attestations, t.company.id), await countOf(advisories, t.company.id)];
    const before = await counts();
    assert.deepEqual(before, [1, 1, 1]);
    await runRetention(db, ctx, t.company.id, { now: new Date(Date.now() + 20 * 365 * DAY) });
    assert.deepEqual(await counts(), before);
    const exploited = await row(exploitedSpam.id);
    assert.equal(exploited?.description, 'exploited but closed as not applicable');
    assert.equal(exploited?.activelyExploited, true);
    assert.equal(exploited?.bodyRemovedAt, null);
    const [floor] = await craFloors(db, t.company.id);
    assert.equal(floor?.keptUntil, '2034-06-30T00:00:00.000Z', 'the end of support is later than placement + 10 years');
  });

  it('applies the rules to a report once its hold is released', async () => {
    const db = database.db;
    await releaseHold(db, ctx, t.company.id, holdId);
    await retentionForCompanies(db, operatorContext(), { apply: true, slug: t.company.slug, now: new Date(Date.now() + 31 * DAY) });
    const held = await row(heldSpam.id);
    assert.equal(held?.description, REMOVED_TEXT);
    assert.equal(held?.contactEmail, null);
    assert.deepEqual(
      (await listNotes(db, t.company.id, heldSpam.id)).map((n) => n.body),
      [REMOVED_TEXT],
      'released, the notes go too',
    );
    const actions = (await db.select({ a: auditLog.action }).from(auditLog).where(eq(auditLog.companyId, t.company.id))).map((r) => r.a);
    assert.ok(actions.includes('retention.hold_place') && actions.includes('retention.hold_release'));
  });

  it("refuses other roles in the verb, and another company's hold is not found", async () => {
    const db = database.db;
    for (const role of ['psirt', 'viewer'] as const) {
      const m = await makeMember(db, t.company.id, t.admin.id, role);
      const as: Context = { actor: { type: 'user', id: m.id } };
      for (const call of [
        () => previewRetention(db, as, t.company.id),
        () => runRetention(db, as, t.company.id),
        () => updateRetentionPolicy(db, as, t.company.id, { reporterDataDays: 60 }),
        () => placeHold(db, as, t.company.id, { scope: 'company', reason: 'not mine to place' }),
      ]) {
        await assert.rejects(call(), (e) => isAppError(e) && e.code === 'FORBIDDEN', role);
      }
    }
    const other = await makeTenant(db);
    const hold = await placeHold(db, ctx, other.company.id, { scope: 'company', reason: 'other company' });
    await assert.rejects(releaseHold(db, ctx, t.company.id, hold.id), (e) => isAppError(e) && e.code === 'NOT_FOUND');
    await assert.rejects(
      placeHold(db, ctx, t.company.id, { scope: 'report', target: other.company.id, reason: 'foreign id' }),
      (e) => isAppError(e) && e.code === 'NOT_FOUND',
    );
  });
});

describe('the daily retention job (retention.daily in src/jobs/registry.ts)', () => {
  it("applies each company's rules once a day: a second pass the same day, or on another instance, finds nothing due", async () => {
    const db = database.db;
    const t = await makeTenant(db);
    await updateRetentionPolicy(db, operatorContext(), t.company.id, { rejectedBodyDays: 30 });
    const runs = async () =>
      Number(
        (
          await db
            .select({ n: count() })
            .from(auditLog)
            .where(and(eq(auditLog.companyId, t.company.id), eq(auditLog.action, 'retention.run')))
        )[0]?.n ?? 0,
      );
    const errors: unknown[] = [];
    const log = { info: () => undefined, error: (o: unknown) => void errors.push(o) };
    const now = Date.now();
    await retentionPass(db, log, new Date(now));
    assert.equal(await runs(), 1, 'the first pass runs the company');
    await retentionPass(db, log, new Date(now + 23 * 3_600_000));
    assert.equal(await runs(), 1, 'within the day nothing is due');
    await retentionPass(db, log, new Date(now + 25 * 3_600_000));
    assert.equal(await runs(), 2, 'a day later it runs again');
    assert.deepEqual(errors, []);
  });
});
