import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { generateKey } from 'openpgp';
import { portalUrl } from '../../../src/config.js';
import { advisories, advisoryDocuments, erasureRequests, reports } from '../../../src/db/schema/index.js';
import { selectRows } from '../../../src/db/sql-rows.js';
import { requestLogSerializer } from '../../../src/http/log-serializers.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { publishAdvisory } from '../../../src/modules/advisories/release-advisory.js';
import { updateAdvisory } from '../../../src/modules/advisories/update-advisory.js';
import { exportCompanyData } from '../../../src/modules/export/export-company.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { listMessages, postMessage } from '../../../src/modules/messages/messages.js';
import { getReport } from '../../../src/modules/reports/get-report.js';
import { addNote, listNotes } from '../../../src/modules/reports/report-notes.js';
import { reportHistory } from '../../../src/modules/reports/report-history.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { dispatchOutbox } from '../../../src/modules/webhooks/dispatch-outbox.js';
import { makeTenant, type Tenant } from '../../helpers/access.js';
import { readyDraft, testTarget } from '../../helpers/advisories.js';
import { portalHost, type TestApp } from '../../helpers/app.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';

const NAME = 'Ada Lovelace';
const EMAIL = 'ada.lovelace@researcher.example';
const UA = 'AdaBrowser/7.7 (X11; Unique-UA-5150)';
const IP = '192.0.2.151';
const NEEDLES = [NAME, 'Lovelace', EMAIL, UA, IP];

const suite = mailSuite();
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;
before(async () => {
  ({ peer, t, o } = await suite.ready);
});

async function deliverAll(): Promise<void> {
  await dispatchOutbox(t.database.db, new Date(), { mail: true });
  for (let i = 0; i < 20; i++) if (Object.keys(await runMailPass(t.database.db, o)).length === 0) return;
}

/** Every text, JSON and text-array column of every table, with the rows that mention any needle. */
async function scanEveryTable(): Promise<string[]> {
  const cols = await selectRows<{ table_name: string; column_name: string }>(
    t.database.db,
    sql`select table_name, column_name from information_schema.columns where table_schema = 'public'
      and data_type in ('text', 'character varying', 'jsonb', 'json', 'ARRAY') order by table_name, column_name`,
  );
  assert.ok(cols.length > 50, 'the scan reads the real schema');
  const hits: string[] = [];
  for (const c of cols) {
    for (const n of NEEDLES) {
      const [r] = await selectRows<{ n: number }>(
        t.database.db,
        sql`select count(*)::int as n from ${sql.identifier(c.table_name)} where ${sql.identifier(c.column_name)}::text ilike ${`%${n}%`}`,
      );
      if (Number(r?.n) > 0) hits.push(`${c.table_name}.${c.column_name}: ${n}`);
    }
  }
  return hits;
}

describe("a researcher's erasure through the status link", () => {
  let a: Tenant;
  let reportId: string;
  let secondId: string;
  let statusPath: string;
  let origin: string;

  before(async () => {
    a = await makeTenant(t.database.db);
    origin = portalUrl(t.config, a.company.slug);
    const keys = await generateKey({ userIDs: [{ name: NAME, email: EMAIL }], type: 'curve25519', format: 'armored' });
    const file = async (description: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/submit',
        headers: { host: portalHost(a.company.slug), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', 'user-agent': UA },
        payload: new URLSearchParams({ description, contactEmail: EMAIL, pgpKey: keys.publicKey, researcherUpdates: 'on' }).toString(),
        remoteAddress: IP,
      });
      assert.equal(res.statusCode, 200, res.body);
      return { id: /id="submission-id">([^<]+)</.exec(res.body)?.[1] ?? '', link: /id="status-link" href="([^"]+)"/.exec(res.body)?.[1] ?? '' };
    };
    const first = await file(`Heap overflow in the parser. Found by ${NAME} (${EMAIL}).`);
    const second = await file('A second finding, same researcher.');
    reportId = first.id;
    secondId = second.id;
    statusPath = new URL(first.link).pathname;
    const [row] = await t.database.db.select({ token: reports.researcherMailToken }).from(reports).where(eq(reports.id, reportId));
    const confirm = await t.app.inject({
      method: 'POST',
      url: `/mail/confirm/${reportId}/${row?.token}`,
      headers: { host: portalHost(a.company.slug), origin, 'user-agent': UA },
      remoteAddress: IP,
    });
    assert.equal(confirm.statusCode, 200);
    const say = await t.app.inject({
      method: 'POST',
      url: statusPath,
      headers: { host: portalHost(a.company.slug), origin, 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA },
      payload: new URLSearchParams({ body: `Happy to help. Regards, ${NAME}` }).toString(),
      remoteAddress: IP,
    });
    assert.equal(say.statusCode, 303, say.body);
    const db = t.database.db;
    await postMessage(db, { actor: { type: 'user', id: a.admin.id } }, a.company.id, reportId, 'company', { body: `Thanks ${NAME}, we reproduced it.` });
    await addNote(db, { actor: { type: 'user', id: a.admin.id } }, a.company.id, reportId, {
      body: `Called ${NAME} at ${EMAIL}: the proof of concept needs the debug port.`,
    });
    await updateReport(db, operatorContext(), a.company.id, reportId, { status: 'accepted' });
    await updateReport(db, operatorContext(), a.company.id, reportId, { status: 'fixed' });
    const draft = await readyDraft(db, a.company, reportId);
    await updateAdvisory(db, operatorContext(), a.company, testTarget(a.company).distributionUrl, draft.id, {
      acknowledgments: [{ name: NAME, consent: true }],
    });
    await publishAdvisory(db, operatorContext(), testTarget(a.company), draft.id);
    await deliverAll();
    assert.ok(
      peer.arrived.some((m) => m.envelopeTo.includes(EMAIL)),
      'the researcher got mail before',
    );
  });

  it('asks for confirmation first, then erases and says so on the status page', async () => {
    const host = portalHost(a.company.slug);
    const ask = await t.app.inject({ method: 'GET', url: `${statusPath}/erase`, headers: { host } });
    assert.equal(ask.statusCode, 200);
    assert.match(ask.body, /Erase your personal data\?/);
    assert.match(ask.body, /Article 13\(13\)/);
    const unconfirmed = await t.app.inject({
      method: 'POST',
      url: `${statusPath}/erase`,
      headers: { host, origin, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(unconfirmed.statusCode, 303);
    assert.equal(
      (await t.database.db.select().from(erasureRequests).where(eq(erasureRequests.companyId, a.company.id))).length,
      0,
      'nothing without the confirmation',
    );
    const foreign = await t.app.inject({
      method: 'POST',
      url: `${statusPath}/erase`,
      headers: { host, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'confirm=yes',
    });
    assert.equal(foreign.statusCode, 403);

    const before = peer.arrived.length;
    const res = await t.app.inject({
      method: 'POST',
      url: `${statusPath}/erase`,
      headers: { host, origin, 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA },
      payload: 'confirm=yes',
      remoteAddress: IP,
    });
    assert.equal(res.statusCode, 303, res.body);
    const page = await t.app.inject({ method: 'GET', url: statusPath, headers: { host, 'user-agent': UA }, remoteAddress: IP });
    assert.equal(page.statusCode, 200, 'the status link keeps working');
    const pseudonym = /<strong>(Researcher [0-9A-F]{4})<\/strong>/.exec(page.body)?.[1];
    assert.ok(pseudonym, 'the page names the pseudonym');
    assert.match(page.body, /Your personal data was erased/);
    assert.ok(!NEEDLES.some((n) => page.body.includes(n)), 'the status page shows none of it');

    // Told once by mail, because the address was confirmed; then nothing more.
    await deliverAll();
    const notice = peer.arrived.slice(before).filter((m) => m.envelopeTo.includes(EMAIL));
    assert.equal(notice.length, 1);
    assert.match(notice[0]?.raw ?? '', new RegExp(pseudonym));
  });

  it('leaves the report, thread, team notes and history readable under one pseudonym', async () => {
    const db = t.database.db;
    const [req] = await db.select().from(erasureRequests).where(eq(erasureRequests.companyId, a.company.id));
    assert.equal(req?.reportCount, 2, 'both reports from the same address');
    assert.equal(req?.channel, 'researcher');
    const pseudonym = req?.pseudonym ?? '';
    const report = await getReport(db, a.company.id, reportId);
    assert.equal(report.contactEmail, null);
    assert.equal(report.description, `Heap overflow in the parser. Found by ${pseudonym} (${pseudonym}).`);
    const second = await getReport(db, a.company.id, secondId);
    assert.equal(second.description, 'A second finding, same researcher.');
    const thread = await listMessages(db, a.company.id, reportId);
    assert.deepEqual(
      thread.map((m) => [m.author, m.body]),
      [
        ['researcher', `Happy to help. Regards, ${pseudonym}`],
        ['company', `Thanks ${pseudonym}, we reproduced it.`],
      ],
    );
    const notes = await listNotes(db, a.company.id, reportId);
    assert.deepEqual(
      notes.map((n) => [n.authorId, n.body]),
      [[a.admin.id, `Called ${pseudonym} at ${pseudonym}: the proof of concept needs the debug port.`]],
      "the team's note names the pseudonym; its author is kept",
    );
    const history = await reportHistory(db, a.company.id, reportId);
    assert.deepEqual(history.map((h) => h.toStatus).filter(Boolean), ['accepted', 'fixed', 'disclosed']);
    const [adv] = await db.select().from(advisories).where(eq(advisories.reportId, reportId));
    assert.deepEqual(adv?.acknowledgments, [], 'the next revision carries no credit');
  });

  it('leaves no trace in any table except the advisory released before the request, nor in the export', async () => {
    const hits = await scanEveryTable();
    assert.deepEqual([...new Set(hits.map((h) => h.split(':')[0]))], ['advisory_documents.content'], hits.join('\n'));
    const released = await t.database.db
      .select({ version: advisoryDocuments.version })
      .from(advisoryDocuments)
      .where(and(eq(advisoryDocuments.companyId, a.company.id), sql`${advisoryDocuments.content} like ${`%${NAME}%`}`));
    assert.ok(released.length > 0 && released.every((d) => d.version === 1), 'only the document released before the erasure, as released');

    const chunks: Buffer[] = [];
    for await (const c of await exportCompanyData(t.database.db, operatorContext(), a.company.id)) chunks.push(Buffer.from(c));
    const exported = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const { advisoryDocuments: docs, ...rest } = exported;
    assert.ok(Array.isArray(docs));
    const text = JSON.stringify(rest);
    assert.ok(text.includes(reportId));
    assert.deepEqual(
      NEEDLES.filter((n) => text.includes(n)),
      [],
    );
  });

  it('writes nothing afterwards that names them: mail to the team, audit, request log', async () => {
    const db = t.database.db;
    const before = peer.arrived.length;
    await postMessage(db, { actor: { type: 'user', id: a.admin.id } }, a.company.id, reportId, 'company', { body: 'Fix ships next week.' });
    await t.app.inject({
      method: 'POST',
      url: statusPath,
      headers: { host: portalHost(a.company.slug), origin, 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA },
      payload: new URLSearchParams({ body: 'Great, thanks.' }).toString(),
      remoteAddress: IP,
    });
    await deliverAll();
    const later = peer.arrived.slice(before);
    assert.ok(later.length > 0, 'the team was told of the researcher message');
    assert.ok(later.every((m) => !m.envelopeTo.includes(EMAIL)));
    assert.deepEqual(
      later.flatMap((m) => NEEDLES.filter((n) => m.raw.includes(n))),
      [],
    );
    assert.deepEqual(await scanEveryTable().then((h) => h.filter((x) => !x.startsWith('advisory_documents.'))), []);
    const logged = requestLogSerializer({ method: 'GET', url: statusPath, host: portalHost(a.company.slug), ip: IP } as never);
    assert.equal(JSON.stringify(logged).includes(IP), false);
    assert.match(String(logged.url), /\/status\/\[redacted\]/);
  });
});
