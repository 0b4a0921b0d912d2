import { z } from 'zod';
import { type Operation, defineOperation } from '../operations/operation.js';
import { listAttestations, recordAttestation, withdrawAttestation } from './attestations.js';
import {
  Assessments,
  AttestationView,
  ComplianceGaps,
  ComplianceQuery,
  ComplianceStatus,
  Mappings,
  NextDeadlineBody,
  NextTaskBody,
  OscalDocument,
  ProductCraFacts,
  ProductCraFactsInput,
  RecordAttestationInput,
} from './compliance.schemas.js';
import { assessmentsView, evaluateSnapshot, gapsView, mappingsView, nextDeadlineView, nextTaskView, statusView } from './compliance-views.js';
import { craOscalCatalog, oscalAssessmentsOf } from './oscal-documents.js';
import { getProductCraFacts, setProductCraFacts } from './product-cra-facts.js';
import { assertPlan, PLAN_RULES, readCompliance, snapshotFor } from './read-compliance.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/** What every compliance read shares. */
const READ = { scope: 'read', method: 'GET', example: {} } as const;
/** A read of the evaluated evidence: filtered by `product` (an unknown one is 404). */
const EVIDENCE_READ = { ...READ, query: ComplianceQuery, errors: { 404: 'No product of your company has the identifier given in `product`.' } } as const;

/** The compliance reads of docs/compliance.md "Endpoints", plus attestations and product CRA facts (issue 8). */
export const complianceOperations: Operation[] = [
  defineOperation({
    ...EVIDENCE_READ,
    name: 'compliance.status',
    summary: 'Compliance status: overall and per product, verdict counts and a 0-100 score',
    path: '/compliance/status',
    mcpTool: 'get_compliance_status',
    output: ComplianceStatus,
    handler: async ({ db, companyId, query }) => ({ status: 200, body: statusView(await readCompliance(db, companyId, query)) }),
  }),
  defineOperation({
    ...EVIDENCE_READ,
    name: 'compliance.gaps',
    summary: 'Open compliance gaps: requirement, product, reason and the action that closes it (gaps first, then the not yet assessed)',
    path: '/compliance/gaps',
    mcpTool: 'get_compliance_gaps',
    output: ComplianceGaps,
    handler: async ({ db, companyId, query }) => ({ status: 200, body: gapsView(await readCompliance(db, companyId, query)) }),
  }),
  // docs/compliance.md "Endpoints": next-task and next-deadline are available from the Reporting plan upward.
  defineOperation({
    ...EVIDENCE_READ,
    name: 'compliance.next_task',
    summary: 'The single most valuable next action, with why (Reporting plan or higher)',
    path: '/compliance/next-task',
    mcpTool: 'get_next_task',
    minPlan: PLAN_RULES['next-task'],
    output: NextTaskBody,
    handler: async ({ db, companyId, query }) => {
      const s = await snapshotFor(db, companyId, query);
      assertPlan(s.plan, 'next-task');
      return { status: 200, body: nextTaskView(evaluateSnapshot(s)) };
    },
  }),
  defineOperation({
    ...EVIDENCE_READ,
    name: 'compliance.next_deadline',
    summary: 'The next regulatory deadline, and the ones after it (Reporting plan or higher)',
    path: '/compliance/next-deadline',
    mcpTool: 'get_next_deadline',
    minPlan: PLAN_RULES['next-deadline'],
    output: NextDeadlineBody,
    handler: async ({ db, companyId, query }) => {
      const s = await snapshotFor(db, companyId, query);
      assertPlan(s.plan, 'next-deadline');
      return { status: 200, body: nextDeadlineView(s) };
    },
  }),
  defineOperation({
    ...READ,
    name: 'compliance.mappings',
    summary: 'The CRA requirement catalog: each requirement, its legal reference and the evidence its verdict uses',
    path: '/compliance/mappings',
    mcpTool: 'get_cra_mappings',
    output: Mappings,
    handler: async () => ({ status: 200, body: mappingsView() }),
  }),
  defineOperation({
    ...READ,
    name: 'compliance.mappings_oscal',
    summary: 'The CRA requirement catalog as an OSCAL 1.0.6 catalog',
    path: '/compliance/mappings/oscal',
    output: OscalDocument,
    handler: async () => ({ status: 200, body: craOscalCatalog() }),
  }),
  defineOperation({
    ...EVIDENCE_READ,
    name: 'compliance.assessments',
    summary: 'Product assessments: every requirement per product with its verdict and evidence',
    path: '/compliance/assessments',
    mcpTool: 'get_assessments',
    output: Assessments,
    handler: async ({ db, companyId, query }) => ({ status: 200, body: assessmentsView(await readCompliance(db, companyId, query)) }),
  }),
  defineOperation({
    ...EVIDENCE_READ,
    name: 'compliance.assessments_oscal',
    summary: 'Product assessments as OSCAL 1.0.6 assessment results',
    path: '/compliance/assessments/oscal',
    mcpTool: 'get_assessments_oscal',
    output: OscalDocument,
    handler: async (env) => ({ status: 200, body: await oscalAssessmentsOf(env.db, env.config, env.companyId, env.query) }),
  }),
  defineOperation({
    ...READ,
    name: 'compliance.attestations',
    summary: "The company's attestations, newest first",
    path: '/compliance/attestations',
    query: z
      .object({ includeWithdrawn: z.enum(['true', 'false']).optional().meta({ description: 'Also list withdrawn attestations.' }) })
      .meta({ id: 'AttestationsQuery' }),
    output: z.array(AttestationView),
    handler: async ({ db, companyId, query }) => ({
      status: 200,
      body: await listAttestations(db, companyId, { includeWithdrawn: query.includeWithdrawn === 'true' }),
    }),
  }),
  defineOperation({
    name: 'compliance.attest',
    statuses: [201],
    summary: 'Attest a requirement the service cannot evidence: met, or not applicable, always with a justification',
    scope: 'products:write',
    method: 'POST',
    path: '/compliance/attestations',
    input: RecordAttestationInput,
    output: AttestationView,
    errors: { 404: 'No product of your company has the identifier given in `product`.' },
    example: {
      body: { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'Firmware images are signed with Ed25519; the bootloader refuses unsigned images.' },
    },
    handler: async ({ db, ctx, companyId }, body) => {
      const who = 'id' in ctx.actor ? `${ctx.actor.type.replace('_', ' ')} ${ctx.actor.id}` : ctx.actor.type;
      return { status: 201, body: await recordAttestation(db, ctx, companyId, body, who) };
    },
  }),
  defineOperation({
    name: 'compliance.withdraw_attestation',
    statuses: [204],
    summary: 'Withdraw an attestation (it is kept, marked withdrawn, and stops counting)',
    scope: 'products:write',
    method: 'DELETE',
    path: '/compliance/attestations/:id',
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, ctx, companyId, params }) => {
      await withdrawAttestation(db, ctx, companyId, params.id);
      return { status: 204, body: undefined };
    },
  }),
  defineOperation({
    ...READ,
    name: 'compliance.product_facts',
    summary: "A product's CRA facts: category, placed on the market, support period",
    path: '/compliance/products/:identifier',
    output: ProductCraFacts,
    example: { params: { identifier: 'thermo-t2' } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await getProductCraFacts(db, companyId, params.identifier) }),
  }),
  defineOperation({
    name: 'compliance.set_product_facts',
    summary: "Declare a product's CRA facts (omitted fields keep their value; null clears one)",
    scope: 'products:write',
    method: 'PUT',
    path: '/compliance/products/:identifier',
    input: ProductCraFactsInput,
    output: ProductCraFacts,
    example: {
      params: { identifier: 'thermo-t2' },
      body: { category: 'important_i', placedOnMarketAt: '2026-01-15T00:00:00Z', supportEndsAt: '2031-12-31T00:00:00Z' },
    },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 200, body: await setProductCraFacts(db, ctx, companyId, params.identifier, body) }),
  }),
];
