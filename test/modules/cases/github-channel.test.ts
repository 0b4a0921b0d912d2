import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, caseNotices, outboxEvents } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { deliverGithubNotices, GITHUB_MAX_ATTEMPTS } from '../../../src/modules/cases/github-deliver.js';
import { readBackGithubAdvisories } from '../../../src/modules/cases/github-readback.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { setGithubToken } from '../../../src/modules/upstream/upstream-settings.js';
import { apiJson, makeKey, makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { type GithubPeer, startGithubPeer } from '../../helpers/github-peer.js';

const SECRET = 'SECRET-gh-51c0: the CoAP option length wraps in coap_parse_option';
const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const TOKEN_B = 'ghp_companyBTokenNeverValidHere0123456789';

let t: TestApp;
let gh: GithubPeer;
let a: Tenant;
let b: Tenant;
let keyA: string;
let keyB: string;
let opts: { apiUrl: string; allowPrivate: boolean };

type Json = Record<string, unknown> & { id: string };
type NoticeJson = Json & { body: string; subject: string; recipient: string; state: string; failure: string | null; attempts: number; channel: string };
type ParticipantJson = Json & { status: string; notifiedAt: string | null; advisory: { ghsaId: string; url: string | null } | null };

const api = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown) => apiJson(t, key, method, url, payload);

/** A case of the tenant holding one report, with a github participant for `repo`; its notice prepared and confirmed. */
async function queuedCase(key: string, tenant: Tenant, repo: string): Promise<{ caseId: string; participantId: string; notice: NoticeJson }> {
  const report = (await fileReport(t.database.db, operatorContext(), tenant.company, { description: SECRET, vulnerabilityType: 'memory_corruption' }, 'api'))
    .report.submissionId;
  await updateReport(t.database.db, operatorContext(), tenant.company.id, report, { cvssVector: VECTOR, cwe: 'CWE-787' });
  const c = (await api(key, 'POST', '/cases', { title: `Overflow in ${repo}`, reportIds: [report] })).body as Json;
  const added = await api(key, 'POST', `/cases/${c.id}/participants`, { role: 'upstream_maintainer', repositoryUrl: `https://github.com/${repo}` });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const p = added.body as Json & { channel: string; address: string };
  assert.deepEqual([p.channel, p.address], ['github', repo]);
  const prep = await api(key, 'POST', `/cases/${c.id}/notices`, {});
  assert.equal(prep.status, 201, JSON.stringify(prep.body));
  const [n] = prep.body as NoticeJson[];
  assert.ok(n);
  const conf = await api(key, 'POST', `/cases/${c.id}/notices/confirm`, { noticeIds: [n.id] });
  assert.equal(conf.status, 200, JSON.stringify(conf.body));
  const [queued] = conf.body as NoticeJson[];
  assert.equal(queued?.state, 'queued');
  return { caseId: c.id, participantId: p.id, notice: n };
}

const noticeOf = async (key: string, caseId: string, id: string) =>
  ((await api(key, 'GET', `/cases/${caseId}/notices`)).body as NoticeJson[]).find((n) => n.id === id);
const participantOf = async (key: string, caseId: string, id: string) =>
  ((await api(key, 'GET', `/cases/${caseId}`)).body as { participants: ParticipantJson[] }).participants.find((p) => p.id === id);
const requestsFor = (repo: string) => gh.seen.filter((r) => r.path.startsWith(`/api/v3/repos/${repo}/`));

before(async () => {
  t = await createTestApp();
  gh = await startGithubPeer();
  opts = { apiUrl: gh.apiUrl, allowPrivate: true };
  a = await makeTenant(t.database.db);
  b = await makeTenant(t.database.db);
  keyA = (await makeKey(t.database.db, a)).key;
  keyB = (await makeKey(t.database.db, b)).key;
  await setGithubToken(t.database.db, operatorContext(), { companyId: a.company.id, input: { githubToken: gh.token }, githubApiUrl: gh.apiUrl });
  await setGithubToken(t.database.db, operatorContext(), { companyId: b.company.id, input: { githubToken: TOKEN_B }, githubApiUrl: gh.apiUrl });
  gh.repos.set('acme/widget', { pvr: true });
  gh.repos.set('acme/closed', { pvr: false });
  gh.repos.set('acme/strict', { pvr: true, refuse: { status: 422, message: 'Validation Failed: cwe_ids CWE-787 is not accepted here' } });
  gh.repos.set('acme/flaky', { pvr: true, refuse: { status: 503, message: 'Service Unavailable' } });
  gh.repos.set('beta/lib', { pvr: true });
});
after(async () => {
  await gh.close();
  await t.close();
});

describe('GitHub private vulnerability reporting as a case channel (issue 34)', () => {
  it('names the affected packages GitHub knows with their versions, says which it cannot name, and the peer takes the body', async () => {
    const db = t.database.db;
    const file = async (purl: string) => {
      const id = (await fileReport(db, operatorContext(), a.company, { description: SECRET, vulnerabilityType: 'memory_corruption' }, 'api')).report
        .submissionId;
      await updateReport(db, operatorContext(), a.company.id, id, { componentPurl: purl });
      return id;
    };
    const reportIds = [await file('pkg:npm/%40acme/parser@1.2.0'), await file('pkg:deb/debian/openssl@3.0.11'), await file('pkg:maven/org.acme/core@2.0.1')];
    gh.repos.set('acme/parser', { pvr: true });
    const c = (await api(keyA, 'POST', '/cases', { title: 'Overflow in the parser', reportIds })).body as Json;
    assert.equal(
      (await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'upstream_maintainer', repositoryUrl: 'https://github.com/acme/parser' })).status,
      201,
    );
    const [n] = (await api(keyA, 'POST', `/cases/${c.id}/notices`, {})).body as NoticeJson[];
    assert.ok(n);
    const shown = JSON.parse(n.body) as { description: string; vulnerabilities: { package: { name: string } }[] };
    // In the case's report order (by when each was added, then by id): compared by package name.
    const byName = <T extends { package: { name: string } }>(v: T[]) => [...v].sort((x, y) => (x.package.name < y.package.name ? -1 : 1));
    assert.deepEqual(byName(shown.vulnerabilities), [
      { package: { ecosystem: 'npm', name: '@acme/parser' }, vulnerable_version_range: '= 1.2.0', patched_versions: null },
      { package: { ecosystem: 'maven', name: 'org.acme:core' }, vulnerable_version_range: '= 2.0.1', patched_versions: null },
    ]);
    assert.match(shown.description, /Affected component: pkg:npm\/%40acme\/parser@1\.2\.0(\n|$)/);
    assert.match(shown.description, /Affected component: pkg:deb\/debian\/openssl@3\.0\.11 \(not named as a package: GitHub has no "deb" ecosystem\)\./);

    assert.equal((await api(keyA, 'POST', `/cases/${c.id}/notices/confirm`, { noticeIds: [n.id] })).status, 200);
    await deliverGithubNotices(db, opts);
    assert.equal((await noticeOf(keyA, c.id, n.id))?.state, 'sent');
    const [advisory] = [...gh.advisories.values()].filter((x) => x.repo === 'parser');
    assert.deepEqual(advisory?.body.vulnerabilities, shown.vulnerabilities, 'GitHub took the packages as shown');

    // The peer refuses what GitHub's schema refuses: an ecosystem outside its list, a package without one, unknown keys.
    const post = (vulnerabilities: unknown) =>
      fetch(`${gh.apiUrl}/repos/acme/parser/security-advisories/reports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gh.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ summary: 's', description: 'd', vulnerabilities }),
      });
    for (const bad of [
      [{ package: { ecosystem: 'deb', name: 'openssl' } }],
      [{ package: { name: 'openssl' } }],
      [{ package: { ecosystem: 'npm', name: 'x' }, fixed: '1' }],
    ]) {
      const res = await post(bad);
      assert.equal(res.status, 422, JSON.stringify(bad));
      assert.equal(((await res.json()) as { errors: { field: string }[] }).errors[0]?.field, 'vulnerabilities');
    }
  });

  it('prepares exactly the body, posts it outside the confirmation, sets the GHSA id, and reads the advisory back', async () => {
    const { caseId, participantId, notice } = await queuedCase(keyA, a, 'acme/widget');
    assert.equal(notice.channel, 'github');
    assert.equal(notice.recipient, 'GitHub private vulnerability reporting of acme/widget');
    const shown = JSON.parse(notice.body) as Record<string, unknown>;
    assert.equal(shown.summary, 'Overflow in acme/widget');
    assert.equal(notice.subject, shown.summary);
    assert.ok(String(shown.description).includes(SECRET), 'the description carries the report');
    assert.equal(shown.cvss_vector_string, VECTOR);
    assert.equal(shown.severity, undefined, 'a CVSS vector, never also a severity');
    assert.deepEqual(shown.cwe_ids, ['CWE-787']);

    assert.equal(requestsFor('acme/widget').length, 0, 'confirming calls nothing: the job posts');
    assert.equal((await participantOf(keyA, caseId, participantId))?.notifiedAt, null);

    assert.ok((await deliverGithubNotices(t.database.db, opts)) >= 1);
    const seen = requestsFor('acme/widget');
    assert.deepEqual(
      seen.map((r) => `${r.method} ${r.path}`),
      ['GET /api/v3/repos/acme/widget/private-vulnerability-reporting', 'POST /api/v3/repos/acme/widget/security-advisories/reports'],
    );
    assert.deepEqual(JSON.parse(seen[1]?.body ?? ''), shown, 'GitHub received exactly the body shown');
    assert.ok(
      seen.every((r) => r.headers.authorization === `Bearer ${gh.token}`),
      "company A's token",
    );

    const [advisory] = [...gh.advisories.values()].filter((x) => x.owner === 'acme' && x.repo === 'widget');
    assert.ok(advisory);
    const p = await participantOf(keyA, caseId, participantId);
    assert.equal(p?.status, 'contact_attempted');
    assert.equal(p?.advisory?.ghsaId, advisory.ghsa_id);
    assert.equal(p?.advisory?.url, `${gh.base}/acme/widget/security/advisories/${advisory.ghsa_id}`);
    assert.ok(p?.notifiedAt);
    const sent = await noticeOf(keyA, caseId, notice.id);
    assert.deepEqual([sent?.state, sent?.failure], ['sent', null]);
    const events = await t.database.db
      .select({ type: outboxEvents.type, payload: outboxEvents.payload })
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, a.company.id), eq(outboxEvents.type, 'case.notified')));
    const data = events.map((e) => (e.payload as { data: Record<string, unknown> }).data);
    assert.ok(data.some((d) => d.ghsaId === advisory.ghsa_id && d.channel === 'github' && d.participantId === participantId));

    const page = await dashboardClient(t, await signInCookie(t, a.admin.email)).page(`/cases/${caseId}`);
    assert.ok(page.body.includes(`>${advisory.ghsa_id}</a>`), 'the case page links the advisory');
    // A second pass posts nothing again.
    await deliverGithubNotices(t.database.db, opts);
    assert.equal(requestsFor('acme/widget').filter((r) => r.method === 'POST').length, 1);

    gh.setState(advisory.ghsa_id, 'draft');
    assert.ok((await readBackGithubAdvisories(t.database.db, opts)) >= 1);
    assert.equal((await participantOf(keyA, caseId, participantId))?.status, 'in_progress');
    gh.setState(advisory.ghsa_id, 'published');
    await readBackGithubAdvisories(t.database.db, opts);
    assert.equal((await participantOf(keyA, caseId, participantId))?.status, 'completed');
    const log = ((await api(keyA, 'GET', `/cases/${caseId}`)).body as { log: { kind: string; details: Record<string, unknown> }[] }).log;
    assert.deepEqual(
      log.filter((e) => e.kind === 'status_changed').map((e) => e.details.to),
      ['in_progress', 'completed'],
    );
    assert.ok(log.some((e) => e.kind === 'notice_queued') && log.some((e) => e.kind === 'notice_sent'));
    const audit = await t.database.db.select().from(auditLog).where(eq(auditLog.companyId, a.company.id));
    assert.ok(!JSON.stringify(audit).includes(SECRET) && !JSON.stringify(audit).includes(gh.token), 'no report text or token in audit rows');
  });

  it('reporting disabled (403) and a report GitHub refuses (422) mark the notice failed with the reason', async () => {
    const closed = await queuedCase(keyA, a, 'acme/closed');
    const strict = await queuedCase(keyA, a, 'acme/strict');
    await deliverGithubNotices(t.database.db, opts);
    const c1 = await noticeOf(keyA, closed.caseId, closed.notice.id);
    assert.equal(c1?.state, 'failed');
    assert.match(c1?.failure ?? '', /private vulnerability reporting is disabled for acme\/closed/);
    assert.equal(requestsFor('acme/closed').filter((r) => r.method === 'POST').length, 0, 'nothing posted to a repository that takes no reports');
    const c2 = await noticeOf(keyA, strict.caseId, strict.notice.id);
    assert.equal(c2?.state, 'failed');
    assert.match(c2?.failure ?? '', /GitHub refused the report as invalid: Validation Failed: cwe_ids/);
    const p = await participantOf(keyA, strict.caseId, strict.participantId);
    assert.deepEqual([p?.status, p?.notifiedAt, p?.advisory], ['not_contacted', null, null]);
    const page = await dashboardClient(t, await signInCookie(t, a.admin.email)).page(`/cases/${closed.caseId}`);
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes('<strong class="failed">not delivered</strong>'), page.body.slice(0, 200));
    assert.ok(page.body.includes('private vulnerability reporting is disabled for acme/closed'), 'the case page shows the reason');
    // A failed notice can be prepared again.
    const again = await api(keyA, 'POST', `/cases/${strict.caseId}/notices`, {});
    assert.equal(again.status, 201, JSON.stringify(again.body));
  });

  it("uses each company's own token only, and fails without one", async () => {
    const beta = await queuedCase(keyB, b, 'beta/lib');
    await deliverGithubNotices(t.database.db, opts);
    const seen = requestsFor('beta/lib');
    assert.ok(seen.length > 0);
    assert.ok(
      seen.every((r) => r.headers.authorization === `Bearer ${TOKEN_B}`),
      "company B's requests carry B's token, never A's",
    );
    const n = await noticeOf(keyB, beta.caseId, beta.notice.id);
    assert.equal(n?.state, 'failed');
    assert.match(n?.failure ?? '', /the GitHub token was refused/);
    assert.equal((await api(keyA, 'GET', `/cases/${beta.caseId}`)).status, 404, "another company's case is not found");

    const c = await makeTenant(t.database.db);
    const keyC = (await makeKey(t.database.db, c)).key;
    const before = gh.seen.length;
    const none = await queuedCase(keyC, c, 'beta/lib');
    await deliverGithubNotices(t.database.db, opts);
    const m = await noticeOf(keyC, none.caseId, none.notice.id);
    assert.equal(m?.state, 'failed');
    assert.match(m?.failure ?? '', /no GitHub token is set for this company/);
    assert.equal(gh.seen.length, before, 'without a token nothing is asked of GitHub');
  });

  it('retries an outage with backoff and gives up after a bounded number of attempts', async () => {
    const flaky = await queuedCase(keyA, a, 'acme/flaky');
    let now = new Date();
    await deliverGithubNotices(t.database.db, { ...opts, now: () => now });
    let n = await noticeOf(keyA, flaky.caseId, flaky.notice.id);
    assert.deepEqual([n?.state, n?.attempts], ['queued', 1]);
    assert.match(n?.failure ?? '', /503/);
    // Not due before its backoff ends.
    await deliverGithubNotices(t.database.db, { ...opts, now: () => now });
    assert.equal((await noticeOf(keyA, flaky.caseId, flaky.notice.id))?.attempts, 1);
    for (let i = 1; i < GITHUB_MAX_ATTEMPTS; i++) {
      const [row] = await t.database.db.select({ next: caseNotices.nextAttemptAt }).from(caseNotices).where(eq(caseNotices.id, flaky.notice.id));
      assert.ok(row?.next && row.next > now, 'the next attempt waits');
      now = new Date(row.next.getTime() + 1);
      await deliverGithubNotices(t.database.db, { ...opts, now: () => now });
    }
    n = await noticeOf(keyA, flaky.caseId, flaky.notice.id);
    assert.deepEqual([n?.state, n?.attempts], ['failed', GITHUB_MAX_ATTEMPTS]);
    assert.equal(requestsFor('acme/flaky').filter((r) => r.method === 'POST').length, GITHUB_MAX_ATTEMPTS);
  });
});
