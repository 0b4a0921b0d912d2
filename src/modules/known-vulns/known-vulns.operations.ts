import { type Operation, defineOperation } from '../operations/operation.js';
import { parseInput } from '../../kernel/validate.js';
import { AwarenessFilter, confirmAwareness, dismissAwareness, listAwareness } from './awareness.js';
import { Awareness, ConfirmAwarenessInput, DismissAwarenessInput } from './awareness.schemas.js';
import { z } from 'zod';
import { decideAcrossProducts, decideKnownVuln, getKnownVuln } from './decide-known-vuln.js';
import {
  DecideAcrossInput,
  DecideInput,
  DecisionResult,
  KnownVuln,
  KnownVulnDetail,
  KnownVulnPage,
  KnownVulnVexQuery,
  ListKnownVulnsQuery,
  VexDocument,
} from './known-vulns.schemas.js';
import { listKnownVulns } from './list-known-vulns.js';
import { listAwarenessGroups } from './awareness-groups.js';
import { AwarenessGroup, BulkAwarenessInput, BulkAwarenessResult } from './awareness-groups.schemas.js';
import { bulkDecideAwareness } from './awareness-bulk.js';
import { knownVulnVex } from './vex-documents.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const EXAMPLE_DECISION = { state: 'not_affected', justification: 'code_not_reachable', detail: 'The firmware never calls the JNDI lookup.' };

/**
 * Known vulnerabilities of the components in products' latest SBOMs (issue 25). Not under
 * `/vulnerabilities` (that path holds reports: docs/workflow.md "Lifecycle") nor `/advisories` (CSAF).
 */
export const knownVulnOperations: Operation[] = [
  defineOperation({
    name: 'knownVulnerabilities.list',
    summary:
      "Known vulnerabilities (OSV, with CISA KEV and EPSS) in the components of each product's latest SBOM, most urgent first; filter by product, state, KEV, EPSS, CVSS or one vulnerability across all products",
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
  }),
  defineOperation({
    name: 'knownVulnerabilities.vex',
    summary: "A product's open known vulnerabilities with the team's decisions, as CycloneDX 1.6 VEX or OpenVEX 0.2.0",
    scope: 'read',
    method: 'GET',
    path: '/known-vulnerabilities/vex',
    mcpTool: 'export_known_vulnerabilities_vex',
    errors: { 404: 'No product of your company has the identifier given in `product`.' },
    query: KnownVulnVexQuery,
    output: VexDocument,
    example: { query: { product: 'thermo-t2', format: 'openvex' } },
    handler: async ({ db, companyId, query }) => ({ status: 200, body: (await knownVulnVex(db, companyId, query)).document }),
  }),
  defineOperation({
    name: 'knownVulnerabilities.awareness.list',
    summary: 'Awareness decisions (CRA Article 14): vulnerabilities in CISA KEV found in components of products on the market, pending by default',
    scope: 'read',
    method: 'GET',
    path: '/known-vulnerabilities/awareness',
    mcpTool: 'list_awareness_decisions',
    query: AwarenessFilter,
    output: z.array(Awareness).meta({ id: 'KevAwarenessDecisionList' }),
    example: { query: { state: 'pending' } },
    handler: async ({ db, companyId, query }) => ({ status: 200, body: await listAwareness(db, companyId, query) }),
  }),
  defineOperation({
    name: 'knownVulnerabilities.awareness.groups',
    summary: 'Awareness decisions grouped by vulnerability and component package, with the products and SBOMs each group reaches (pending by default)',
    scope: 'read',
    method: 'GET',
    path: '/known-vulnerabilities/awareness/groups',
    mcpTool: 'list_awareness_groups',
    query: AwarenessFilter,
    output: z.array(AwarenessGroup).meta({ id: 'KevAwarenessGroupList' }),
    example: { query: { state: 'pending' } },
    handler: async ({ db, companyId, query }) => ({ status: 200, body: await listAwarenessGroups(db, companyId, query) }),
  }),
  defineOperation({
    name: 'knownVulnerabilities.awareness.bulk',
    summary:
      'Confirm or dismiss many awareness decisions at once (the ids given, at most 100, or every pending one of a group); each is taken as one by one would, with one result per decision',
    scope: 'triage:write',
    method: 'POST',
    path: '/known-vulnerabilities/awareness/bulk',
    mcpTool: 'bulk_decide_awareness',
    // Confirmations open Article 14 cases as the single verb does (docs/mcp.md "Tools").
    mcpAnnotations: { destructiveHint: true, idempotentHint: true },
    input: BulkAwarenessInput,
    output: BulkAwarenessResult,
    example: { body: { action: 'dismiss', ids: [EXAMPLE_ID], reason: 'The gateway build excludes the JNDI lookup class.' } },
    handler: async ({ db, ctx, companyId, transport }, body) => ({
      status: 200,
      body: await bulkDecideAwareness(db, ctx, companyId, body, transport === 'mcp' ? 'mcp' : 'api'),
    }),
  }),
  defineOperation({
    name: 'knownVulnerabilities.awareness.confirm',
    summary:
      'Confirm awareness of an actively exploited vulnerability: records the awareness time and opens the Article 14 case as a report, clocks running. Cradle reports nothing to anyone by itself',
    scope: 'triage:write',
    method: 'POST',
    path: '/known-vulnerabilities/awareness/:id/confirm',
    mcpTool: 'confirm_awareness',
    errors: { 409: 'The awareness decision was already confirmed or dismissed.' },
    input: ConfirmAwarenessInput,
    output: Awareness,
    example: { params: { id: EXAMPLE_ID }, body: { note: 'Confirmed with the firmware team: the gateway logs request headers.' } },
    handler: async ({ db, ctx, companyId, params, transport }, body) => {
      const a = await confirmAwareness(db, ctx, companyId, params.id, body, transport === 'mcp' ? 'mcp' : 'api');
      return { status: 200, body: a };
    },
  }),
  defineOperation({
    name: 'knownVulnerabilities.awareness.dismiss',
    summary: 'Dismiss an awareness decision with the reason (for example: the product does not use the vulnerable function)',
    scope: 'triage:write',
    method: 'POST',
    path: '/known-vulnerabilities/awareness/:id/dismiss',
    mcpTool: 'dismiss_awareness',
    errors: { 409: 'The awareness decision was already confirmed or dismissed.' },
    input: DismissAwarenessInput,
    output: Awareness,
    example: { params: { id: EXAMPLE_ID }, body: { reason: 'The gateway build excludes the JNDI lookup class.' } },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 200, body: await dismissAwareness(db, ctx, companyId, params.id, body) }),
  }),
  defineOperation({
    name: 'knownVulnerabilities.get',
    summary: 'One known vulnerability of a product component, with the history of decisions on it',
    scope: 'read',
    method: 'GET',
    path: '/known-vulnerabilities/:id',
    mcpTool: 'get_known_vulnerability',
    output: KnownVulnDetail,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await getKnownVuln(db, companyId, params.id) }),
  }),
  defineOperation({
    name: 'knownVulnerabilities.decide',
    summary:
      'Record the analysis of one known vulnerability (CycloneDX VEX state, justification, response, reason); it lasts while later SBOMs keep the component version',
    scope: 'triage:write',
    method: 'POST',
    path: '/known-vulnerabilities/:id/decision',
    mcpTool: 'decide_known_vulnerability',
    input: DecideInput,
    output: KnownVuln,
    example: { params: { id: EXAMPLE_ID }, body: EXAMPLE_DECISION },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 200, body: await decideKnownVuln(db, ctx, companyId, params.id, body) }),
  }),
  defineOperation({
    name: 'knownVulnerabilities.decideAcross',
    summary: 'Record one analysis of a vulnerability for every open match naming it, in one product or in all products at once',
    scope: 'triage:write',
    method: 'POST',
    path: '/known-vulnerabilities/decisions',
    mcpTool: 'decide_known_vulnerability_everywhere',
    errors: { 404: 'No product of your company has the identifier given in `product`, or no open match names the vulnerability.' },
    input: DecideAcrossInput,
    output: DecisionResult,
    example: { body: { vulnerability: 'CVE-2021-44228', ...EXAMPLE_DECISION } },
    handler: async ({ db, ctx, companyId }, body) => ({ status: 200, body: await decideAcrossProducts(db, ctx, companyId, body) }),
  }),
];
