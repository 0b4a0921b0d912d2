import { type Config, portalUrl } from '../../config.js';
import type { Db } from '../../db/client.js';
import { type Operation, type OperationEnv, defineOperation } from '../operations/operation.js';
import { parseInput } from '../../kernel/validate.js';
import { getCompanyById } from '../companies/get-company.js';
import {
  Advisory,
  AdvisoryList,
  CreateAdvisoryInput,
  CsafDocument,
  ListAdvisoriesQuery,
  ReviseAdvisoryInput,
  UpdateAdvisoryInput,
  VexExport,
  WithdrawAdvisoryInput,
} from './advisories.schemas.js';
import { getAdvisoryRow, listAdvisoryRows, toAdvisoryView } from './advisory-rows.js';
import { createAdvisory } from './create-advisory.js';
import { csafUrls } from './csaf-provider.js';
import { advisoryDocument } from './released-documents.js';
import { type AdvisoryTarget, publishAdvisory, reviseAdvisory, withdrawAdvisory } from './release-advisory.js';
import type { DocumentKind } from './render-csaf.js';
import { updateAdvisory } from './update-advisory.js';
import { toCycloneDxVex, toOpenVex } from './vex-exports.js';
import { uuidV5 } from '../../kernel/uuid5.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/** The company's portal as publisher namespace and its TLP:CLEAR distribution folder. */
export async function advisoryTarget(db: Db, config: Config, companyId: string): Promise<AdvisoryTarget> {
  const company = await getCompanyById(db, companyId);
  const portal = portalUrl(config, company.slug);
  return { company, namespace: portal, distributionUrl: csafUrls(portal).distribution };
}

const target = (e: OperationEnv) => advisoryTarget(e.db, e.config, e.companyId);

async function document(e: OperationEnv, id: string, kind: DocumentKind) {
  const t = await target(e);
  const { content } = await advisoryDocument(e.db, t.company, t.namespace, id, kind);
  // The stored bytes as released, so a client can check them against the portal's hash files.
  return { status: 200, body: content, contentType: 'application/json; charset=utf-8' };
}

/** OpenVEX or CycloneDX VEX, converted from the VEX document (released bytes, or a draft preview). */
async function vexExport(e: OperationEnv, id: string, format: 'openvex' | 'cyclonedx') {
  const t = await target(e);
  const csaf = JSON.parse((await advisoryDocument(e.db, t.company, t.namespace, id, 'vex')).content) as Parameters<typeof toOpenVex>[0];
  const tracking = csaf.document.tracking;
  const body = format === 'openvex' ? toOpenVex(csaf, `urn:uuid:${uuidV5(`openvex/${t.namespace}/${tracking.id}/${tracking.version}`)}`) : toCycloneDxVex(csaf);
  return {
    status: 200,
    body: JSON.stringify(body, null, 2),
    contentType: format === 'openvex' ? 'application/json; charset=utf-8' : 'application/vnd.cyclonedx+json; charset=utf-8',
  };
}

/** What every `GET /advisories/:id/{format}` (one document format of an advisory) shares. */
const DOCUMENT = {
  scope: 'read',
  method: 'GET',
  example: { params: { id: EXAMPLE_ID } },
  errors: { 409: 'The advisory was withdrawn before it was published: it has no document.' },
} as const;
const RELEASE_REFUSED = 'The advisory cannot be released yet, or its CSAF or VEX rendering is not valid CSAF 2.0: `errors` names each problem.';

/** The advisory endpoints of docs/advisories.md "Lifecycle": create, list, read, edit, publish, revise, withdraw and the VEX twin. */
export const advisoryOperations: Operation[] = [
  defineOperation({
    name: 'advisories.create',
    statuses: [201],
    summary: 'Create a draft security advisory from a fixed or disclosed report',
    scope: 'triage:write',
    method: 'POST',
    path: '/advisories',
    input: CreateAdvisoryInput,
    output: Advisory,
    errors: {
      404: 'No report of your company has the id given in `vulnerabilityId`.',
      409: 'The report is neither fixed nor disclosed, or it already has an advisory (edit or revise that one).',
    },
    example: { body: { vulnerabilityId: EXAMPLE_ID } },
    handler: async (e, body) => {
      const t = await target(e);
      return { status: 201, body: await createAdvisory(e.db, e.ctx, t.company, t.distributionUrl, body) };
    },
  }),
  defineOperation({
    name: 'advisories.list',
    summary: "The company's advisories, newest first (drafts, published and withdrawn)",
    scope: 'read',
    method: 'GET',
    path: '/advisories',
    query: ListAdvisoriesQuery,
    output: AdvisoryList,
    example: {},
    handler: async (e) => {
      const q = parseInput(ListAdvisoriesQuery, e.query);
      const t = await target(e);
      return { status: 200, body: { advisories: (await listAdvisoryRows(e.db, e.companyId, q.status)).map((r) => toAdvisoryView(r, t.distributionUrl)) } };
    },
  }),
  defineOperation({
    name: 'advisories.get',
    summary: 'One advisory: its working copy, VEX decisions and revision history',
    scope: 'read',
    method: 'GET',
    path: '/advisories/:id',
    output: Advisory,
    example: { params: { id: EXAMPLE_ID } },
    handler: async (e) => ({ status: 200, body: toAdvisoryView(await getAdvisoryRow(e.db, e.companyId, e.params.id), (await target(e)).distributionUrl) }),
  }),
  defineOperation({
    name: 'advisories.update',
    summary:
      'Edit an advisory (text, ids, CVSS, CWE, products and VEX decisions, remediation, acknowledgments); a published one releases the edits with its next revision',
    scope: 'triage:write',
    method: 'PATCH',
    path: '/advisories/:id',
    input: UpdateAdvisoryInput,
    output: Advisory,
    errors: { 409: 'The advisory is withdrawn and cannot change.' },
    example: { params: { id: EXAMPLE_ID }, body: { title: 'Authentication bypass in Thermostat T2' } },
    handler: async (e, body) => {
      const t = await target(e);
      return { status: 200, body: await updateAdvisory(e.db, e.ctx, t.company, t.distributionUrl, e.params.id, body) };
    },
  }),
  defineOperation({
    name: 'advisories.publish',
    summary: 'Publish a draft as CSAF 2.0 (advisory and VEX), after validating both against the official schema (422 when invalid)',
    scope: 'triage:write',
    method: 'POST',
    path: '/advisories/:id/publish',
    output: Advisory,
    errors: { 409: 'The advisory is not a draft (revise a published one).', 422: RELEASE_REFUSED },
    example: { params: { id: EXAMPLE_ID } },
    handler: async (e) => ({ status: 200, body: await publishAdvisory(e.db, e.ctx, await target(e), e.params.id) }),
  }),
  defineOperation({
    name: 'advisories.revise',
    summary: 'Release the edits of a published advisory as its next revision (version + 1)',
    scope: 'triage:write',
    method: 'POST',
    path: '/advisories/:id/revise',
    input: ReviseAdvisoryInput,
    output: Advisory,
    errors: { 409: 'The advisory is not published.', 422: RELEASE_REFUSED },
    example: { params: { id: EXAMPLE_ID }, body: { summary: 'Added the workaround for 2.3' } },
    handler: async (e, body) => ({ status: 200, body: await reviseAdvisory(e.db, e.ctx, await target(e), e.params.id, body) }),
  }),
  defineOperation({
    name: 'advisories.withdraw',
    summary: 'Withdraw an advisory: a published one gets a last revision saying why and stays listed',
    scope: 'triage:write',
    method: 'POST',
    path: '/advisories/:id/withdraw',
    input: WithdrawAdvisoryInput,
    output: Advisory,
    errors: { 409: 'The advisory is already withdrawn.', 422: RELEASE_REFUSED },
    example: { params: { id: EXAMPLE_ID }, body: { reason: 'Issued for the wrong product line' } },
    // Withdrawing a published advisory releases a last revision and queues `advisory.withdrawn`.
    handler: async (e, body) => ({ status: 200, body: await withdrawAdvisory(e.db, e.ctx, await target(e), e.params.id, body) }),
  }),
  defineOperation({
    ...DOCUMENT,
    name: 'advisories.csaf',
    summary: 'The CSAF 2.0 security advisory: the released bytes, or a draft preview (status draft, version 0)',
    path: '/advisories/:id/csaf',
    output: CsafDocument,
    handler: (e) => document(e, e.params.id, 'csaf'),
  }),
  defineOperation({
    ...DOCUMENT,
    name: 'advisories.vex',
    summary: 'The CSAF 2.0 VEX document (csaf_vex) of the same decisions: the released bytes, or a draft preview',
    path: '/advisories/:id/vex',
    output: CsafDocument,
    handler: (e) => document(e, e.params.id, 'vex'),
  }),
  defineOperation({
    ...DOCUMENT,
    name: 'advisories.openvex',
    summary: 'The same VEX decisions as OpenVEX 0.2.0 (one statement per product version)',
    path: '/advisories/:id/openvex',
    output: VexExport,
    handler: (e) => vexExport(e, e.params.id, 'openvex'),
  }),
  defineOperation({
    ...DOCUMENT,
    name: 'advisories.cyclonedx_vex',
    summary: 'The same VEX decisions as a CycloneDX 1.6 VEX document',
    path: '/advisories/:id/cyclonedx-vex',
    output: VexExport,
    produces: ['application/vnd.cyclonedx+json'],
    handler: (e) => vexExport(e, e.params.id, 'cyclonedx'),
  }),
];
