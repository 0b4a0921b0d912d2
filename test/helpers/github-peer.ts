import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A GitHub REST API peer on loopback answering the private vulnerability reporting endpoints as
 * github/rest-api-description documents them: `GET .../private-vulnerability-reporting` ({enabled}),
 * `POST .../security-advisories/reports` (201 with a repository advisory in `triage`; 403 when
 * reporting is disabled; 404 for an unknown repository; 422 without summary and description, with
 * both severity and cvss_vector_string, or with `vulnerabilities` GitHub's schema refuses), `GET .../security-advisories/{ghsa_id}`, and the
 * contents API with `Accept: application/vnd.github.raw+json`. Mounted at `/api/v3` like GitHub
 * Enterprise Server, so its web host is the peer's own host. Also serves a project's site:
 * `/.well-known/security.txt` and `/pgp-key.txt` of `site`.
 */
/** `refuse`: the answer every report to this repository gets instead of 201 (a 422 GitHub finds invalid, a 503 outage). */
export type PeerRepo = { pvr: boolean; files?: Record<string, string>; refuse?: { status: number; message: string } };
export type SeenRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string };
export type StoredAdvisory = { ghsa_id: string; state: string; owner: string; repo: string; body: Record<string, unknown> };

const ALPHABET = '23456789cfghjmpqrvwx';

/** `security-advisory-ecosystems` of github/rest-api-description (API version 2022-11-28), as GitHub lists it. */
const ECOSYSTEMS = new Set(['rubygems', 'npm', 'pip', 'maven', 'nuget', 'composer', 'go', 'rust', 'erlang', 'actions', 'pub', 'other', 'swift']);
const nullableString = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/**
 * What GitHub refuses in `vulnerabilities` of `private-vulnerability-report-create`: not an array of
 * objects with only `package` (required: `ecosystem` from the enum, `name` a string or null),
 * `vulnerable_version_range`, `patched_versions` (strings or null) and `vulnerable_functions`
 * (strings, or null). Undefined when it passes.
 */
function vulnerabilitiesProblem(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) return 'vulnerabilities is not an array.';
  for (const [i, item] of v.entries()) {
    if (typeof item !== 'object' || item === null) return `vulnerabilities[${i}] is not an object.`;
    const extra = Object.keys(item).filter((k) => !['package', 'vulnerable_version_range', 'patched_versions', 'vulnerable_functions'].includes(k));
    if (extra.length) return `vulnerabilities[${i}] has unknown keys: ${extra.join(', ')}.`;
    const it = item as Record<string, unknown>;
    const pkg = it.package as Record<string, unknown> | undefined;
    if (typeof pkg !== 'object' || pkg === null) return `vulnerabilities[${i}].package is missing.`;
    if (Object.keys(pkg).some((k) => k !== 'ecosystem' && k !== 'name')) return `vulnerabilities[${i}].package has unknown keys.`;
    if (typeof pkg.ecosystem !== 'string' || !ECOSYSTEMS.has(pkg.ecosystem)) return `${String(pkg.ecosystem)} is not a valid ecosystem.`;
    if (!nullableString(pkg.name)) return `vulnerabilities[${i}].package.name is not a string.`;
    if (!nullableString(it.vulnerable_version_range) || !nullableString(it.patched_versions))
      return `vulnerabilities[${i}] has a version that is not a string.`;
    const fns = it.vulnerable_functions;
    if (fns !== undefined && fns !== null && (!Array.isArray(fns) || fns.some((f) => typeof f !== 'string')))
      return `vulnerabilities[${i}].vulnerable_functions is not a list of strings.`;
  }
  return undefined;
}
const ghsa = (): string => `GHSA-${[0, 1, 2].map(() => Array.from(randomBytes(4), (b) => ALPHABET[b % ALPHABET.length]).join('')).join('-')}`;

export async function startGithubPeer(opts: { token?: string } = {}) {
  const repos = new Map<string, PeerRepo>();
  const advisories = new Map<string, StoredAdvisory>();
  const site: { securityTxt?: string; key?: string; status?: number } = {};
  const seen: SeenRequest[] = [];
  const token = opts.token ?? 'ghp_peerTokenForTests0123456789abcdef';
  let base = '';

  const send = (res: ServerResponse, status: number, body: unknown, type = 'application/json; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, message: string, extra: Record<string, unknown> = {}) =>
    send(res, status, {
      message,
      documentation_url: 'https://docs.github.com/rest/security-advisories/repository-advisories',
      status: String(status),
      ...extra,
    });
  const advisoryJson = (a: StoredAdvisory) => ({
    ghsa_id: a.ghsa_id,
    cve_id: null,
    url: `${base}/api/v3/repos/${a.owner}/${a.repo}/security-advisories/${a.ghsa_id}`,
    html_url: `${base}/${a.owner}/${a.repo}/security/advisories/${a.ghsa_id}`,
    summary: a.body.summary,
    description: a.body.description,
    severity: a.body.severity ?? null,
    state: a.state,
    submission: { accepted: a.state !== 'triage' },
    cwe_ids: a.body.cwe_ids ?? [],
    vulnerabilities: a.body.vulnerabilities ?? [],
    created_at: new Date().toISOString(),
  });

  function handle(req: IncomingMessage, res: ServerResponse, body: string) {
    const url = new URL(req.url ?? '/', base);
    const path = url.pathname;
    if (path === '/.well-known/security.txt') {
      if (site.status) return send(res, site.status, 'no', 'text/plain');
      return site.securityTxt ? send(res, 200, site.securityTxt, 'text/plain; charset=utf-8') : send(res, 404, 'not found', 'text/plain');
    }
    if (path === '/pgp-key.txt') return site.key ? send(res, 200, site.key, 'text/plain') : send(res, 404, 'not found', 'text/plain');
    const m = /^\/api\/v3\/repos\/([^/]+)\/([^/]+)\/(.+)$/.exec(path);
    if (!m) return error(res, 404, 'Not Found');
    const [, owner, name, rest] = m as unknown as [string, string, string, string];
    const repo = repos.get(`${owner}/${name}`.toLowerCase());
    const auth = req.headers.authorization;
    if (auth !== undefined && auth !== `Bearer ${token}`) return error(res, 401, 'Bad credentials');
    if (!repo) return error(res, 404, 'Not Found');
    if (req.method === 'GET' && rest === 'private-vulnerability-reporting') return send(res, 200, { enabled: repo.pvr });
    if (req.method === 'POST' && rest === 'security-advisories/reports') {
      if (!auth) return error(res, 401, 'Requires authentication');
      if (!repo.pvr) return error(res, 403, 'Private vulnerability reporting is disabled for this repository.');
      if (repo.refuse) return error(res, repo.refuse.status, repo.refuse.message);
      let b: Record<string, unknown>;
      try {
        b = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return error(res, 400, 'Problems parsing JSON');
      }
      const missing = ['summary', 'description'].filter((f) => typeof b[f] !== 'string' || (b[f] as string).length === 0);
      if (missing.length) {
        return error(res, 422, 'Invalid request.', { errors: missing.map((field) => ({ resource: 'RepositoryAdvisory', code: 'missing_field', field })) });
      }
      if (b.severity != null && b.cvss_vector_string != null) {
        return error(res, 422, 'Validation Failed', {
          errors: [{ resource: 'RepositoryAdvisory', code: 'invalid', message: 'You may only provide one of severity or cvss_vector_string.' }],
        });
      }
      const invalid = vulnerabilitiesProblem(b.vulnerabilities);
      if (invalid)
        return error(res, 422, 'Validation Failed', {
          errors: [{ resource: 'RepositoryAdvisory', code: 'invalid', field: 'vulnerabilities', message: invalid }],
        });
      const a: StoredAdvisory = { ghsa_id: ghsa(), state: 'triage', owner, repo: name, body: b };
      advisories.set(a.ghsa_id, a);
      return send(res, 201, advisoryJson(a));
    }
    const adv = /^security-advisories\/(GHSA-[\w-]+)$/.exec(rest);
    if (req.method === 'GET' && adv) {
      const a = advisories.get(adv[1] as string);
      return a && a.owner === owner && a.repo === name ? send(res, 200, advisoryJson(a)) : error(res, 404, 'Not Found');
    }
    const file = /^contents\/(.+)$/.exec(rest);
    if (req.method === 'GET' && file) {
      const content = repo.files?.[decodeURIComponent(file[1] as string)];
      if (content === undefined) return error(res, 404, 'Not Found');
      if (req.headers.accept === 'application/vnd.github.raw+json') return send(res, 200, content, 'application/vnd.github.raw+json; charset=utf-8');
      return send(res, 200, { type: 'file', encoding: 'base64', content: Buffer.from(content).toString('base64') });
    }
    return error(res, 404, 'Not Found');
  }

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    base,
    apiUrl: `${base}/api/v3`,
    token,
    repos,
    advisories,
    site,
    seen,
    /** The maintainer acts on an advisory (accepts, publishes, closes). */
    setState: (id: string, state: string) => {
      const a = advisories.get(id);
      if (a) a.state = state;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
export type GithubPeer = Awaited<ReturnType<typeof startGithubPeer>>;
