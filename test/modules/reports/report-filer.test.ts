import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../../src/db/client.js';
import { currentScope, inCompany, scopeSetting } from '../../../src/db/tenant-scope.js';
import type { Context } from '../../../src/kernel/context.js';
import { newId, sha256Hex } from '../../../src/kernel/ids.js';
import type { Company } from '../../../src/modules/companies/companies.schemas.js';
import { updateCompany } from '../../../src/modules/companies/update-company.js';
import { createReportFiler, type FileReportResult, type ReportFiler } from '../../../src/modules/reports/file-report.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';
import { intakeState } from '../../helpers/intake.js';

let d: TestDatabase;
let filer: ReportFiler;
before(async () => {
  d = await createTestDatabase();
  filer = createReportFiler(d);
});
after(async () => {
  await filer.drain();
  await d.drop();
});

const ctx: Context = { actor: { type: 'public' }, requestId: 'req-7', ip: '198.51.100.7', userAgent: 'test' };
const file = (company: Company, description: string): Promise<FileReportResult> => filer.file({ ctx, company, fields: { description }, source: 'portal_form' });

async function rows<T>(db: Db, q: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(q)) as unknown as { rows: T[] }).rows;
}

/** The transaction ids that wrote these rows: one value means one transaction. */
async function writers(ids: string[]): Promise<Set<string>> {
  const list = sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const texts = ids.map((id) => sql`${id}`);
  const found = await rows<{ x: string }>(
    d.db,
    sql`select xmin::text as x from reports where id in (${list})
      union all select xmin::text from outbox_events where (payload->'data'->>'submissionId')::uuid in (${list})
      union all select xmin::text from audit_log where target_id in (${sql.join(texts, sql`, `)})`,
  );
  assert.equal(found.length, ids.length * 3, 'a report row, an outbox event and an audit row per filing');
  return new Set(found.map((r) => r.x));
}

describe('report filer (group commit)', () => {
  it('files concurrent reports of two companies in one transaction, each with every side effect in its own company', async () => {
    const acme = await makeCompany(d.db, { aiTriage: true });
    const beta = await makeCompany(d.db);
    const filed = await Promise.all([file(acme, 'acme 1'), file(beta, 'beta 1'), file(acme, 'acme 2'), file(beta, 'beta 2'), file(acme, 'acme 3')]);
    const ids = filed.map((f) => f.report.submissionId);
    assert.equal((await writers(ids)).size, 1, 'all five filings and their side effects committed together');

    for (const [company, mine, triage] of [
      [acme, [0, 2, 4], true],
      [beta, [1, 3], false],
    ] as const) {
      const s = await intakeState(d.db, company.id);
      const expected = mine.map((i) => filed[i] as FileReportResult);
      assert.deepEqual(s.reports.map((r) => r.id).sort(), expected.map((f) => f.report.submissionId).sort(), 'each report in its own company only');
      assert.deepEqual(s.reports.map((r) => r.description).sort(), expected.map((f) => f.report.description).sort());
      assert.deepEqual(
        s.events.map((e) => e.payload).sort((a, b) => String(a.data.submissionId).localeCompare(String(b.data.submissionId))),
        expected
          .map((f) => ({ type: 'vulnerability.reported', timestamp: f.report.createdAt, data: f.report }))
          .sort((a, b) => a.data.submissionId.localeCompare(b.data.submissionId)),
        'one outbox event per report, carrying that report',
      );
      assert.deepEqual(s.jobs.map((j) => j.reportId).sort(), triage ? expected.map((f) => f.report.submissionId).sort() : []);
      const audits = s.audits.filter((a) => a.action === 'reports.file');
      assert.deepEqual(audits.map((a) => a.targetId).sort(), expected.map((f) => f.report.submissionId).sort());
      assert.ok(audits.every((a) => a.ip === ctx.ip && a.requestId === ctx.requestId && a.actorType === 'public'));
      assert.deepEqual(
        audits.map((a) => a.details),
        expected.map(() => ({ source: 'portal_form', triageQueued: triage })),
      );
      // The milestone: set once per company, to its earliest report of the batch.
      const first = [...expected].sort((a, b) => a.report.createdAt.localeCompare(b.report.createdAt))[0] as FileReportResult;
      assert.equal(s.firstReportAt?.toISOString(), first.report.createdAt);
      const milestone = s.audits.filter((a) => a.action === 'companies.first_report');
      assert.equal(milestone.length, 1);
      assert.equal(milestone[0]?.targetId, company.id);
    }
  });

  it('answers each filing only with its own status token, stored as its own digest', async () => {
    const acme = await makeCompany(d.db);
    const filed = await Promise.all([file(acme, 'one'), file(acme, 'two')]);
    assert.notEqual(filed[0]?.statusToken, filed[1]?.statusToken);
    const s = await intakeState(d.db, acme.id);
    for (const f of filed) {
      assert.equal(s.reports.find((r) => r.id === f.report.submissionId)?.statusTokenDigest, sha256Hex(f.statusToken));
    }
  });

  it('stores the others when one filing of the batch fails, and nothing of the failed one', async () => {
    const acme = await makeCompany(d.db, { aiTriage: true });
    const beta = await makeCompany(d.db);
    await d.ddl(`create or replace function fail_poison() returns trigger language plpgsql as $$
      begin if new.description = 'poison' then raise exception 'disk full'; end if; return new; end $$`);
    await d.ddl('create trigger fail_poison before insert on reports for each row execute function fail_poison()');
    try {
      const outcomes = await Promise.allSettled([file(acme, 'good a'), file(beta, 'good b'), file(acme, 'poison'), file(beta, 'good c')]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      const a = await intakeState(d.db, acme.id);
      const b = await intakeState(d.db, beta.id);
      assert.deepEqual(
        a.reports.map((r) => r.description),
        ['good a'],
      );
      assert.deepEqual(b.reports.map((r) => r.description).sort(), ['good b', 'good c']);
      assert.deepEqual(
        [a.events.length, a.jobs.length, a.audits.filter((x) => x.action === 'reports.file').length],
        [1, 1, 1],
        'no side effect of the failed filing',
      );
      assert.deepEqual([b.events.length, b.audits.filter((x) => x.action === 'reports.file').length], [2, 2]);
      // The milestone is the stored report's, not the failed one's.
      assert.equal(a.firstReportAt?.toISOString(), (outcomes[0] as PromiseFulfilledResult<FileReportResult>).value.report.createdAt);
    } finally {
      await d.ddl('drop trigger fail_poison on reports');
    }
  });

  it('refuses a filing into a company that does not exist without affecting the others', async () => {
    const acme = await makeCompany(d.db);
    const ghost: Company = { ...acme, id: newId(), slug: 'ghost' };
    const outcomes = await Promise.allSettled([file(acme, 'real'), file(ghost, 'nowhere')]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected'],
    );
    assert.equal((await intakeState(d.db, acme.id)).reports.length, 1);
    assert.deepEqual(await rows(d.db, sql`select 1 from audit_log where company_id = ${ghost.id}::uuid`), []);
  });

  it('takes AI triage and the milestone from the company row, not from a stale company object', async () => {
    const c = await makeCompany(d.db);
    const stale = { ...c };
    const first = await file(c, 'first');
    await updateCompany(d.db, { actor: { type: 'operator' } }, c.slug, { aiTriage: true });
    // `stale` still says: AI triage off, no first report yet.
    const second = await file(stale, 'second');
    const s = await intakeState(d.db, c.id);
    assert.deepEqual(
      s.jobs.map((j) => j.reportId),
      [second.report.submissionId],
    );
    assert.deepEqual(
      s.audits.filter((a) => a.action === 'reports.file').map((a) => a.details),
      [
        { source: 'portal_form', triageQueued: false },
        { source: 'portal_form', triageQueued: true },
      ],
    );
    assert.equal(s.firstReportAt?.toISOString(), first.report.createdAt, 'the milestone does not move');
    assert.equal(s.audits.filter((a) => a.action === 'companies.first_report').length, 1);
  });

  it('writes a batch as Cradle’s own cross-company code, whichever request started it', async () => {
    const acme = await makeCompany(d.db);
    const beta = await makeCompany(d.db);
    const seen: string[] = [];
    // The real database, watched: records the tenant scope in force at each statement.
    const watched = new Proxy(d.db, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop !== 'execute' || typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          seen.push(scopeSetting(currentScope()));
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const watchedFiler = createReportFiler({ db: watched, kind: d.kind });
    await Promise.all([
      inCompany(acme.id, () => watchedFiler.file({ ctx, company: acme, fields: { description: 'from acme’s request' }, source: 'portal_form' })),
      inCompany(beta.id, () => watchedFiler.file({ ctx, company: beta, fields: { description: 'from beta’s request' }, source: 'portal_form' })),
    ]);
    assert.deepEqual(seen, ['*'], 'one statement, run as system');
    assert.equal((await intakeState(d.db, beta.id)).reports.length, 1);
  });
});
