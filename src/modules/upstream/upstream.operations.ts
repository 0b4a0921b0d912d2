import { type Operation, defineOperation } from '../operations/operation.js';
import { parseInput } from '../../kernel/validate.js';
import { discoverUpstreamContacts } from './discover-upstream-contacts.js';
import { UpstreamContactsQuery, UpstreamDiscovery } from './upstream.schemas.js';
import {
  CaseRemindersInput,
  getUpstreamSettings,
  setCaseReminderDays,
  GithubTokenInput,
  MaintainedPackagesInput,
  removeGithubToken,
  setGithubToken,
  setMaintainedPackages,
  UpstreamSettings,
} from './upstream-settings.js';

/** Reaching the maintainers of integrated components (issue 34, docs/upstream.md). */
export const upstreamOperations: Operation[] = [
  defineOperation({
    name: 'upstream.contacts',
    summary:
      'Find who maintains a component and how to reach them: GitHub private reporting, security.txt, SECURITY.md, security-insights.yml, or a company on this instance',
    mcpDescription:
      "Find the upstream maintainer's contact for a component (CRA Article 13(6)) by its package URL: the repository and site come from the company's SBOMs or the purl; then GitHub private vulnerability reporting, the site's security.txt (with its OpenPGP key), SECURITY.md, security-insights.yml and companies on this Cradle instance that declare the package are asked, in that order. Each contact names its source; each source reports its outcome. Makes outbound requests to those sites.",
    scope: 'read',
    method: 'GET',
    path: '/upstream-contacts',
    mcpTool: 'find_upstream_contacts',
    // It asks outside sites (GitHub, the project's site), read-only.
    mcpAnnotations: { openWorldHint: true },
    query: UpstreamContactsQuery,
    output: UpstreamDiscovery,
    example: { query: { purl: 'pkg:npm/left-pad@1.3.0' } },
    handler: async ({ db, config, companyId, query }) => {
      const { purl } = parseInput(UpstreamContactsQuery, query);
      return { status: 200, body: await discoverUpstreamContacts(db, companyId, purl, { config }) };
    },
  }),
  defineOperation({
    name: 'upstream.settings',
    access: 'read-admin',
    summary: 'The upstream settings: the package URLs the company declares it maintains, and whether a GitHub token is set (never the token)',
    scope: 'read',
    method: 'GET',
    path: '/upstream-settings',
    mcpTool: 'get_upstream_settings',
    output: UpstreamSettings,
    example: {},
    handler: async ({ db, config, companyId }) => ({ status: 200, body: await getUpstreamSettings(db, companyId, config.githubApiUrl) }),
  }),
  defineOperation({
    name: 'upstream.maintained_packages',
    summary: 'Declare the package URLs the company maintains (replaces the list), so other companies on this instance find it as their upstream',
    scope: 'upstream:write',
    method: 'PUT',
    path: '/upstream-settings/maintained-packages',
    mcpTool: 'set_maintained_packages',
    input: MaintainedPackagesInput,
    output: UpstreamSettings,
    example: { body: { prefixes: ['pkg:npm/%40acme/widget', 'pkg:maven/com.acme/'] } },
    handler: async ({ db, config, ctx, companyId }, body) => ({
      status: 200,
      body: await setMaintainedPackages(db, ctx, { companyId, input: body, githubApiUrl: config.githubApiUrl }),
    }),
  }),
  defineOperation({
    name: 'upstream.case_reminders',
    summary:
      'Set the days a notified case participant has to acknowledge before it is reminded (default 7); after twice as many the case suggests a coordinator',
    scope: 'upstream:write',
    method: 'PUT',
    path: '/upstream-settings/case-reminders',
    mcpTool: 'set_case_reminder_days',
    input: CaseRemindersInput,
    output: UpstreamSettings,
    example: { body: { days: 10 } },
    handler: async ({ db, config, ctx, companyId }, body) => ({ status: 200, body: await setCaseReminderDays(db, ctx, companyId, body, config.githubApiUrl) }),
  }),
  defineOperation({
    name: 'upstream.github_token.set',
    summary: "Set or replace the company's GitHub token (sealed under the operator key; never shown again)",
    scope: 'upstream:write',
    method: 'PUT',
    path: '/upstream-settings/github-token',
    input: GithubTokenInput,
    output: UpstreamSettings,
    example: { body: { githubToken: 'github_pat_11AAAAAAA0example0token0value' } },
    handler: async ({ db, config, ctx, companyId }, body) => ({
      status: 200,
      body: await setGithubToken(db, ctx, { companyId, input: body, githubApiUrl: config.githubApiUrl }),
    }),
  }),
  defineOperation({
    name: 'upstream.github_token.remove',
    summary: "Remove the company's GitHub token",
    scope: 'upstream:write',
    method: 'DELETE',
    path: '/upstream-settings/github-token',
    output: UpstreamSettings,
    example: {},
    handler: async ({ db, config, ctx, companyId }) => ({
      status: 200,
      body: await removeGithubToken(db, ctx, { companyId, githubApiUrl: config.githubApiUrl }),
    }),
  }),
];
