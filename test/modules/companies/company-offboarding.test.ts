import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../../src/db/client.js';
import { companyDigest, purgeDueCompanies } from '../../../src/modules/companies/purge-company.js';
import { addParticipant } from '../../../src/modules/cases/add-participant.js';
import { prepareNotices } from '../../../src/modules/cases/case-notices.js';
import { confirmNotices } from '../../../src/modules/cases/confirm-notices.js';
import { getCase } from '../../../src/modules/cases/get-case.js';
import { openCase } from '../../../src/modules/cases/open-case.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { runCommand } from '../../../src/operator/commands.js';
import { makeKey, makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';

/**
 * Issue 35 part 6: `cradle company delete` suspends a company, `--undo` brings it back within the
 * grace period, and the purge leaves no row of it in any table and no text naming its id or slug,
 * while another company is untouched.
 */
type Row = Record<string, unknown>;
const rows = async (db: Db, q: ReturnType<typeof sql>): Promise<Row[]> => ((await db.execute(q)) as unknown as { rows: Row[] }).rows;

/** Every base table with a company_id column, from the catalogue (tables added later count too). */
async function companyTables(db: Db): Promise<string[]> {
  const r = await rows(
    db,
    sql`select c.table_name as t from information_schema.columns c join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema and t.table_type = 'BASE TABLE' where c.table_schema = 'public' and c.column_name = 'company_id' order by 1`,
  );
  return r.map((x) => String(x.t));
}

async function countsFor(db: Db, companyId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of await companyTables(db)) {
    const [r] = await rows(db, sql`select count(*)::int as n from ${sql.raw(`"${t}"`)} where company_id = ${companyId}`);
    out[t] = Number(r?.n);
  }
  const [c] = await rows(db, sql`select count(*)::int as n from companies where id = ${companyId}`);
  out.companies = Number(c?.n);
  return out;
}

/** Every column of every table whose text could hold a name: where the needle appears. */
async function textMentions(db: Db, needle: string): Promise<string[]> {
  const cols = await rows(
    db,
    sql`select c.table_schema as s, c.table_name as t, c.column_name as c from information_schema.columns c join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema and t.table_type = 'BASE TABLE'
         where c.table_schema in ('public', 'drizzle') and c.data_type in ('text', 'character varying', 'jsonb', 'json', 'uuid', 'ARRAY', 'bytea')`,
  );
  const found: string[] = [];
  for (const { s, t, c } of cols) {
    const [r] = await rows(
      db,
      sql`select count(*)::int as n from ${sql.raw(`"${String(s)}"."${String(t)}"`)} where position(${needle} in ${sql.raw(`"${String(c)}"`)}::text) > 0`,
    );
    if (Number(r?.n) > 0) found.push(`${String(t)}.${String(c)}`);
  }
  return found;
}

describe('company offboarding', () => {
  let t: TestApp;
  let gone: Tenant;
  let kept: Tenant;
  let goneKey = '';
  let keptKey = '';
  let goneCookie = '';
  let keptCookie = '';
  const env = () => ({ vulndb: t.config.vulndb, graceDays: 30 });
  const api = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({ method, url: `/api/v1${url}`, headers: { host: 'localhost:3000', authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });
  const portal = (slug: string) => t.app.inject({ method: 'GET', url: '/', headers: { host: `${slug}.localhost:3000` } });

  before(async () => {
    t = await createTestApp();
    gone = await makeTenant(t.database.db);
    kept = await makeTenant(t.database.db);
    goneKey = (await makeKey(t.database.db, gone)).key;
    keptKey = (await makeKey(t.database.db, kept)).key;
    goneCookie = await signInCookie(t, gone.admin.email);
    keptCookie = await signInCookie(t, kept.admin.email);
    for (const key of [goneKey, keptKey]) {
      const res = await api(key, 'POST', '/vulnerabilities', {
        description: 'Command injection in the diagnostics page of router R7',
        productName: 'Router R7',
      });
      assert.equal(res.statusCode, 201, res.body);
    }
  });
  after(() => t?.close());

  it('suspends the portal and the API at once, and --undo restores both', async () => {
    const asked = (await runCommand(t.database.db, 'company.delete', { slug: gone.company.slug }, env())) as { dueAt: string; purged: unknown };
    const days = (Date.parse(asked.dueAt) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `due in the grace period (${days} days)`);
    assert.equal(asked.purged, null);

    const refused = await api(goneKey, 'GET', '/vulnerabilities/export');
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json().detail, /^this company is suspended/);
    const page = await portal(gone.company.slug);
    assert.equal(page.statusCode, 403);
    assert.match(page.body, /is suspended and takes no reports/);
    // A member signed in before the request is refused on the next page (checked per request, not at sign-in).
    const member = dashboardClient(t, goneCookie);
    const refusedPage = await member.page('/reports');
    assert.equal(refusedPage.statusCode, 403);
    assert.match(refusedPage.body, /your company is suspended/);
    assert.equal((await dashboardClient(t, keptCookie).page('/reports')).statusCode, 200, "the other company's dashboard is served");
    assert.equal((await api(keptKey, 'GET', '/vulnerabilities/export')).statusCode, 200, 'the other company is served');
    assert.equal((await portal(kept.company.slug)).statusCode, 200);
    assert.equal(await purgeDueCompanies(t.database.db), 0, 'nothing is purged inside the grace period');

    const undone = (await runCommand(t.database.db, 'company.delete', { slug: gone.company.slug, undo: true }, env())) as { cancelled: boolean };
    assert.equal(undone.cancelled, true);
    assert.equal((await member.page('/reports')).statusCode, 200, 'the dashboard is back');
    const back = await api(goneKey, 'GET', '/vulnerabilities/export');
    assert.equal(back.statusCode, 200);
    assert.equal((back.json() as { reports: unknown[] }).reports.length, 1);
    assert.equal((await portal(gone.company.slug)).statusCode, 200);
  });

  it('purges when the grace period ends: no row and no text of the company remains, the other company is untouched', async () => {
    const db = t.database.db;
    // The other company's coordination case notified this one (docs/coordination.md "Channels", cradle):
    // after the purge that case keeps its own record of a participant, but nothing naming the purged company.
    const ctx = operatorContext();
    const k = await openCase(db, ctx, kept.company.id, { title: 'Shared component flaw' });
    const peer = await addParticipant(db, ctx, kept.company.id, k.id, { role: 'upstream_maintainer', companySlug: gone.company.slug, name: 'Upstream vendor' });
    const prepared = await prepareNotices(db, ctx, kept.company.id, k.id, {});
    await confirmNotices(db, ctx, kept.company.id, k.id, { noticeIds: prepared.map((n) => n.id) }, { siteUrl: 'http://localhost:3000' });
    const keptBefore = await countsFor(db, kept.company.id);
    const goneBefore = await countsFor(db, gone.company.id);
    assert.ok(
      goneBefore.reports === 2 && goneBefore.api_keys === 1 && goneBefore.audit_log! > 0,
      'the company had data to purge (its own report and the case notice filed into its inbox)',
    );
    assert.deepEqual(await textMentions(db, gone.company.slug).then((f) => f.length > 0), true, 'the slug is in the database before');

    await runCommand(db, 'company.delete', { slug: gone.company.slug }, env());
    assert.equal(await purgeDueCompanies(db, new Date(Date.now() + 31 * 86_400_000)), 1);

    const goneAfter = await countsFor(db, gone.company.id);
    assert.deepEqual(
      Object.entries(goneAfter).filter(([, n]) => n !== 0),
      [],
      'no table holds a row of the company',
    );
    assert.deepEqual(await textMentions(db, gone.company.id), [], 'no text names its id');
    assert.deepEqual(await textMentions(db, gone.company.slug), [], 'no text names its slug');
    assert.deepEqual(await countsFor(db, kept.company.id), keptBefore, 'the other company keeps every row');
    const after = (await getCase(db, kept.company.id, k.id)).participants.find((x) => x.id === peer.id);
    assert.ok(after, "the other company's case keeps its participant");
    assert.equal(after.channel, 'none', 'a purged company can no longer be notified');
    const record = await rows(db, sql`select company_digest, rows_deleted from company_deletions`);
    assert.equal(record.length, 1);
    assert.equal(record[0]?.company_digest, companyDigest(gone.company.id));
    assert.ok(Number(record[0]?.rows_deleted) >= 4);
    assert.equal((await api(goneKey, 'GET', '/vulnerabilities/export')).statusCode, 401, 'its keys are gone');
    assert.equal((await portal(gone.company.slug)).statusCode, 404);
    assert.equal((await api(keptKey, 'GET', '/vulnerabilities/export')).statusCode, 200);
  });

  it('--now purges at once', async () => {
    const third = await makeTenant(t.database.db);
    const r = (await runCommand(t.database.db, 'company.delete', { slug: third.company.slug, now: true }, env())) as { purged: { rowsDeleted: number } };
    assert.ok(r.purged.rowsDeleted >= 2);
    assert.deepEqual(
      Object.entries(await countsFor(t.database.db, third.company.id)).filter(([, n]) => n !== 0),
      [],
    );
    const undo = await runCommand(t.database.db, 'company.delete', { slug: third.company.slug, undo: true }, env()).catch((e: Error) => e.message);
    assert.equal(undo, `company "${third.company.slug}" not found`);
  });
});
