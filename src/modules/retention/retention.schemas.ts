import { z } from 'zod';

/**
 * The shortest settings a company may choose (docs/retention.md "Rules"): a closed report's
 * researcher stays reachable for a month after closing (a reopened finding, a late question), a
 * rejected body for a month (a mistaken "spam"), and access records for a week (an incident needs
 * them). None of the rules ever reaches technical documentation: the CRA floor is not a setting.
 */
export const RETENTION_MINIMUM_DAYS = { reporterDataDays: 30, rejectedBodyDays: 30, accessRecordDays: 7 } as const;
/** The defaults of a company that never chose: two years, ninety days, ninety days. */
export const RETENTION_DEFAULT_DAYS = { reporterDataDays: 730, rejectedBodyDays: 90, accessRecordDays: 90 } as const;
const MAX_DAYS = 36_500;

const days = (key: keyof typeof RETENTION_MINIMUM_DAYS, what: string) =>
  z
    .number()
    .int()
    .min(RETENTION_MINIMUM_DAYS[key], { message: `at least ${RETENTION_MINIMUM_DAYS[key]} days` })
    .max(MAX_DAYS)
    .nullable()
    .meta({ description: `${what}; null keeps them. At least ${RETENTION_MINIMUM_DAYS[key]} days.` });

const DAY_FIELDS = {
  reporterDataDays: days('reporterDataDays', "Days after a report is closed before the researcher's personal data is pseudonymised"),
  rejectedBodyDays: days('rejectedBodyDays', 'Days after a report is closed as spam or not applicable before its text is removed'),
  accessRecordDays: days('accessRecordDays', 'Days that ended sessions and the client address and browser string of audit rows are kept'),
};

export const RetentionPolicy = z
  .object({ ...DAY_FIELDS, customised: z.boolean().meta({ description: 'False while the defaults apply' }), lastRunAt: z.string().nullable() })
  .meta({ id: 'RetentionPolicy' });
export type RetentionPolicy = z.infer<typeof RetentionPolicy>;

export const UpdateRetentionPolicyInput = z.object(DAY_FIELDS).partial().strict().meta({ id: 'UpdateRetentionPolicyInput' });

/** What one rule would do next (preview) or did (run): counts and the oldest item's date, never content. */
export const RuleOutcome = z.object({
  rule: z.enum(['reporter_data', 'rejected_bodies', 'access_records']),
  days: z.number().int().nullable(),
  count: z.number().int().meta({ description: 'Items the rule applies to (would apply to, in a preview)' }),
  oldest: z.string().nullable().meta({ description: 'When the oldest of them became due (closed, ended, recorded)' }),
  held: z.number().int().meta({ description: 'Items that are due but under a legal hold, so left alone' }),
  keptByCraFloor: z.number().int().meta({ description: 'Items that are due but are CRA technical documentation, so kept' }),
});
export type RuleOutcome = z.infer<typeof RuleOutcome>;

export const RetentionRun = z.object({ companyId: z.string(), at: z.string(), applied: z.boolean(), rules: z.array(RuleOutcome) }).meta({ id: 'RetentionRun' });
export type RetentionRun = z.infer<typeof RetentionRun>;

export const LegalHold = z
  .object({
    id: z.string(),
    scope: z.enum(['company', 'product', 'report']),
    targetId: z.string().nullable(),
    reason: z.string(),
    placedBy: z.string(),
    placedAt: z.string(),
    releasedBy: z.string().nullable(),
    releasedAt: z.string().nullable(),
  })
  .meta({ id: 'LegalHold' });
export type LegalHold = z.infer<typeof LegalHold>;

export const PlaceHoldInput = z
  .object({
    scope: z.enum(['company', 'product', 'report']),
    target: z.string().max(200).optional().meta({ description: "A report's id, or a product's identifier; left out for the whole company" }),
    reason: z.string().trim().min(3).max(500).meta({ description: 'Why the data is held (a case or matter reference); shown to administrators' }),
  })
  .strict()
  .meta({ id: 'PlaceHoldInput' });

export const ErasureRequest = z
  .object({
    id: z.string(),
    reportId: z.string(),
    channel: z.enum(['researcher', 'administrator']),
    pseudonym: z.string(),
    state: z.enum(['applied', 'held']),
    reportCount: z.number().int(),
    requestedAt: z.string(),
    appliedAt: z.string().nullable(),
  })
  .meta({ id: 'ErasureRequest' });
export type ErasureRequest = z.infer<typeof ErasureRequest>;

export const RecordErasureInput = z
  .object({ reportId: z.uuid().meta({ description: 'A report of the researcher whose data is to be erased' }) })
  .strict()
  .meta({ id: 'RecordErasureInput' });
