import { z } from 'zod';
import { parsePackageUrl } from '../../kernel/package-url.js';
import { type InvolvementStatus } from './upstream.schemas.js';
import { upstreamRequest, UpstreamHttpError, type UpstreamResponse } from './upstream-http.js';

/**
 * A client of GitHub's private vulnerability reporting (REST API, as github/rest-api-description
 * states it): the repository's status, a report, and the advisory it became read back. Works with
 * GitHub Enterprise Server through `GITHUB_API_URL` (docs/upstream.md "Settings").
 */
export type GithubTarget = {
  /** `GITHUB_API_URL`, without a trailing slash. */
  apiUrl: string;
  /** The company's token; checking the status and reading public files work without one. */
  token?: string | undefined;
  owner: string;
  repo: string;
  allowPrivate: boolean;
  timeoutMs?: number;
};

/** A refusal by GitHub (its status and its `message`, shortened), or no answer at all (`status` null). */
export class GithubApiError extends Error {
  override name = 'GithubApiError';
  readonly status: number | null;
  readonly errors: unknown[];
  constructor(status: number | null, message: string, errors: unknown[] = []) {
    super(message);
    this.status = status;
    this.errors = errors;
  }
}

/** GitHub's names for the ecosystems a report may name (`security-advisory-ecosystems`). */
export const GITHUB_ECOSYSTEMS = ['rubygems', 'npm', 'pip', 'maven', 'nuget', 'composer', 'go', 'rust', 'erlang', 'actions', 'pub', 'other', 'swift'] as const;
export type GithubEcosystem = (typeof GITHUB_ECOSYSTEMS)[number];

const BY_PURL_TYPE: Readonly<Record<string, GithubEcosystem>> = {
  gem: 'rubygems',
  npm: 'npm',
  pypi: 'pip',
  maven: 'maven',
  nuget: 'nuget',
  composer: 'composer',
  golang: 'go',
  cargo: 'rust',
  hex: 'erlang',
  githubactions: 'actions',
  pub: 'pub',
  swift: 'swift',
};

/**
 * The package a report names, from a package URL: GitHub's ecosystem and the package's name in it.
 * Undefined for a type GitHub has no ecosystem for (deb, rpm, generic, ...): such a package is not
 * named as `other`, which would tell the maintainers nothing, but left out (the description says so).
 */
export function githubPackageOf(purl: string): { ecosystem: GithubEcosystem; name: string } | undefined {
  const p = parsePackageUrl(purl);
  const ecosystem = BY_PURL_TYPE[p.type];
  if (!ecosystem) return undefined;
  const ns = p.namespace ?? '';
  const name =
    ecosystem === 'maven'
      ? `${ns}:${p.name}`
      : ecosystem === 'npm' || ecosystem === 'go' || ecosystem === 'composer' || ecosystem === 'swift'
        ? ns
          ? `${ns}/${p.name}`
          : p.name
        : p.name;
  return { ecosystem, name };
}

const Severity = z.enum(['critical', 'high', 'medium', 'low']);

/** The body of `POST /repos/{owner}/{repo}/security-advisories/reports`, checked before it leaves. */
export const PrivateReportBody = z
  .object({
    summary: z.string().trim().min(1).max(1024),
    description: z.string().trim().min(1).max(65_535),
    severity: Severity.optional(),
    cvss_vector_string: z
      .string()
      .regex(/^CVSS:(3\.[01]|4\.0)\//, 'a CVSS v3.x or v4.0 vector')
      .optional(),
    cwe_ids: z
      .array(z.string().regex(/^CWE-\d+$/))
      .max(20)
      .optional(),
    vulnerabilities: z
      .array(
        z.object({
          package: z.object({ ecosystem: z.enum(GITHUB_ECOSYSTEMS), name: z.string().min(1).nullable() }),
          vulnerable_version_range: z.string().nullable().optional(),
          patched_versions: z.string().nullable().optional(),
          vulnerable_functions: z.array(z.string()).nullable().optional(),
        }),
      )
      .optional(),
  })
  .strict()
  .refine((b) => !(b.severity && b.cvss_vector_string), { message: 'give either severity or cvss_vector_string, never both', path: ['severity'] });
export type PrivateReportBody = z.input<typeof PrivateReportBody>;

const headers = (t: GithubTarget, json = false): Record<string, string> => ({
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
  ...(t.token ? { authorization: `Bearer ${t.token}` } : {}),
  ...(json ? { 'content-type': 'application/json' } : {}),
});

const repoPath = (t: GithubTarget): string => `${t.apiUrl}/repos/${encodeURIComponent(t.owner)}/${encodeURIComponent(t.repo)}`;

async function call(t: GithubTarget, url: string, body?: unknown): Promise<UpstreamResponse> {
  try {
    return await upstreamRequest(url, {
      allowPrivate: t.allowPrivate,
      method: body === undefined ? 'GET' : 'POST',
      headers: headers(t, body !== undefined),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      timeoutMs: t.timeoutMs ?? 15_000,
      maxBytes: 1024 * 1024,
    });
  } catch (e) {
    if (e instanceof UpstreamHttpError) throw new GithubApiError(null, `GitHub did not answer: ${e.message}`);
    throw e;
  }
}

function json(res: UpstreamResponse): Record<string, unknown> {
  try {
    const v = JSON.parse(res.body) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function refusal(res: UpstreamResponse, what: string): GithubApiError {
  const b = json(res);
  const said = typeof b.message === 'string' ? `: ${b.message.slice(0, 300)}` : '';
  const why: Record<number, string> = {
    401: 'the GitHub token was refused',
    403: 'GitHub refused (reporting is disabled for this repository, or the token may not do this)',
    404: 'GitHub does not know this repository (or the token cannot see it)',
    422: 'GitHub refused the report as invalid',
  };
  return new GithubApiError(res.status, `${what}: ${why[res.status] ?? `GitHub answered ${res.status}`}${said}`, Array.isArray(b.errors) ? b.errors : []);
}

/** `GET /repos/{owner}/{repo}/private-vulnerability-reporting`: whether the repository accepts private reports. */
export async function checkPrivateReporting(t: GithubTarget): Promise<{ enabled: boolean }> {
  const res = await call(t, `${repoPath(t)}/private-vulnerability-reporting`);
  if (res.status !== 200) throw refusal(res, 'checking private vulnerability reporting');
  const enabled = json(res).enabled;
  if (typeof enabled !== 'boolean') throw new GithubApiError(res.status, 'checking private vulnerability reporting: the answer has no `enabled` flag');
  return { enabled };
}

export type RepositoryAdvisory = {
  ghsaId: string;
  state: 'published' | 'closed' | 'withdrawn' | 'draft' | 'triage';
  htmlUrl: string | null;
  cveId: string | null;
  /** The state as a CSAF involvement status of the maintainer (docs/upstream.md "Reading the advisory back"). */
  involvement: InvolvementStatus;
};

const STATES = ['published', 'closed', 'withdrawn', 'draft', 'triage'] as const;

/**
 * GitHub's advisory state seen as the maintainer's involvement: a report waiting in triage was
 * delivered but not yet taken up (contact attempted); a draft is one they accepted and work on; a
 * published advisory is done; one closed without publishing, or withdrawn, is one they declined.
 */
export function involvementOf(state: RepositoryAdvisory['state']): InvolvementStatus {
  switch (state) {
    case 'triage':
      return 'contact_attempted';
    case 'draft':
      return 'in_progress';
    case 'published':
      return 'completed';
    case 'closed':
    case 'withdrawn':
      return 'disputed';
  }
}

function advisoryOf(res: UpstreamResponse, what: string): RepositoryAdvisory {
  const b = json(res);
  const state = STATES.find((s) => s === b.state);
  if (typeof b.ghsa_id !== 'string' || !state) throw new GithubApiError(res.status, `${what}: the answer is not a repository advisory`);
  return {
    ghsaId: b.ghsa_id,
    state,
    htmlUrl: typeof b.html_url === 'string' ? b.html_url : null,
    cveId: typeof b.cve_id === 'string' ? b.cve_id : null,
    involvement: involvementOf(state),
  };
}

/**
 * `POST /repos/{owner}/{repo}/security-advisories/reports`. The body is checked first (summary and
 * description, severity or a CVSS vector but not both), so an invalid report never leaves; the
 * status is checked first too, so a repository without reporting gets a clear refusal.
 */
export async function createPrivateReport(t: GithubTarget & { body: PrivateReportBody }): Promise<RepositoryAdvisory> {
  const parsed = PrivateReportBody.safeParse(t.body);
  if (!parsed.success)
    throw new GithubApiError(422, `the report is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`);
  if (!t.token) throw new GithubApiError(401, 'reporting through GitHub needs the company GitHub token (Settings, GitHub)');
  const { enabled } = await checkPrivateReporting(t);
  if (!enabled) throw new GithubApiError(403, `private vulnerability reporting is disabled for ${t.owner}/${t.repo}`);
  const res = await call(t, `${repoPath(t)}/security-advisories/reports`, parsed.data);
  if (res.status !== 201) throw refusal(res, 'reporting privately on GitHub');
  return advisoryOf(res, 'reporting privately on GitHub');
}

/** `GET /repos/{owner}/{repo}/security-advisories/{ghsa_id}`: the advisory a report became, and its state. */
export async function readAdvisoryState(t: GithubTarget & { ghsaId: string }): Promise<RepositoryAdvisory> {
  if (!/^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/.test(t.ghsaId)) throw new GithubApiError(422, 'not a GHSA identifier (GHSA-xxxx-xxxx-xxxx)');
  const res = await call(t, `${repoPath(t)}/security-advisories/${t.ghsaId}`);
  if (res.status !== 200) throw refusal(res, 'reading the advisory');
  return advisoryOf(res, 'reading the advisory');
}
