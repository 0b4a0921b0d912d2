import { z } from 'zod';
import { pageOf, Paging } from '../../kernel/paging.js';
import { SEVERITIES } from './findings.severity.js';

export const FindingState = z.enum(['open', 'fixed']);

export const ListFindingsFilter = z
  .object({
    product: z.string().min(1).max(255).optional().meta({ description: 'Product identifier.' }),
    state: FindingState.optional(),
    severity: z.enum(SEVERITIES).optional(),
    tool: z.string().min(1).max(255).optional().meta({ description: 'SARIF tool.driver.name, e.g. "ESLint".' }),
  })
  .strict();
export type ListFindingsFilter = z.input<typeof ListFindingsFilter>;

export const Finding = z
  .object({
    id: z.uuid(),
    productIdentifier: z.string(),
    tool: z.string(),
    ruleId: z.string(),
    fingerprint: z.string().meta({ description: 'SHA-256 of tool, rule, artifact and partial fingerprints; never line numbers.' }),
    state: FindingState,
    severity: z.enum(SEVERITIES),
    level: z.enum(['error', 'warning', 'note', 'none']),
    securitySeverity: z.string().nullable(),
    message: z.string(),
    artifactUri: z.string().nullable(),
    startLine: z.number().int().nullable(),
    firstSeenScanId: z.uuid(),
    firstSeenAt: z.iso.datetime(),
    fixedScanId: z.uuid().nullable(),
    fixedAt: z.iso.datetime().nullable(),
    reopenCount: z.number().int(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Finding' });
export type Finding = z.infer<typeof Finding>;

export const PushSarifResult = z
  .object({
    id: z.uuid(),
    productIdentifier: z.string(),
    tools: z.array(z.string()),
    resultCount: z.number().int().meta({ description: 'All results in the log, of every kind.' }),
    findingCount: z.number().int().meta({ description: 'Results that are findings (kind fail, not suppressed).' }),
    new: z.number().int(),
    fixed: z.number().int(),
    reopened: z.number().int(),
    unchanged: z.number().int(),
    artifactCap: z
      .object({
        maxLength: z.number().int().meta({ description: 'Characters of an artifact path kept per finding.' }),
        maxDepth: z.number().int().meta({ description: 'Path segments of an artifact path kept per finding (and searched for a root).' }),
        capped: z
          .number()
          .int()
          .meta({ description: 'Findings of this log whose artifact path was cut to these caps (it then ends with `…#` and a digest of the whole path).' }),
      })
      .meta({ description: 'The caps on artifact paths, and how many findings met them.' }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'PushSarifResult' });
export type PushSarifResult = z.infer<typeof PushSarifResult>;

export const PushSarifQuery = z
  .object({
    product: z.string().min(1).max(255).meta({ description: 'Identifier of one of your products (`POST /products`).', example: 'thermo-t2' }),
    sourceRoot: z.string().min(1).max(4096).optional().meta({
      description:
        'The directory CI checked the code out in (e.g. `$GITHUB_WORKSPACE`): absolute file URIs below it become relative, so findings keep their identity when the checkout moves.',
    }),
  })
  .strict();

export const ListFindingsQuery = z.object({ ...ListFindingsFilter.shape, ...Paging.shape }).strict();
export const FindingPage = pageOf(Finding, 'FindingPage');

/** A SARIF log as pushed: validated against the OASIS SARIF 2.1.0 schema, not by this schema. */
export const SarifLog = z
  .record(z.string(), z.unknown())
  .meta({ id: 'SarifLog', description: 'A SARIF 2.1.0 log (`"version": "2.1.0"`), validated against the OASIS SARIF 2.1.0 JSON schema.' });
