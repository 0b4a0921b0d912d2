import { type Config, portalUrl } from '../../config.js';
import type { Db } from '../../db/client.js';
import { validation } from '../../kernel/errors.js';
import { SecretBoxError } from '../../kernel/secret-box.js';
import { componentReferences } from '../sboms/component-references.js';
import { findDeclaredMaintainers } from './maintainer-declarations.js';
import { packageOf } from './purl-prefix.js';
import { parseRepositoryUrl, repositoryFromPurl, siteOf } from './repository.js';
import type { UpstreamContact, UpstreamDiscovery } from './upstream.schemas.js';
import { fromGithubPvr, fromSecurityInsights, fromSecurityMd, fromSecurityTxt, type SourceEnv, type SourceResult } from './upstream-sources.js';
import { openGithubToken } from './upstream-settings.js';

export type DiscoveryDeps = { config: Config; now?: Date };

/**
 * Who maintains a component and how to reach them (CRA Article 13(6); docs/upstream.md): the
 * component's repository and site from the company's SBOMs (or from its package URL), then, in this
 * order, GitHub private vulnerability reporting, the site's security.txt, SECURITY.md and
 * security-insights.yml in the repository, and the companies of this instance that declare the
 * package. The outside sources are asked at once; each one's outcome is reported, a failing one
 * never fails the whole. All requests go through the SSRF guard (upstream-http.ts). Read-only: no
 * audit row (the key-use row records the call).
 */
export async function discoverUpstreamContacts(db: Db, companyId: string, purl: string, deps: DiscoveryDeps): Promise<UpstreamDiscovery> {
  const pkg = packageOf(purl);
  if (!pkg) throw validation('purl: not a valid package URL (pkg:<type>/<namespace>/<name>@<version>)', [{ path: 'purl', message: 'not a valid package URL' }]);
  const { githubApiUrl: apiUrl } = deps.config;
  const refs = await componentReferences(db, companyId, purl);
  const repo =
    (refs?.vcsUrl ? parseRepositoryUrl(refs.vcsUrl, apiUrl) : null) ??
    repositoryFromPurl(purl, apiUrl) ??
    // A "website" that is the repository page (common in CycloneDX from package managers).
    (refs?.websiteUrl ? parseRepositoryUrl(refs.websiteUrl, apiUrl) : null);
  const site = siteOf(refs?.websiteUrl ?? null, repo);
  let token: string | undefined;
  let tokenNote = '';
  try {
    token = await openGithubToken(db, companyId);
  } catch (e) {
    if (!(e instanceof SecretBoxError)) throw e;
    tokenNote = ' (the company GitHub token does not open under the configured operator key; asked without it)';
  }
  const env: SourceEnv = { apiUrl, token, allowPrivate: deps.config.webhookAllowPrivateNetworks, now: deps.now ?? new Date() };
  const [pvr, txt, md, insights, declared] = await Promise.all([
    fromGithubPvr(repo, env),
    fromSecurityTxt(site, env),
    fromSecurityMd(repo, env),
    fromSecurityInsights(repo, env),
    fromDeclarations(db, companyId, pkg, deps.config),
  ]);
  if (tokenNote && pvr.attempt.outcome !== 'skipped') pvr.attempt.detail += tokenNote;
  const results = [pvr, txt, md, insights, declared];
  return {
    purl,
    repository: repo?.url ?? null,
    website: site,
    contacts: merge(results.flatMap((r) => r.contacts)),
    sources: results.map((r) => r.attempt),
  };
}

async function fromDeclarations(db: Db, companyId: string, pkg: string, config: DiscoveryDeps['config']): Promise<SourceResult> {
  const found = await findDeclaredMaintainers(db, pkg, companyId);
  const url = (slug: string) => portalUrl(config, slug);
  if (found.length === 0) {
    return {
      attempt: { kind: 'cradle_declaration', url: null, outcome: 'not_found', detail: 'no company on this instance declares this package' },
      contacts: [],
    };
  }
  return {
    attempt: {
      kind: 'cradle_declaration',
      url: url(found[0]?.slug ?? ''),
      outcome: 'found',
      detail: found.map((f) => `${f.slug} declares ${f.prefix}`).join('; '),
    },
    contacts: found.map((f): UpstreamContact => ({ channel: 'cradle', address: f.slug, source: { kind: 'cradle_declaration', url: url(f.slug) } })),
  };
}

/** One contact per channel and address, at its first (most preferred) place; a key found later is kept. */
function merge(list: UpstreamContact[]): UpstreamContact[] {
  const out = new Map<string, UpstreamContact>();
  for (const c of list) {
    const k = `${c.channel}\u0000${c.address.toLowerCase()}`;
    const seen = out.get(k);
    if (!seen) out.set(k, c);
    else if (!seen.encryptionKey && c.encryptionKey) out.set(k, { ...seen, encryptionKey: c.encryptionKey });
  }
  return [...out.values()];
}
