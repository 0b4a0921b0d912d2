import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import * as openpgp from 'openpgp';
import { auditLog, mailMessages, outboxEvents } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { unifiedDiffProblem } from '../../../src/modules/cases/unified-diff.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { apiJson, signInCookie, type Tenant, twoKeyedTenants } from '../../helpers/access.js';
import { SITE, type TestApp } from '../../helpers/app.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { makeTestKeys } from '../../helpers/openpgp-keys.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';

const suite = mailSuite();
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;
let a: Tenant;
let b: Tenant;
let keyA: string;
let keyB: string;

const MARK = 'FIXMARK-51c2';
const PATCH = [
  'From 1a2b Mon Sep 17 00:00:00 2001',
  'Subject: [PATCH] dhcp: check the option length',
  '',
  'diff --git a/src/core/ipv4/dhcp.c b/src/core/ipv4/dhcp.c',
  'index 1111111..2222222 100644',
  '--- a/src/core/ipv4/dhcp.c',
  '+++ b/src/core/ipv4/dhcp.c',
  '@@ -10,3 +10,4 @@ dhcp_parse_reply(struct dhcp *dhcp, struct pbuf *p)',
  '   u16_t len = options[1];',
  `+  if (len > sizeof(buf)) return ERR_BUF; /* ${MARK} <len> */`,
  '   memcpy(buf, options + 2, len);',
  '   return ERR_OK;',
  '-- ',
  '2.43.0',
  '',
].join('\n');

type Json = Record<string, unknown> & { id: string };
const api = (key: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown) => apiJson(t, key, method, url, payload);

before(async () => {
  ({ peer, t, o } = await suite.ready);
  ({ a, b, keyA, keyB } = await twoKeyedTenants(t.database.db));
});

describe('unified diff check', () => {
  it('takes git and diff -u output and names the first problem with its line', () => {
    assert.equal(unifiedDiffProblem(PATCH), null);
    assert.equal(unifiedDiffProblem('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n\\ No newline at end of file\n'), null);
    assert.equal(unifiedDiffProblem('Just check the length before memcpy.'), 'no "--- " and "+++ " file headers');
    assert.equal(unifiedDiffProblem('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n'), 'line 3: the hunk ends early (1 old and 1 new lines missing)');
    assert.equal(unifiedDiffProblem('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n+more\n'), 'line 6: unexpected text between the hunks');
    assert.equal(unifiedDiffProblem('--- a/x\n+++ b/x\nhello\n'), 'line 3: a file header must be followed by a hunk ("@@ -a,b +c,d @@")');
    assert.equal(unifiedDiffProblem('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n old\n*new\n'), 'line 5: a hunk line starts with " ", "+", "-" or "\\"');
  });
});

describe('sharing the fix (CRA Article 13(6))', () => {
  it('is attached over REST, shown only to upstream maintainers, and carried by e-mail only when encrypted', async () => {
    const db = t.database.db;
    const report = (await fileReport(db, operatorContext(), a.company, { description: 'REPORTTEXT-9d: overflow in the DHCP client' }, 'api')).report
      .submissionId;
    await updateReport(db, operatorContext(), a.company.id, report, {
      componentPurl: 'pkg:npm/lodash@4.17.20',
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cwe: 'CWE-787',
    });
    const c = (await api(keyA, 'POST', '/cases', { title: 'Overflow in the DHCP client', summary: 'A crafted offer overflows a buffer.', reportIds: [report] }))
      .body as Json;
    const keys = await makeTestKeys('maintainer@dhcp.example');
    const add = async (body: Record<string, string>) => ((await api(keyA, 'POST', `/cases/${c.id}/participants`, body)).body as Json).id;
    await add({ role: 'upstream_maintainer', companySlug: b.company.slug });
    await add({ role: 'upstream_maintainer', email: 'maintainer@dhcp.example', pgpKey: keys.publicKey });
    await add({ role: 'upstream_maintainer', email: 'plain@dhcp.example' });
    await add({ role: 'finder', email: 'finder@example.org' });

    // Refused: not a diff, an over-long description, another company's case, a closed kind.
    const notDiff = await api(keyA, 'POST', `/cases/${c.id}/fixes`, { kind: 'patch', body: 'Check the length first.' });
    assert.equal(notDiff.status, 400);
    assert.deepEqual((notDiff.body as { errors: unknown[] }).errors, [{ path: 'body', message: 'is not a unified diff (no "--- " and "+++ " file headers)' }]);
    const long = await api(keyA, 'POST', `/cases/${c.id}/fixes`, { kind: 'description', body: 'x'.repeat(16 * 1024 + 1) });
    assert.equal(long.status, 400);
    assert.equal((await api(keyA, 'POST', `/cases/${c.id}/fixes`, { kind: 'diff', body: PATCH })).status, 400);
    assert.equal((await api(keyB, 'POST', `/cases/${c.id}/fixes`, { kind: 'patch', body: PATCH })).status, 404);
    assert.equal((await api(keyB, 'GET', `/cases/${c.id}/fixes`)).status, 404);

    const added = await api(keyA, 'POST', `/cases/${c.id}/fixes`, { kind: 'patch', body: PATCH, osvDraft: true });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const fix = added.body as Json & { kind: string; body: string; osvDraft: Record<string, unknown> };
    assert.deepEqual([fix.kind, fix.body], ['patch', PATCH]);

    // The OSV draft holds the fields the OSV schema requires (id, modified) in their formats, and the report's facts.
    const osv = fix.osvDraft as {
      schema_version: string;
      id: string;
      modified: string;
      summary: string;
      details: string;
      severity: { type: string; score: string }[];
      affected: { package: { ecosystem: string; name: string; purl: string }; versions: string[] }[];
      database_specific: { cwe_ids: string[] };
    };
    assert.match(osv.schema_version, /^\d+\.\d+\.\d+$/);
    assert.equal(osv.id, `CRADLE-DRAFT-${c.id}`);
    assert.match(osv.modified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(osv.summary, 'Overflow in the DHCP client');
    assert.equal(osv.details, 'A crafted offer overflows a buffer.');
    assert.deepEqual(osv.severity, [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }]);
    assert.deepEqual(osv.affected, [{ package: { ecosystem: 'npm', name: 'lodash', purl: 'pkg:npm/lodash' }, versions: ['4.17.20'] }]);
    assert.deepEqual(osv.database_specific.cwe_ids, ['CWE-787']);
    assert.ok(!JSON.stringify(osv).includes('REPORTTEXT-9d'), "the draft never quotes the reporter's text");

    const list = (await api(keyA, 'GET', `/cases/${c.id}/fixes`)).body as Json[];
    assert.deepEqual(
      list.map((f) => f.id),
      [fix.id],
    );
    const log = ((await api(keyA, 'GET', `/cases/${c.id}`)).body as { log: { kind: string; details: Record<string, unknown> }[] }).log;
    const entry = log.find((e) => e.kind === 'fix_added');
    assert.deepEqual(entry?.details, { fixId: fix.id, kind: 'patch', bytes: Buffer.byteLength(PATCH), osvDraft: true });
    const audits = await db.select({ details: auditLog.details }).from(auditLog).where(eq(auditLog.companyId, a.company.id));
    assert.ok(!JSON.stringify(audits).includes(MARK), 'no fix text in the audit log');
    // The webhook event: ids, kind and size, never the patch.
    const events = await db
      .select({ payload: outboxEvents.payload })
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, a.company.id), eq(outboxEvents.type, 'case.fix_added')));
    assert.equal(events.length, 1);
    const data = (events[0]?.payload as { data: Record<string, unknown> }).data;
    assert.deepEqual(data, { caseId: c.id, fixId: fix.id, kind: 'patch', bytes: Buffer.byteLength(PATCH), osvDraft: true, createdAt: fix.createdAt });
    assert.ok(!JSON.stringify(events).includes(MARK), 'no fix text in the event');

    // The notices: the encrypted one carries the patch, the link-only ones say a fix waits behind the link.
    const prepared = (await api(keyA, 'POST', `/cases/${c.id}/notices`, {})).body as (Json & { recipient: string; body: string; sharedBody: string | null })[];
    const to = (r: string) => prepared.find((n) => n.recipient.includes(r));
    assert.ok(to('maintainer@dhcp.example')?.body.includes(MARK));
    assert.ok(to('maintainer@dhcp.example')?.body.includes(`CRADLE-DRAFT-${c.id}`), 'with its OSV draft');
    assert.ok(!to('plain@dhcp.example')?.body.includes(MARK));
    assert.match(to('plain@dhcp.example')?.body ?? '', /A fix is shared with you in the case, behind the private link below\./);
    assert.ok(!to('finder@example.org')?.body.includes('A fix'), 'a finder is not offered the fix');
    assert.ok(!to(b.company.slug)?.body.includes(MARK), 'the report filed into B holds no patch: B reads it in its inbound case');
    assert.equal((await api(keyA, 'POST', `/cases/${c.id}/notices/confirm`, { noticeIds: prepared.map((n) => n.id) })).status, 200);

    const before = peer.arrived.length;
    await runMailPass(db, o);
    await peer.waitFor(before + 3);
    const arrived = peer.arrived.slice(before);
    const mailTo = (r: string) => arrived.find((m) => m.envelopeTo.includes(r));
    const plain = mailTo('plain@dhcp.example');
    const finder = mailTo('finder@example.org');
    const enc = mailTo('maintainer@dhcp.example');
    assert.ok(plain && finder && enc);
    assert.ok(!plain.raw.includes(MARK) && !plain.raw.includes('dhcp_parse_reply'), 'no fix text in a link-only mail');
    assert.match(plain.parsed.text ?? '', /A fix is shared with you in the case, behind the private link below\./);
    assert.ok(!enc.raw.includes(MARK), 'nor in clear in the encrypted one');
    const decrypted = await openpgp.decrypt({
      message: await openpgp.readMessage({ armoredMessage: enc.parsed.text ?? '' }),
      decryptionKeys: await openpgp.readPrivateKey({ armoredKey: keys.privateKey }),
    });
    assert.ok(String(decrypted.data).includes(MARK), 'the maintainer decrypts the patch');
    const queued = await db.select({ data: mailMessages.data }).from(mailMessages).where(eq(mailMessages.kind, 'case.notice'));
    assert.ok(!JSON.stringify(queued).includes(MARK), 'the mail queue never held the fix in clear');

    // Behind the links: the upstream maintainer sees the patch (escaped), the finder does not.
    const linkOf = (text: string | undefined) => /http:\/\/localhost:3000(\/coordination\/[0-9a-f]{64})/.exec(text ?? '')?.[1] ?? '';
    const get = (url: string) => t.app.inject({ url, headers: { host: SITE } });
    const upstreamView = await get(linkOf(plain.parsed.text));
    assert.equal(upstreamView.statusCode, 200);
    assert.match(upstreamView.body, /<h2>Fixes shared with you<\/h2>/);
    assert.ok(upstreamView.body.includes(`/* ${MARK} &lt;len&gt; */`), 'the patch is shown, escaped');
    assert.ok(upstreamView.body.includes(`CRADLE-DRAFT-${c.id}`));
    const finderView = await get(linkOf(finder.parsed.text));
    assert.equal(finderView.statusCode, 200);
    assert.ok(!finderView.body.includes(MARK) && !finderView.body.includes('Fixes shared with you'));

    // B, upstream on this instance, reads it in its inbound case, over the API and on its dashboard.
    const [ib] = (await api(keyB, 'GET', '/inbound-cases')).body as { participantId: string }[];
    assert.ok(ib);
    const shared = (await api(keyB, 'GET', `/inbound-cases/${ib.participantId}`)).body as { fixes: Record<string, unknown>[] };
    assert.deepEqual(
      shared.fixes.map((f) => [f.id, f.kind, f.body, 'createdBy' in f]),
      [[fix.id, 'patch', PATCH, false]],
    );
    const bPage = await dashboardClient(t, await signInCookie(t, b.admin.email)).page(`/cases/inbound/${ib.participantId}`);
    assert.equal(bPage.statusCode, 200);
    assert.ok(bPage.body.includes(`/* ${MARK} &lt;len&gt; */`));
  });

  it('is attached on the case page: a refused patch comes back as typed with a sentence; a description with its OSV draft is shown', async () => {
    const db = t.database.db;
    const report = (await fileReport(db, operatorContext(), a.company, { description: 'Telnet left open' }, 'api')).report.submissionId;
    const c = (await api(keyA, 'POST', '/cases', { title: 'Telnet in the bundled busybox', reportIds: [report] })).body as Json;
    const client = dashboardClient(t, await signInCookie(t, a.admin.email));
    const typed = '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-<old>\n';
    const refused = await client.form(`/cases/${c.id}/fixes`, { fixKind: 'patch', fixBody: typed });
    assert.equal(refused.statusCode, 400);
    assert.ok(refused.body.includes('>--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-&lt;old&gt;\n</textarea>'), 'the typed patch comes back, escaped');
    assert.match(refused.body, /Not done: The patch or description is not a unified diff \(line 3: the hunk ends early \(1 old and 2 new lines missing\)\)\./);
    assert.match(refused.body, /<option value="patch" selected>/);
    assert.equal(((await api(keyA, 'GET', `/cases/${c.id}/fixes`)).body as unknown[]).length, 0, 'nothing stored');

    const done = await client.form(`/cases/${c.id}/fixes`, { fixKind: 'description', fixBody: 'Disable telnetd in the <rootfs> build.', osvDraft: 'yes' });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, `/cases/${c.id}?done=fix`);
    const page = await client.page(`/cases/${c.id}`);
    assert.match(page.body, /Fix 1: fix description/);
    assert.ok(page.body.includes('Disable telnetd in the &lt;rootfs&gt; build.'));
    assert.ok(page.body.includes(`&quot;id&quot;: &quot;CRADLE-DRAFT-${c.id}&quot;`) || page.body.includes(`"id": "CRADLE-DRAFT-${c.id}"`));
    assert.match(page.body, /fix added/, 'the timeline shows the entry');
  });
});
