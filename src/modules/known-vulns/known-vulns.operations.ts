import type { Operation } from '../../http/operations.js';
import { parseInput } from '../../kernel/validate.js';
import { KnownVulnPage, ListKnownVulnsQuery } from './known-vulns.schemas.js';
import { listKnownVulns } from './list-known-vulns.js';

/**
 * Known vulnerabilities of the components in products' latest SBOMs (issue 25). Not under
 * `/vulnerabilities` (the spec gives that path to reports) nor `/advisories` (CSAF).
 */
export const knownVulnOperations: Operation[] = [
  {
    name: 'knownVulnerabilities.list',
    summary: 'Known vulnerabilities (OSV, with CISA KEV and EPSS) in the components of each product\'s latest SBOM, most urgent first; filter by product, state, KEV, EPSS, CVSS or one vulnerability across all products',
    mcpDescription:
      "Lists the known vulnerabilities matched in the components of the company's products (their latest SBOMs), one per flaw and component version, KEV first, then by EPSS and CVSS. Filter by `product`, `state` (open, resolved, all), `kev`, `minEpss`, `minCvss`, or `vulnerability` (any CVE/GHSA/OSV id) to see where the company is exposed to one flaw.",
    scope: 'read',
    method: 'GET',
    path: '/known-vulnerabilities',
    mcpTool: 'list_known_vulnerabilities',
    query: ListKnownVulnsQuery,
    output: KnownVulnPage,
    errors: { 404: 'No product of your company has the identifier given in `product`.' },
    example: { query: { state: 'open', limit: '50' } },
    handler: async ({ db, companyId, query }) => {
      const { limit, offset, ...filter } = parseInput(ListKnownVulnsQuery, query);
      return { status: 200, body: await listKnownVulns(db, companyId, filter, { limit, offset }) };
    },
  },
];
