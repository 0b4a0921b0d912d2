import type { PackageURL } from 'packageurl-js';
import { parsePackageUrl } from '../../kernel/package-url.js';

/** A source repository Cradle can read: its web URL, and owner/name when it is on a GitHub host. */
export type Repository = { url: string; host: string; owner: string; name: string; github: boolean };

/**
 * The host whose repositories GitHub's API at `apiUrl` serves: api.github.com serves github.com;
 * a GitHub Enterprise Server's `https://ghe.example/api/v3` serves ghe.example.
 */
export function githubWebHost(apiUrl: string): string {
  const u = new URL(apiUrl);
  return u.host === 'api.github.com' ? 'github.com' : u.host;
}

/** The web origin of that host, with the API's scheme (https, or http for a test server). */
export function githubWebOrigin(apiUrl: string): string {
  const u = new URL(apiUrl);
  return `${u.protocol}//${githubWebHost(apiUrl)}`;
}

/**
 * A repository from what an SBOM or a package URL says: `git+https://host/o/r.git`, `git@host:o/r`,
 * `https://host/o/r/tree/main`, `scm:git:...` (Maven), with the scheme kept when it is http(s).
 * Only two-level paths are taken (owner and name); anything else is not a repository Cradle reads.
 */
export function parseRepositoryUrl(raw: string, apiUrl: string): Repository | null {
  let s = raw
    .trim()
    .replace(/^scm:git:/, '')
    .replace(/^git\+/, '');
  const ssh = /^(?:ssh:\/\/)?git@([^:/]+)[:/](.+)$/.exec(s);
  if (ssh) s = `https://${ssh[1]}/${ssh[2]}`;
  if (s.startsWith('git://')) s = `https://${s.slice(6)}`;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  const [owner, rawName] = u.pathname.split('/').filter(Boolean);
  const name = rawName?.replace(/\.git$/, '').replace(/@.*$/, '');
  if (!owner || !name || !/^[\w.-]+$/.test(owner) || !/^[\w.-]+$/.test(name)) return null;
  const host = u.host.toLowerCase();
  return { url: `${u.protocol}//${host}/${owner}/${name}`, host, owner, name, github: host === githubWebHost(apiUrl) };
}

/**
 * What a package URL itself says about the repository: a `vcs_url` or `repository_url` qualifier,
 * `pkg:github/owner/repo`, or a Go module path on a known forge (`pkg:golang/github.com/o/r`).
 */
export function repositoryFromPurl(purl: string, apiUrl: string): Repository | null {
  let p: PackageURL;
  try {
    p = parsePackageUrl(purl);
  } catch {
    return null;
  }
  const q = p.qualifiers ?? {};
  for (const key of ['vcs_url', 'repository_url']) {
    const v = q[key];
    const r = v ? parseRepositoryUrl(v, apiUrl) : null;
    if (r) return r;
  }
  if (p.type === 'github' && p.namespace) return parseRepositoryUrl(`${githubWebOrigin(apiUrl)}/${p.namespace}/${p.name}`, apiUrl);
  if (p.type === 'golang' && p.namespace) {
    const [host, owner] = p.namespace.split('/');
    if (host && owner && /^(github\.com|gitlab\.com|codeberg\.org|bitbucket\.org)$/.test(host))
      return parseRepositoryUrl(`https://${host}/${owner}/${p.name}`, apiUrl);
  }
  return null;
}

/** A project site where security.txt may be: an http(s) origin that is not the forge itself. */
export function siteOf(raw: string | null, repo: Repository | null): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
    // The forge's own security.txt speaks for the forge, not for the project hosted there.
    if (repo && u.host.toLowerCase() === repo.host) return null;
    return u.origin;
  } catch {
    return null;
  }
}
