import { z } from 'zod';
import { REQUIREMENTS } from './catalog.js';

const REQUIREMENT_IDS = REQUIREMENTS.map((r) => r.id) as [string, ...string[]];
const Instant = z.iso.datetime({ offset: true });
const Identifier = z.string().trim().min(1).max(255);

export const Verdict = z.enum(['met', 'gap', 'not_applicable', 'not_assessed']).meta({
  id: 'ComplianceVerdict',
  description: 'met; gap (evidence says no); not_applicable (attested, with a justification); not_assessed (no evidence or attestation yet).',
});
export const Category = z
  .enum(['default', 'important_i', 'important_ii', 'critical'])
  .meta({ id: 'ProductCategory', description: 'CRA product category (Art. 7, Art. 8, Annexes III and IV).' });

/** `?product={identifier}` narrows every compliance read to one product; unknown -> 404. */
export const ComplianceQuery = z
  .object({ product: Identifier.optional().meta({ description: 'Only this product (its identifier).', example: 'thermo-t2' }) })
  .meta({ id: 'ComplianceQuery' });

export const Summary = z
  .object({
    met: z.number().int(),
    gap: z.number().int(),
    not_applicable: z.number().int(),
    not_assessed: z.number().int(),
    score: z.number().int().min(0).max(100).meta({ description: 'met over everything that applies, 0-100.' }),
  })
  .meta({ id: 'ComplianceSummary' });

const ProductRef = z.object({ id: z.uuid(), identifier: z.string(), name: z.string() });

export const ComplianceStatus = z
  .object({
    catalogVersion: z.string(),
    evaluatedAt: z.iso.datetime(),
    overall: Summary,
    products: z.array(
      ProductRef.extend({
        category: Category,
        conformityRoute: z.string().meta({ description: 'The conformity assessment route its category allows (Art. 32).' }),
        supportEndsAt: z.iso.datetime().nullable(),
        summary: Summary,
      }),
    ),
  })
  .meta({ id: 'ComplianceStatus' });

export const Gap = z
  .object({
    requirementId: z.string(),
    title: z.string(),
    reference: z.string(),
    product: ProductRef.nullable().meta({
      description: 'null: a company-level gap, listed while the company has no product (no policy, no contact, no product registered).',
    }),
    verdict: z.enum(['gap', 'not_assessed']),
    reason: z.string(),
    action: z.string(),
    actionPath: z.string().meta({ description: 'The dashboard page (below {site_url}) where this gap is closed.', example: '/settings/portal' }),
  })
  .meta({ id: 'ComplianceGap' });
export const ComplianceGaps = z.object({ catalogVersion: z.string(), evaluatedAt: z.iso.datetime(), gaps: z.array(Gap) }).meta({ id: 'ComplianceGaps' });

export const NextTaskBody = z
  .object({
    evaluatedAt: z.iso.datetime(),
    task: z
      .object({
        requirementId: z.string(),
        title: z.string(),
        reference: z.string(),
        products: z.array(ProductRef),
        action: z.string(),
        actionPath: z.string().meta({ description: 'The dashboard page (below {site_url}) where this task is done.', example: '/products#register' }),
        why: z.string(),
        remaining: z.number().int().meta({ description: 'Open requirement-product pairs left after this task.' }),
      })
      .nullable()
      .meta({ description: 'null when nothing is left to do.' }),
  })
  .meta({ id: 'ComplianceNextTask' });

export const Deadline = z
  .object({
    kind: z.enum(['article14_stage', 'cra_full_application', 'security_txt_expiry', 'support_period_end', 'attestation_expiry']),
    at: z.iso.datetime(),
    what: z.string(),
    overdue: z.boolean(),
    reportId: z.uuid().optional(),
    productId: z.uuid().optional(),
    requirementId: z.string().optional(),
  })
  .meta({ id: 'ComplianceDeadline' });
export const NextDeadlineBody = z
  .object({
    evaluatedAt: z.iso.datetime(),
    deadline: Deadline.nullable(),
    upcoming: z.array(Deadline).meta({ description: 'The next deadlines after it, soonest first (at most 10).' }),
  })
  .meta({ id: 'ComplianceNextDeadline' });

export const Mappings = z
  .object({
    catalogVersion: z.string(),
    groups: z.record(z.string(), z.string()),
    requirements: z.array(
      z.object({
        id: z.string(),
        group: z.string(),
        title: z.string(),
        reference: z.string(),
        evaluation: z.enum(['evidence', 'attestation', 'hybrid']),
        evidence: z.string(),
        sources: z.array(z.string()).meta({ description: 'The records the verdict is computed from.' }),
        action: z.string(),
      }),
    ),
  })
  .meta({ id: 'ComplianceMappings' });

export const AttestationView = z
  .object({
    id: z.uuid(),
    requirementId: z.string(),
    productIdentifier: z.string().nullable().meta({ description: 'null: applies to every product of the company.' }),
    verdict: z.enum(['met', 'not_applicable']),
    justification: z.string(),
    evidenceUrl: z.string().nullable(),
    author: z.string(),
    attestedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime().nullable(),
    withdrawnAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Attestation' });
export type AttestationView = z.infer<typeof AttestationView>;

export const Assessments = z
  .object({
    catalogVersion: z.string(),
    evaluatedAt: z.iso.datetime(),
    products: z.array(
      ProductRef.extend({
        category: Category,
        conformityRoute: z.string(),
        summary: Summary,
        assessments: z.array(
          z.object({
            requirementId: z.string(),
            title: z.string(),
            reference: z.string(),
            verdict: Verdict,
            reason: z.string(),
            action: z.string().nullable(),
            attestation: z
              .object({ author: z.string(), attestedAt: z.string(), expiresAt: z.string().nullable(), note: z.string(), evidenceUrl: z.string().nullable() })
              .nullable(),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'ComplianceAssessments' });

export const OscalDocument = z
  .record(z.string(), z.unknown())
  .meta({ id: 'OscalDocument', description: 'An OSCAL 1.0.6 JSON document (also valid OSCAL 1.2).' });

export const RecordAttestationInput = z
  .object({
    requirementId: z.enum(REQUIREMENT_IDS).meta({ description: 'A requirement id of the catalog (GET /compliance/mappings).', example: 'cra-ai-p2-7' }),
    product: Identifier.optional().meta({ description: 'The product identifier; omit to attest for every product.', example: 'thermo-t2' }),
    verdict: z.enum(['met', 'not_applicable']),
    justification: z.string().trim().min(1, 'a justification is required').max(4000).meta({
      description: 'How the requirement is met, or why it does not apply (Art. 13(4)).',
      example: 'Firmware images are signed with Ed25519; the bootloader refuses unsigned images.',
    }),
    evidenceUrl: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    expiresAt: Instant.optional().meta({ description: 'When the attestation stops counting (a review date).' }),
  })
  .strict()
  .meta({ id: 'RecordAttestationInput' });

export const ProductCraFactsInput = z
  .object({
    category: Category.optional(),
    placedOnMarketAt: Instant.nullable().optional(),
    supportEndsAt: Instant.nullable().optional(),
    supportJustification: z
      .string()
      .trim()
      .max(4000)
      .nullable()
      .optional()
      .meta({ description: 'Why a support period shorter than five years fits the expected use (Art. 13(8)).' }),
  })
  .strict()
  .meta({ id: 'ProductCraFactsInput' });
export type ProductCraFactsInput = z.infer<typeof ProductCraFactsInput>;
export const ProductCraFacts = z
  .object({
    productIdentifier: z.string(),
    category: Category,
    placedOnMarketAt: z.iso.datetime().nullable(),
    supportEndsAt: z.iso.datetime().nullable(),
    supportJustification: z.string().nullable(),
    updatedAt: z.iso.datetime().nullable().meta({ description: 'null while nothing is declared (the defaults apply).' }),
  })
  .meta({ id: 'ProductCraFacts' });
export type ProductCraFacts = z.infer<typeof ProductCraFacts>;
