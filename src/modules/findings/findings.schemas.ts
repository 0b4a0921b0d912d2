import { z } from 'zod';
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
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'PushSarifResult' });
export type PushSarifResult = z.infer<typeof PushSarifResult>;
