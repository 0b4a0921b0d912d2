import { z } from 'zod';
import type { Operation, OperationEnv } from '../operations/operation.js';
import { listAttestations, recordAttestation, withdrawAttestation } from './attestations.js';
import {
  Assessments, AttestationView, ComplianceGaps, ComplianceQuery, ComplianceStatus, Mappings, NextDeadlineBody, NextTaskBody,
  OscalDocument, ProductCraFacts, ProductCraFactsInput, RecordAttestationInput,
} from './compliance.schemas.js';
import { assessmentsView, evaluateSnapshot, gapsView, mappingsView, nextDeadlineView, nextTaskView, statusView } from './compliance-views.js';
import { oscalCatalog } from './oscal-catalog.js';
import { oscalAssessmentResults } from './oscal-results.js';
import { getProductCraFacts, setProductCraFacts } from './product-cra-facts.js';
import { assertPlan, PLAN_RULES, type PlanGated, readCompliance, snapshotFor } from './read-compliance.js';

/** The catalog's publication date: OSCAL `last-modified` of the catalog, stable across requests. */
const CATALOG_PUBLISHED = new Date('2026-11-22T00:00:00Z');
const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const catalogHref = (env: OperationEnv) => new URL('/api/v1/compliance/mappings/oscal', env.config.publicUrl).href;

const read = (
  name: string, path: string, mcpTool: string | undefined, summary: string, output: z.ZodType, body: (env: OperationEnv) => Promise<unknown>, query: z.ZodObject | null = ComplianceQuery,
): Operation => ({
  name, summary, scope: 'read', method: 'GET', path, ...(mcpTool ? { mcpTool } : {}), output, ...(query ? { query } : {}), example: {},
  ...(query?.shape.product ? { errors: { 404: 'No product of your company has the identifier given in `product`.' } } : {}),
  handler: async (env) => ({ status: 200, body: await body(env) }),
});

/** Spec "Endpoints": next-task and next-deadline are "available from the Reporting plan upward". */
const gated = (feature: PlanGated, op: Operation): Operation => ({ ...op, minPlan: PLAN_RULES[feature] });

/** Spec "Endpoints" (compliance) plus attestations and product CRA facts (issue 8). */
export const complianceOperations: Operation[] = [
  read('compliance.status', '/compliance/status', 'get_compliance_status', 'Compliance status: overall and per product, verdict counts and a 0-100 score', ComplianceStatus,
    async ({ db, companyId, query }) => statusView(await readCompliance(db, companyId, query))),
  read('compliance.gaps', '/compliance/gaps', 'get_compliance_gaps', 'Open compliance gaps: requirement, product, reason and the action that closes it (gaps first, then the not yet assessed)', ComplianceGaps,
    async ({ db, companyId, query }) => gapsView(await readCompliance(db, companyId, query))),
  gated('next-task', read('compliance.next_task', '/compliance/next-task', 'get_next_task', 'The single most valuable next action, with why (Reporting plan or higher)', NextTaskBody,
    async ({ db, companyId, query }) => {
      const s = await snapshotFor(db, companyId, query);
      assertPlan(s.plan, 'next-task');
      return nextTaskView(evaluateSnapshot(s));
    })),
  gated('next-deadline', read('compliance.next_deadline', '/compliance/next-deadline', 'get_next_deadline', 'The next regulatory deadline, and the ones after it (Reporting plan or higher)', NextDeadlineBody,
    async ({ db, companyId, query }) => {
      const s = await snapshotFor(db, companyId, query);
      assertPlan(s.plan, 'next-deadline');
      return nextDeadlineView(s);
    })),
  read('compliance.mappings', '/compliance/mappings', 'get_cra_mappings', 'The CRA requirement catalog: each requirement, its legal reference and the evidence its verdict uses', Mappings,
    async () => mappingsView(), null),
  read('compliance.mappings_oscal', '/compliance/mappings/oscal', undefined, 'The CRA requirement catalog as an OSCAL 1.0.6 catalog', OscalDocument,
    async () => oscalCatalog(CATALOG_PUBLISHED), null),
  read('compliance.assessments', '/compliance/assessments', 'get_assessments', 'Product assessments: every requirement per product with its verdict and evidence', Assessments,
    async ({ db, companyId, query }) => assessmentsView(await readCompliance(db, companyId, query))),
  read('compliance.assessments_oscal', '/compliance/assessments/oscal', 'get_assessments_oscal', 'Product assessments as OSCAL 1.0.6 assessment results', OscalDocument,
    async (env) => {
      const { snapshot, assessments } = await readCompliance(env.db, env.companyId, env.query);
      return oscalAssessmentResults(snapshot.evidence.products, assessments, snapshot.takenAt, catalogHref(env));
    }),
  read('compliance.attestations', '/compliance/attestations', undefined, "The company's attestations, newest first", z.array(AttestationView),
    async ({ db, companyId, query }) => listAttestations(db, companyId, { includeWithdrawn: query.includeWithdrawn === 'true' }),
    z.object({ includeWithdrawn: z.enum(['true', 'false']).optional().meta({ description: 'Also list withdrawn attestations.' }) }).meta({ id: 'AttestationsQuery' })),
  {
    name: 'compliance.attest',
    statuses: [201],
    summary: 'Attest a requirement the service cannot evidence: met, or not applicable, always with a justification',
    scope: 'products:write',
    method: 'POST',
    path: '/compliance/attestations',
    input: RecordAttestationInput,
    output: AttestationView,
    errors: { 404: 'No product of your company has the identifier given in `product`.' },
    example: { body: { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'Firmware images are signed with Ed25519; the bootloader refuses unsigned images.' } },
    handler: async ({ db, ctx, companyId }, body) => {
      const who = 'id' in ctx.actor ? `${ctx.actor.type.replace('_', ' ')} ${ctx.actor.id}` : ctx.actor.type;
      return { status: 201, body: await recordAttestation(db, ctx, companyId, body, who) };
    },
  },
  {
    name: 'compliance.withdraw_attestation',
    statuses: [204],
    summary: 'Withdraw an attestation (it is kept, marked withdrawn, and stops counting)',
    scope: 'products:write',
    method: 'DELETE',
    path: '/compliance/attestations/:id',
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, ctx, companyId, params }) => {
      await withdrawAttestation(db, ctx, companyId, params.id ?? '');
      return { status: 204, body: undefined };
    },
  },
  read('compliance.product_facts', '/compliance/products/:identifier', undefined, "A product's CRA facts: category, placed on the market, support period", ProductCraFacts,
    async ({ db, companyId, params }) => getProductCraFacts(db, companyId, params.identifier ?? ''), null),
  {
    name: 'compliance.set_product_facts',
    summary: "Declare a product's CRA facts (omitted fields keep their value; null clears one)",
    scope: 'products:write',
    method: 'PUT',
    path: '/compliance/products/:identifier',
    input: ProductCraFactsInput,
    output: ProductCraFacts,
    example: { params: { identifier: 'thermo-t2' }, body: { category: 'important_i', placedOnMarketAt: '2026-01-15T00:00:00Z', supportEndsAt: '2031-12-31T00:00:00Z' } },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 200, body: await setProductCraFacts(db, ctx, companyId, params.identifier ?? '', body) }),
  },
];

