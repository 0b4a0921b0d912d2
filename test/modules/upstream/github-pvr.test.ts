import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  checkPrivateReporting,
  createPrivateReport,
  GithubApiError,
  githubPackageOf,
  readAdvisoryState,
  type GithubTarget,
} from '../../../src/modules/upstream/github-pvr.js';
import { type GithubPeer, startGithubPeer } from '../../helpers/github-peer.js';

let peer: GithubPeer;
let target: (repo: string, over?: Partial<GithubTarget>) => GithubTarget;

before(async () => {
  peer = await startGithubPeer();
  peer.repos.set('acme/widget', { pvr: true });
  peer.repos.set('acme/closed', { pvr: false });
  target = (repo, over = {}) => {
    const [owner, name] = repo.split('/') as [string, string];
    return { apiUrl: peer.apiUrl, token: peer.token, owner, repo: name, allowPrivate: true, ...over };
  };
});
after(() => peer.close());

const rejects = async (p: Promise<unknown>, status: number | null, message: RegExp) => {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof GithubApiError, String(e));
    assert.equal(e.status, status);
    assert.match(e.message, message);
    assert.doesNotMatch(e.message, new RegExp(peer.token));
    return true;
  });
};

const report = {
  summary: 'Heap overflow in widget parser',
  description: 'A crafted header overflows the parse buffer.',
  cvss_vector_string: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  cwe_ids: ['CWE-122'],
  vulnerabilities: [
    {
      package: { ecosystem: 'npm' as const, name: '@acme/widget' },
      vulnerable_version_range: '< 1.2.1',
      patched_versions: '1.2.1',
      vulnerable_functions: ['parseHeader'],
    },
  ],
};

describe('GitHub private vulnerability reporting client against the peer', () => {
  it('reads whether reporting is enabled, and refuses an unknown repository with 404', async () => {
    assert.deepEqual(await checkPrivateReporting(target('acme/widget')), { enabled: true });
    assert.deepEqual(await checkPrivateReporting(target('acme/closed', { token: undefined })), { enabled: false });
    await rejects(checkPrivateReporting(target('acme/nothing')), 404, /does not know this repository .*: Not Found/);
  });

  it('creates a report with the documented body and reads back its advisory state as CSAF involvement', async () => {
    const before = peer.seen.length;
    const adv = await createPrivateReport({ ...target('acme/widget'), body: report });
    assert.match(adv.ghsaId, /^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/);
    assert.equal(adv.state, 'triage');
    assert.equal(adv.involvement, 'contact_attempted');
    const [check, post] = peer.seen.slice(before);
    assert.equal(check?.path, '/api/v3/repos/acme/widget/private-vulnerability-reporting');
    assert.equal(post?.method, 'POST');
    assert.equal(post?.path, '/api/v3/repos/acme/widget/security-advisories/reports');
    assert.equal(post?.headers.authorization, `Bearer ${peer.token}`);
    assert.equal(post?.headers.accept, 'application/vnd.github+json');
    const sent = JSON.parse(post?.body ?? '{}');
    assert.deepEqual(sent.vulnerabilities[0].package, { ecosystem: 'npm', name: '@acme/widget' });
    assert.equal(sent.cvss_vector_string, report.cvss_vector_string);
    assert.equal('severity' in sent, false);
    for (const [state, involvement] of [
      ['triage', 'contact_attempted'],
      ['draft', 'in_progress'],
      ['published', 'completed'],
      ['closed', 'disputed'],
      ['withdrawn', 'disputed'],
    ] as const) {
      peer.setState(adv.ghsaId, state);
      const read = await readAdvisoryState({ ...target('acme/widget'), ghsaId: adv.ghsaId });
      assert.deepEqual([read.state, read.involvement], [state, involvement]);
    }
    await rejects(readAdvisoryState({ ...target('acme/closed'), ghsaId: adv.ghsaId }), 404, /does not know/);
  });

  it('never sends a report with both severity and a CVSS vector, or without summary and description', async () => {
    const before = peer.seen.length;
    await rejects(createPrivateReport({ ...target('acme/widget'), body: { ...report, severity: 'high' } }), 422, /either severity or cvss_vector_string/);
    await rejects(createPrivateReport({ ...target('acme/widget'), body: { ...report, summary: '  ' } }), 422, /summary/);
    assert.equal(peer.seen.length, before, 'nothing reached GitHub');
  });

  it('the peer itself refuses those bodies with 422 as documented, and a disabled repository with 403', async () => {
    const post = (repo: string, body: unknown) =>
      fetch(`${peer.apiUrl}/repos/${repo}/security-advisories/reports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${peer.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const both = await post('acme/widget', { ...report, severity: 'high' });
    assert.equal(both.status, 422);
    assert.match(JSON.stringify(await both.json()), /only provide one of severity or cvss_vector_string/);
    const missing = await post('acme/widget', { severity: 'low' });
    assert.equal(missing.status, 422);
    assert.deepEqual(
      ((await missing.json()) as { errors: { field: string }[] }).errors.map((e) => e.field),
      ['summary', 'description'],
    );
    assert.equal((await post('acme/closed', report)).status, 403);
  });

  it('stops before posting when reporting is disabled, and says so', async () => {
    const before = peer.seen.length;
    await rejects(createPrivateReport({ ...target('acme/closed'), body: report }), 403, /disabled for acme\/closed/);
    assert.deepEqual(
      peer.seen.slice(before).map((s) => s.method),
      ['GET'],
    );
  });

  it('needs a token to report, and reports a refused token without echoing it', async () => {
    await rejects(createPrivateReport({ ...target('acme/widget', { token: undefined }), body: report }), 401, /needs the company GitHub token/);
    await rejects(checkPrivateReporting(target('acme/widget', { token: 'ghp_wrongwrongwrongwrong' })), 401, /token was refused: Bad credentials/);
  });

  it('goes through the SSRF guard: a loopback API is refused unless private networks are allowed', async () => {
    await rejects(checkPrivateReporting(target('acme/widget', { allowPrivate: false })), null, /non-public address/);
  });

  it("maps package URLs to GitHub's ecosystems and package names", () => {
    assert.deepEqual(githubPackageOf('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'), {
      ecosystem: 'maven',
      name: 'org.apache.logging.log4j:log4j-core',
    });
    assert.deepEqual(githubPackageOf('pkg:pypi/django@4.2'), { ecosystem: 'pip', name: 'django' });
    assert.deepEqual(githubPackageOf('pkg:golang/github.com/acme/widget@v1.0.0'), { ecosystem: 'go', name: 'github.com/acme/widget' });
    assert.deepEqual(githubPackageOf('pkg:cargo/serde@1.0.0'), { ecosystem: 'rust', name: 'serde' });
    assert.deepEqual(githubPackageOf('pkg:gem/rails@7.0.0'), { ecosystem: 'rubygems', name: 'rails' });
    assert.deepEqual(githubPackageOf('pkg:composer/laravel/framework@10.0.0'), { ecosystem: 'composer', name: 'laravel/framework' });
    assert.equal(githubPackageOf('pkg:deb/debian/openssl@3.0.11'), undefined, 'GitHub has no deb ecosystem: the package is left out, not named as other');
  });
});
