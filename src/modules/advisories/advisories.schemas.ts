import { z } from 'zod';
import { NOT_AFFECTED_JUSTIFICATIONS } from './csaf.js';

export const ADVISORY_STATES = ['draft', 'published', 'withdrawn'] as const;
export type AdvisoryState = (typeof ADVISORY_STATES)[number];

/** VEX decisions about one product version (CSAF `product_status`; `not_affected` is CSAF's known_not_affected). */
/** The kinds of remediation an advisory offers (CSAF 2.0 section 3.2.3.12 categories). */
export const REMEDIATION_CATEGORIES = ['vendor_fix', 'mitigation', 'workaround', 'none_available', 'no_fix_planned'] as const;
export const PRODUCT_DECISIONS = ['known_affected', 'fixed', 'not_affected', 'under_investigation'] as const;

const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

export const CreateAdvisoryInput = z
  .object({
    vulnerabilityId: z
      .uuid({ error: 'vulnerabilityId must be the submissionId of a report' })
      .meta({ description: 'The report (submissionId) the advisory discloses; it must be fixed or disclosed.' }),
  })
  .strict()
  .meta({ id: 'CreateAdvisoryInput' });

export const AdvisoryProduct = z
  .object({
    productIdentifier: z.string().max(255).nullable().optional().meta({ description: "A registered product's identifier; vendor and name default from it." }),
    vendor: Text(255).optional(),
    name: Text(255).optional(),
    version: Text(255),
    status: z.enum(PRODUCT_DECISIONS),
    justification: z
      .enum(NOT_AFFECTED_JUSTIFICATIONS)
      .nullable()
      .optional()
      .meta({ description: 'Required for not_affected: the CSAF 2.0 flag label saying why.' }),
    impact: z.string().trim().max(10_000).nullable().optional().meta({ description: 'Impact statement for this product version.' }),
  })
  .strict()
  .meta({ id: 'AdvisoryProductInput' });

export const AdvisoryAcknowledgmentInput = z
  .object({
    name: Text(255),
    organization: z.string().trim().max(255).nullable().optional(),
    consent: z.literal(true, { error: 'name a researcher only with their consent: set consent to true once they agreed' }),
  })
  .strict();

/** PATCH: every field optional; a published advisory's edits wait for the next revision. */
export const UpdateAdvisoryInput = z
  .object({
    title: Text(500).optional(),
    summary: Text(10_000).optional(),
    description: Text(64_000).optional(),
    cve: z
      .string()
      .regex(/^CVE-\d{4}-\d{4,}$/, 'expected a CVE id such as CVE-2026-12345')
      .nullable()
      .optional(),
    ids: z
      .array(z.object({ systemName: Text(100), text: Text(255) }).strict())
      .max(20)
      .optional(),
    cvssVector: z.string().max(200).nullable().optional().meta({ description: 'CVSS 3.1 (scored in CSAF) or 4.0 (a note: CSAF 2.0 has no 4.0 score).' }),
    cwe: z
      .string()
      .regex(/^CWE-\d{1,5}$/, 'expected a CWE id such as CWE-79')
      .nullable()
      .optional(),
    cweName: Text(255).nullable().optional(),
    products: z.array(AdvisoryProduct).max(500).optional(),
    remediation: z
      .object({
        category: z.enum(REMEDIATION_CATEGORIES),
        details: Text(10_000),
        url: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .nullable()
          .optional(),
      })
      .strict()
      .nullable()
      .optional(),
    acknowledgments: z.array(AdvisoryAcknowledgmentInput).max(50).optional(),
  })
  .strict()
  .meta({ id: 'UpdateAdvisoryInput' });
export type UpdateAdvisoryInput = z.infer<typeof UpdateAdvisoryInput>;

export const ReviseAdvisoryInput = z
  .object({ summary: Text(1000).meta({ description: 'What changed, for the revision history.', example: 'Added the workaround for 2.3' }) })
  .strict()
  .meta({ id: 'ReviseAdvisoryInput' });

export const WithdrawAdvisoryInput = z
  .object({ reason: Text(1000).meta({ description: 'Why the advisory is withdrawn; published as its last revision.' }) })
  .strict()
  .meta({ id: 'WithdrawAdvisoryInput' });

export const ListAdvisoriesQuery = z.object({ status: z.enum(ADVISORY_STATES).optional().meta({ description: 'Only advisories in this state.' }) }).strict();

const Instant = z.string().meta({ description: 'ISO 8601 UTC' });

export const Advisory = z
  .object({
    id: z.uuid(),
    trackingId: z.string(),
    vulnerabilityId: z.uuid(),
    status: z.enum(ADVISORY_STATES),
    title: z.string(),
    summary: z.string(),
    description: z.string(),
    cve: z.string().nullable(),
    ids: z.array(z.object({ systemName: z.string(), text: z.string() })),
    cvssVector: z.string().nullable(),
    cwe: z.string().nullable(),
    cweName: z.string().nullable(),
    products: z.array(
      z.object({
        productIdentifier: z.string().nullable(),
        vendor: z.string(),
        name: z.string(),
        version: z.string(),
        status: z.enum(PRODUCT_DECISIONS),
        justification: z.string().nullable(),
        impact: z.string().nullable(),
      }),
    ),
    remediation: z.object({ category: z.string(), details: z.string(), url: z.string().nullable() }).nullable(),
    acknowledgments: z.array(z.object({ name: z.string(), organization: z.string().nullable(), consentRecordedAt: Instant })),
    tlp: z.literal('CLEAR'),
    version: z.string().nullable().meta({ description: 'CSAF tracking version of the released document; null for a draft.' }),
    revisions: z.array(z.object({ number: z.string(), date: Instant, summary: z.string() })),
    pendingChanges: z.boolean().meta({ description: 'Edits made since the last release, waiting for a revision.' }),
    publicUrl: z.string().nullable().meta({ description: 'The released CSAF document on the portal; null for a draft.' }),
    initialReleaseAt: Instant.nullable(),
    currentReleaseAt: Instant.nullable(),
    withdrawnAt: Instant.nullable(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Advisory' });
export type AdvisoryView = z.infer<typeof Advisory>;

export const AdvisoryList = z.object({ advisories: z.array(Advisory) }).meta({ id: 'AdvisoryList' });

/** A CSAF 2.0 document (validated against the official schema before release). */
export const CsafDocument = z
  .record(z.string(), z.unknown())
  .meta({ id: 'CsafDocument', description: 'A CSAF 2.0 document; see https://docs.oasis-open.org/csaf/csaf/v2.0/csaf_json_schema.json' });

/** An OpenVEX 0.2.0 or CycloneDX 1.6 VEX document. */
export const VexExport = z
  .record(z.string(), z.unknown())
  .meta({ id: 'VexExport', description: 'OpenVEX 0.2.0 (https://openvex.dev/ns/v0.2.0) or CycloneDX 1.6 VEX.' });
