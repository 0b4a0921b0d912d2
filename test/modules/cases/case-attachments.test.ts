import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { auditLog, caseAttachments, caseMessages, caseParticipants, cases, outboxEvents } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { sha256Hex } from '../../../src/kernel/ids.js';
import { attachmentDisposition, sanitiseFilename, sniffMediaType } from '../../../src/modules/cases/attachment-file.js';
import { requestCompanyDeletion } from '../../../src/modules/companies/delete-company.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { apiJson, makeKey, makeTenant, signInCookie, type Tenant, twoKeyedTenants } from '../../helpers/access.js';
import { csrfOf } from '../../helpers/dashboard.js';
import { createTestApp, SITE, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let a: Tenant;
let b: Tenant;
let keyA: string;
let keyB: string;

const MARK = 'ATTACHMARK-3c1e';
const MiB = 1024 * 1024;
type Json = Record<string, unknown> & { id: string };
type FileJson = { id: string; messageId: string; filename: string; contentType: string; size: number; sha256: string };
type MessageJson = Json & { body: string; attachments: FileJson[] };

const api = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown) => apiJson(t, key, method, url, payload);
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 7)]);
const POC = `#!/usr/bin/env python3\n# ${MARK}\nprint("overflow")\n`;

/** A multipart/form-data body as a browser sends it: fields first, then the files. */
function multipart(fields: Record<string, string>, files: { name: string; content: Buffer }[]) {
  const boundary = `----cradle${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${f.name}"\r\nContent-Type: text/html\r\n\r\n`));
    parts.push(f.content, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

/** A case of A with B (a company on this instance, notified) and two e-mail participants, each with a private link we hold. */
async function caseWithParticipants(title: string) {
  const report = (await fileReport(t.database.db, operatorContext(), a.company, { description: `Report for ${title}` }, 'api')).report.submissionId;
  const c = (await api(keyA, 'POST', '/cases', { title, reportIds: [report] })).body as Json;
  const add = async (body: Record<string, string>) => ((await api(keyA, 'POST', `/cases/${c.id}/participants`, body)).body as Json).id;
  const pB = await add({ role: 'upstream_maintainer', companySlug: b.company.slug });
  const pX = await add({ role: 'upstream_maintainer', email: 'x@upstream.example' });
  const pY = await add({ role: 'other_vendor', email: 'y@vendor.example' });
  const [n] = (await api(keyA, 'POST', `/cases/${c.id}/notices`, { participantIds: [pB] })).body as Json[];
  assert.equal((await api(keyA, 'POST', `/cases/${c.id}/notices/confirm`, { noticeIds: [n?.id] })).status, 200);
  // The e-mail participants' links, as their notices would have made them (only the digest is stored).
  const link = async (p: string) => {
    const token = sha256Hex(`test link ${p}`);
    await t.database.db
      .update(caseParticipants)
      .set({ linkTokenDigest: sha256Hex(token) })
      .where(eq(caseParticipants.id, p));
    return `/coordination/${token}`;
  };
  return { caseId: c.id, pB, pX, pY, linkX: await link(pX), linkY: await link(pY) };
}

before(async () => {
  t = await createTestApp();
  ({ a, b, keyA, keyB } = await twoKeyedTenants(t.database.db));
});
after(() => t.close());

describe('attachment names, types and headers', () => {
  it('sanitises a name for storage and for Content-Disposition', () => {
    assert.equal(sanitiseFilename('../../etc/passwd'), 'passwd');
    assert.equal(sanitiseFilename('C:\\Users\\x\\poc "1".py'), 'poc 1.py');
    assert.equal(sanitiseFilename('.hidden\u0000\r\n.sh'), 'hidden.sh');
    assert.equal(sanitiseFilename('\u202Egnp.exe'), 'gnp.exe', 'no bidirectional overrides that disguise an extension');
    assert.equal(sanitiseFilename('   '), 'attachment');
    const long = sanitiseFilename(`${'a'.repeat(300)}.tar.gz`);
    assert.equal(long.length, 120);
    assert.ok(long.endsWith('.gz'));
    assert.equal(attachmentDisposition('poc 1.py'), `attachment; filename="poc 1.py"; filename*=UTF-8''poc%201.py`);
    assert.equal(attachmentDisposition('rapport-é.txt'), `attachment; filename="rapport-_.txt"; filename*=UTF-8''rapport-%C3%A9.txt`);
  });

  it('sniffs the type from the bytes, never serving HTML or SVG as such', () => {
    assert.equal(sniffMediaType(PNG), 'image/png');
    assert.equal(sniffMediaType(Buffer.from('%PDF-1.7\n')), 'application/pdf');
    assert.equal(sniffMediaType(Buffer.from('<html><script>alert(1)</script></html>')), 'text/plain');
    assert.equal(sniffMediaType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), 'text/plain');
    assert.equal(sniffMediaType(Buffer.from([0x00, 0x01, 0x02])), 'application/octet-stream');
    assert.equal(sniffMediaType(Buffer.from([0xc3, 0x28])), 'application/octet-stream', 'invalid UTF-8 is binary');
  });
});

describe('attachments on the shared case thread (issue 34)', () => {
  it('the PSIRT posts files over REST; they download as attachments with their hash; audit and events carry no name or bytes', async () => {
    const { caseId, pB } = await caseWithParticipants('Files over REST');
    const posted = await api(keyA, 'POST', `/cases/${caseId}/messages`, {
      participantId: pB,
      body: 'The PoC and a screenshot.',
      attachments: [
        { filename: `../../tmp/poc "${MARK}".py`, content: b64(POC) },
        { filename: 'screen.png', content: b64(PNG) },
      ],
    });
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    const m = posted.body as MessageJson;
    assert.deepEqual(
      m.attachments.map((f) => [f.filename, f.contentType, f.size, f.sha256, f.messageId]),
      [
        [`poc ${MARK}.py`, 'text/plain', Buffer.byteLength(POC), sha(POC), m.id],
        ['screen.png', 'image/png', PNG.length, sha(PNG), m.id],
      ],
    );
    const [poc] = m.attachments;
    assert.ok(poc);

    const dl = await t.app.inject({ url: `/api/v1/cases/${caseId}/attachments/${poc.id}/content`, headers: { authorization: `Bearer ${keyA}` } });
    assert.equal(dl.statusCode, 200);
    assert.equal(dl.body, POC);
    assert.match(String(dl.headers['content-type']), /^text\/plain/);
    assert.equal(dl.headers['content-disposition'], `attachment; filename="poc ${MARK}.py"; filename*=UTF-8''poc%20${MARK}.py`);
    assert.equal(dl.headers['x-content-type-options'], 'nosniff');
    assert.match(String(dl.headers['content-security-policy']), /default-src 'none'/);
    assert.equal(dl.headers['repr-digest'], `sha-256=:${Buffer.from(sha(POC), 'hex').toString('base64')}:`);
    const json = (await api(keyA, 'GET', `/cases/${caseId}/attachments/${poc.id}`)).body as FileJson & { content: string };
    assert.equal(Buffer.from(json.content, 'base64').toString(), POC);

    // Another company's key finds neither the file nor the case's list.
    assert.equal((await api(keyB, 'GET', `/cases/${caseId}/attachments/${poc.id}`)).status, 404);
    assert.equal(
      (await t.app.inject({ url: `/api/v1/cases/${caseId}/attachments/${poc.id}/content`, headers: { authorization: `Bearer ${keyB}` } })).statusCode,
      404,
    );

    // The MCP tool of the same operation (get_case_attachment) answers this JSON: test/mcp/mcp-rest-parity.generated.test.ts.

    const db = t.database.db;
    const audits = await db.select({ action: auditLog.action, details: auditLog.details }).from(auditLog).where(eq(auditLog.companyId, a.company.id));
    const row = audits.find((r) => r.action === 'cases.message' && (r.details as { messageId?: string }).messageId === m.id);
    assert.deepEqual((row?.details as { attachments: unknown }).attachments, [
      { id: poc.id, size: Buffer.byteLength(POC), sha256: sha(POC), contentType: 'text/plain' },
      { id: m.attachments[1]?.id, size: PNG.length, sha256: sha(PNG), contentType: 'image/png' },
    ]);
    const events = await db
      .select({ payload: outboxEvents.payload })
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, a.company.id), eq(outboxEvents.type, 'case.message')));
    const data = events.map((e) => (e.payload as unknown as { data: { messageId: string; attachments: unknown[] } }).data).find((d) => d.messageId === m.id);
    assert.equal(data?.attachments.length, 2);
    const leaked = JSON.stringify([audits, events]);
    assert.ok(!leaked.includes(MARK) && !leaked.includes(b64(POC).slice(0, 24)), 'neither the file name nor the bytes in audit rows or events');
  });

  it('refuses, naming the limit, too many files, a file too large, bytes that are not base64, and a case past its total; nothing is stored', async () => {
    const { caseId, pB } = await caseWithParticipants('Limits');
    const db = t.database.db;
    const count = async () =>
      (
        await db
          .select({ n: sql<number>`count(*)::int` })
          .from(caseMessages)
          .where(eq(caseMessages.caseId, caseId))
      )[0]?.n ?? -1;
    const post = (attachments: unknown[], body = 'files') => api(keyA, 'POST', `/cases/${caseId}/messages`, { participantId: pB, body, attachments });
    const small = { filename: 'a.txt', content: b64('a') };

    const six = await post(Array.from({ length: 6 }, () => small));
    assert.equal(six.status, 400);
    assert.match(JSON.stringify(six.body), /at most 5 files per message/);
    const big = await post([{ filename: 'dump.bin', content: b64(Buffer.alloc(2 * MiB + 1, 1)) }]);
    assert.equal(big.status, 400);
    assert.match(JSON.stringify(big.body), /at most 2\.0 MiB per file/);
    const notB64 = await post([{ filename: 'x.txt', content: '***' }]);
    assert.equal(notB64.status, 400);
    assert.deepEqual((notB64.body as { errors: unknown[] }).errors, [{ path: 'attachments.0.content', message: 'is not base64 (RFC 4648)' }]);
    const empty = await post([], '  ');
    assert.equal(empty.status, 400);
    assert.equal((await post([{ filename: 'nothing.txt', content: '' }])).status, 400);
    // Text alone or files alone are a message.
    assert.equal((await post([small], '')).status, 201);
    assert.equal(await count(), 1);

    // 12 files of 2 MiB (24 MiB) fit; one more 2 MiB file would pass 25 MiB.
    const twoMiB = { filename: 'chunk.bin', content: b64(Buffer.alloc(2 * MiB, 2)) };
    for (const n of [5, 5, 2]) assert.equal((await post(Array.from({ length: n }, () => twoMiB))).status, 201);
    const over = await post([twoMiB]);
    assert.equal(over.status, 409);
    assert.match((over.body as { detail: string }).detail, /at most 25\.0 MiB per case/);
    assert.equal(await count(), 4, 'the refused message is not stored either');
  });

  it("a participant posts files through its link's form, sees only its own thread's files, and B sees its own in its inbound case", async () => {
    const { caseId, pB, pX, linkX, linkY } = await caseWithParticipants('Files behind the link');
    const toX = (
      await api(keyA, 'POST', `/cases/${caseId}/messages`, { participantId: pX, body: 'For X', attachments: [{ filename: 'x.txt', content: b64('for x') }] })
    ).body as MessageJson;
    const toB = (
      await api(keyA, 'POST', `/cases/${caseId}/messages`, { participantId: pB, body: 'For B', attachments: [{ filename: 'b.txt', content: b64('for b') }] })
    ).body as MessageJson;
    const xFile = toX.attachments[0]?.id ?? '';
    const bFile = toB.attachments[0]?.id ?? '';

    const send = (link: string, fields: Record<string, string>, files: { name: string; content: Buffer }[], headers: Record<string, string> = {}) => {
      const { payload, type } = multipart(fields, files);
      return t.app.inject({ method: 'POST', url: `${link}/messages`, headers: { host: SITE, 'content-type': type, ...headers }, payload });
    };
    const get = (url: string) => t.app.inject({ url, headers: { host: SITE } });

    assert.equal((await send(linkX, { body: 'hi' }, [{ name: 'a.txt', content: Buffer.from('a') }], { origin: 'https://evil.example' })).statusCode, 403);
    const tooBig = await send(linkX, { body: `Kept draft ${MARK}` }, [{ name: 'core.dump', content: Buffer.alloc(2 * MiB + 10, 3) }]);
    assert.equal(tooBig.statusCode, 400);
    assert.ok(tooBig.body.includes(`Kept draft ${MARK}`), 'the typed text comes back');
    assert.match(tooBig.body, /core\.dump is larger than 2\.0 MiB; at most 2\.0 MiB per file/);
    const ok = await send(linkX, { body: 'Trace from our side' }, [{ name: '<img src=x> & co.log', content: Buffer.from('trace 1\n') }]);
    assert.equal(ok.statusCode, 303, ok.body);

    const page = await get(linkX);
    assert.ok(page.body.includes(`/attachments/${xFile}`), 'its own thread: the file A sent to X');
    assert.ok(page.body.includes(sha('for x')), 'with its SHA-256');
    assert.ok(!page.body.includes(bFile), "not the file of B's thread");
    assert.ok(page.body.includes('img src=x &amp; co.log'), 'a name from outside is sanitised and escaped');
    assert.ok(!page.body.includes('<img src=x>'));
    const mine = await get(`${linkX}/attachments/${xFile}`);
    assert.equal(mine.statusCode, 200);
    assert.equal(mine.body, 'for x');
    assert.equal(mine.headers['x-content-type-options'], 'nosniff');
    assert.match(String(mine.headers['content-disposition']), /^attachment; filename="x\.txt"/);
    assert.equal((await get(`${linkX}/attachments/${bFile}`)).statusCode, 404, "another participant's file is not found");
    assert.equal((await get(`${linkY}/attachments/${xFile}`)).statusCode, 404);

    // A sees what X sent, with the name sanitised and the sniffed type.
    const thread = (await api(keyA, 'GET', `/cases/${caseId}/messages`)).body as MessageJson[];
    const fromX = thread.find((msg) => msg.participantId === pX && msg.author === 'participant');
    assert.deepEqual(
      fromX?.attachments.map((f) => [f.filename, f.contentType, f.sha256]),
      [['img src=x & co.log', 'text/plain', sha('trace 1\n')]],
    );

    // Cradle to Cradle: B reads the file in its inbound case and answers with one of its own.
    const inbound = (await api(keyB, 'GET', `/inbound-cases/${pB}`)).body as { messages: MessageJson[] };
    assert.deepEqual(
      inbound.messages.flatMap((msg) => msg.attachments.map((f) => f.id)),
      [bFile],
    );
    const got = (await api(keyB, 'GET', `/inbound-cases/${pB}/attachments/${bFile}`)).body as { content: string };
    assert.equal(Buffer.from(got.content, 'base64').toString(), 'for b');
    assert.equal((await api(keyB, 'GET', `/inbound-cases/${pB}/attachments/${xFile}`)).status, 404);
    const reply = await api(keyB, 'POST', `/inbound-cases/${pB}/messages`, { attachments: [{ filename: 'fix.patch', content: b64('--- a\n+++ b\n') }] });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const all = (await api(keyA, 'GET', `/cases/${caseId}/messages`)).body as MessageJson[];
    assert.ok(all.some((msg) => msg.attachments.some((f) => f.filename === 'fix.patch' && f.sha256 === sha('--- a\n+++ b\n'))));
  });

  it('re-renders either web form for more files than a message takes (7, 12), naming the limit and keeping the text; nothing is stored', async () => {
    const { caseId, pX, linkX } = await caseWithParticipants('Too many files on a form');
    const cookie = await signInCookie(t, a.admin.email);
    const csrf = csrfOf((await t.app.inject({ url: `/cases/${caseId}`, headers: { host: SITE, cookie } })).body);
    const files = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `part-${i}.txt`, content: Buffer.from(`part ${i}`) }));
    const post = (url: string, fields: Record<string, string>, n: number, headers: Record<string, string> = {}) => {
      const { payload, type } = multipart(fields, files(n));
      return t.app.inject({ method: 'POST', url, headers: { host: SITE, 'content-type': type, ...headers }, payload });
    };
    const stored = async () => (await t.database.db.select().from(caseMessages).where(eq(caseMessages.caseId, caseId))).length;
    const before = await stored();
    for (const n of [7, 12]) {
      const link = await post(`${linkX}/messages`, { body: `Link draft ${n} <b>` }, n);
      assert.equal(link.statusCode, 400, link.body);
      assert.match(link.body, /<p class="error" id="attachments-error">[^<]*at most 5 files per message/);
      assert.ok(link.body.includes(`>Link draft ${n} &lt;b&gt;</textarea>`), 'the typed text comes back, escaped');

      const dash = await post(`/cases/${caseId}/messages`, { _csrf: csrf, participantId: pX, body: `Dashboard draft ${n}` }, n, { cookie });
      assert.equal(dash.statusCode, 400, dash.body);
      assert.match(dash.body, /<p class="error" id="attachments-error">[^<]*at most 5 files per message/);
      assert.ok(dash.body.includes(`>Dashboard draft ${n}</textarea>`), 'the typed text comes back');
      assert.match(dash.body, new RegExp(`<option value="${pX}" selected>`), 'and the participant chosen');
    }
    assert.equal(await stored(), before);
  });

  it('goes with its case and with its company when that is purged', async () => {
    const db = t.database.db;
    const c = await makeTenant(db);
    const key = (await makeKey(db, c)).key;
    const files = async () =>
      (
        await db
          .select({ n: sql<number>`count(*)::int` })
          .from(caseAttachments)
          .where(eq(caseAttachments.companyId, c.company.id))
      )[0]?.n ?? -1;
    const withFile = async (title: string) => {
      const k = (await api(key, 'POST', '/cases', { title })).body as Json;
      const p = (await api(key, 'POST', `/cases/${k.id}/participants`, { role: 'coordinator', email: 'cert@example.org' })).body as Json;
      assert.equal(
        (await api(key, 'POST', `/cases/${k.id}/messages`, { participantId: p.id, body: 'x', attachments: [{ filename: 'f.txt', content: b64(title) }] }))
          .status,
        201,
      );
      return k.id;
    };
    const first = await withFile('first');
    await withFile('second');
    assert.equal(await files(), 2);
    await db.delete(cases).where(eq(cases.id, first));
    assert.equal(await files(), 1, "a case's files go with it");
    await requestCompanyDeletion(db, operatorContext(), c.company.slug, { graceDays: 0, now: true });
    assert.equal(await files(), 0, "the company's purge removes the rest");
  });
});
