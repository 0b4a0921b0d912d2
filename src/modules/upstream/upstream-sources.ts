import { checkPublicKey } from '../companies/openpgp-public-key.js';
import { checkPrivateReporting, GithubApiError } from './github-pvr.js';
import { type FileContacts, parseSecurityInsights, parseSecurityMd, parseSecurityTxt } from './contact-files.js';
import type { Repository } from './repository.js';
import type { UpstreamContact, UpstreamSourceAttempt, UpstreamSourceKind } from './upstream.schemas.js';
import { upstreamRequest, UpstreamHttpError } from './upstream-http.js';

/** What every source needs: the GitHub API, the company's token (or none), the guard's setting. */
export type SourceEnv = { apiUrl: string; token: string | undefined; allowPrivate: boolean; now: Date };
export type SourceResult = { attempt: UpstreamSourceAttempt; contacts: UpstreamContact[] };

const TEXT_MAX = 64 * 1024;

const skipped = (kind: UpstreamSourceKind, detail: string): SourceResult => ({ attempt: { kind, url: null, outcome: 'skipped', detail }, contacts: [] });
const failed = (kind: UpstreamSourceKind, url: string, e: unknown): SourceResult => {
  if (!(e instanceof UpstreamHttpError) && !(e instanceof GithubApiError)) throw e;
  return { attempt: { kind, url, outcome: 'failed', detail: e.message }, contacts: [] };
};

/** GitHub private vulnerability reporting, when the repository is on the GitHub host and has it enabled. */
export async function fromGithubPvr(repo: Repository | null, env: SourceEnv): Promise<SourceResult> {
  if (!repo) return skipped('github_pvr', 'no source repository is known for this component');
  if (!repo.github) return skipped('github_pvr', `the repository is on ${repo.host}, not on the GitHub host this instance uses`);
  const url = `${env.apiUrl}/repos/${repo.owner}/${repo.name}/private-vulnerability-reporting`;
  try {
    const { enabled } = await checkPrivateReporting({
      apiUrl: env.apiUrl,
      token: env.token,
      owner: repo.owner,
      repo: repo.name,
      allowPrivate: env.allowPrivate,
    });
    if (!enabled) return { attempt: { kind: 'github_pvr', url, outcome: 'not_found', detail: 'private vulnerability reporting is disabled' }, contacts: [] };
    return {
      attempt: { kind: 'github_pvr', url, outcome: 'found', detail: 'private vulnerability reporting is enabled' },
      contacts: [{ channel: 'github', address: `${repo.owner}/${repo.name}`, source: { kind: 'github_pvr', url } }],
    };
  } catch (e) {
    return failed('github_pvr', url, e);
  }
}

/** A text file, or null for 404/410; anything else unusable is a failure. */
async function fetchText(url: string, env: SourceEnv, headers: Record<string, string> = {}): Promise<string | null> {
  const res = await upstreamRequest(url, { allowPrivate: env.allowPrivate, headers, timeoutMs: 10_000, maxBytes: TEXT_MAX });
  if (res.status === 404 || res.status === 410) return null;
  if (res.status !== 200) throw new UpstreamHttpError('network', `${new URL(url).host} answered ${res.status}`);
  return res.body;
}

/** The first Encryption URL's key, checked by openpgp.js (public, not revoked or expired, can encrypt). */
async function fetchKey(urls: string[], env: SourceEnv): Promise<{ key?: string; note: string }> {
  const url = urls[0];
  if (!url) return { note: '' };
  try {
    const text = await fetchText(url, env);
    if (text === null) return { note: `; its Encryption key at ${url} was not found` };
    const r = await checkPublicKey(text, env.now);
    return r.ok ? { key: r.armored, note: `; OpenPGP key ${r.facts.fingerprint}` } : { note: `; its Encryption key was refused: ${r.message}` };
  } catch (e) {
    if (!(e instanceof UpstreamHttpError)) throw e;
    return { note: `; its Encryption key could not be fetched: ${e.message}` };
  }
}

async function toContacts(kind: UpstreamSourceKind, url: string, found: FileContacts, env: SourceEnv): Promise<SourceResult> {
  const { key, note } = await fetchKey(found.encryption, env);
  const contacts: UpstreamContact[] = [
    ...found.emails.map((address): UpstreamContact => ({ channel: 'email', address, ...(key ? { encryptionKey: key } : {}), source: { kind, url } })),
    ...found.urls.map((address): UpstreamContact => ({ channel: 'url', address, source: { kind, url } })),
  ];
  const what = contacts.map((c) => c.address).join(', ');
  return {
    attempt: { kind, url, outcome: contacts.length ? 'found' : 'not_found', detail: contacts.length ? `${what}${note}` : 'no contact in the file' },
    contacts,
  };
}

/** The project's `/.well-known/security.txt` (RFC 9116) on its own site. */
export async function fromSecurityTxt(site: string | null, env: SourceEnv): Promise<SourceResult> {
  if (!site) return skipped('security_txt', "no project site is known for this component (the SBOM's website reference)");
  const url = `${site}/.well-known/security.txt`;
  try {
    const text = await fetchText(url, env);
    if (text === null) return { attempt: { kind: 'security_txt', url, outcome: 'not_found', detail: 'the site has no security.txt' }, contacts: [] };
    return await toContacts('security_txt', url, parseSecurityTxt(text), env);
  } catch (e) {
    return failed('security_txt', url, e);
  }
}

/** The URLs a repository file is read from: GitHub's contents API (raw), or a GitLab raw URL. */
function fileUrls(repo: Repository, paths: string[], env: SourceEnv): { url: string; headers: Record<string, string> }[] {
  if (repo.github) {
    const headers: Record<string, string> = {
      accept: 'application/vnd.github.raw+json',
      'x-github-api-version': '2022-11-28',
      ...(env.token ? { authorization: `Bearer ${env.token}` } : {}),
    };
    return paths.map((p) => ({ url: `${env.apiUrl}/repos/${repo.owner}/${repo.name}/contents/${p}`, headers }));
  }
  return /(^|\.)gitlab\./.test(repo.host) ? paths.map((p) => ({ url: `${repo.url}/-/raw/HEAD/${p}`, headers: {} })) : [];
}

async function fromRepositoryFile(
  kind: 'security_md' | 'security_insights',
  repo: Repository | null,
  paths: string[],
  parse: (text: string) => FileContacts,
  env: SourceEnv,
): Promise<SourceResult> {
  if (!repo) return skipped(kind, 'no source repository is known for this component');
  const candidates = fileUrls(repo, paths, env);
  if (candidates.length === 0) return skipped(kind, `files of repositories on ${repo.host} are not read (GitHub and GitLab are)`);
  for (const { url, headers } of candidates) {
    try {
      const text = await fetchText(url, env, headers);
      if (text === null) continue;
      let found: FileContacts;
      try {
        found = parse(text);
      } catch (e) {
        return { attempt: { kind, url, outcome: 'failed', detail: `the file could not be read: ${(e as Error).message.slice(0, 200)}` }, contacts: [] };
      }
      const r = await toContacts(kind, url, found, env);
      // SECURITY.md pointing at GitHub's reporting form is the GitHub channel, named by this file.
      if (kind === 'security_md' && repo.github && (found as { githubReporting?: boolean }).githubReporting) {
        r.contacts.unshift({ channel: 'github', address: `${repo.owner}/${repo.name}`, source: { kind, url } });
        r.attempt = { ...r.attempt, outcome: 'found', detail: `GitHub private reporting${r.contacts.length > 1 ? `, ${r.attempt.detail}` : ''}` };
      }
      return r;
    } catch (e) {
      return failed(kind, url, e);
    }
  }
  return { attempt: { kind, url: candidates[0]?.url ?? null, outcome: 'not_found', detail: `none of ${paths.join(', ')} is in the repository` }, contacts: [] };
}

export const fromSecurityMd = (repo: Repository | null, env: SourceEnv): Promise<SourceResult> =>
  fromRepositoryFile('security_md', repo, ['SECURITY.md', '.github/SECURITY.md', 'docs/SECURITY.md'], parseSecurityMd, env);

export const fromSecurityInsights = (repo: Repository | null, env: SourceEnv): Promise<SourceResult> =>
  fromRepositoryFile(
    'security_insights',
    repo,
    ['security-insights.yml', '.github/security-insights.yml', 'SECURITY-INSIGHTS.yml'],
    parseSecurityInsights,
    env,
  );
