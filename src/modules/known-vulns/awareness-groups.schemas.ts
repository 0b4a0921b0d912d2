import { z } from 'zod';

export const AWARENESS_BULK_MAX = 100;

export const AwarenessGroupKey = z
  .object({
    vulnerability: z.string().trim().min(1).max(200).meta({ description: "The group's vulnerability (its `vulnerability`)." }),
    packageKey: z.string().max(1000).meta({ description: "The group's `packageKey` ('' for decisions with no open match left)." }),
  })
  .strict()
  .meta({ id: 'KevAwarenessGroupKey' });

export const AwarenessGroup = z
  .object({
    vulnerability: z.string(),
    cves: z.array(z.string()),
    kevDateAdded: z.string().nullable().meta({ description: 'When CISA added it to KEV (YYYY-MM-DD).' }),
    packageKey: z.string().meta({ description: "The component package as Cradle matches it (ecosystem and name); '' when no open match is left." }),
    package: z.string().nullable().meta({ description: 'Its package URL without a version.' }),
    versions: z.array(z.string()).meta({ description: 'The component versions found, across the products.' }),
    productCount: z.number().int(),
    sbomCount: z.number().int().meta({ description: 'The latest SBOMs holding an open match of it.' }),
    pending: z.number().int().meta({ description: 'Decisions in the group still waiting.' }),
    decisions: z.array(
      z.object({
        id: z.uuid(),
        productIdentifier: z.string(),
        versions: z.array(z.string()),
        state: z.enum(['pending', 'confirmed', 'dismissed']),
        reportId: z.uuid().nullable(),
      }),
    ),
  })
  .meta({ id: 'KevAwarenessGroup' });
export type AwarenessGroup = z.infer<typeof AwarenessGroup>;

const Ids = z
  .array(z.uuid())
  .min(1)
  .max(AWARENESS_BULK_MAX)
  .refine((a) => new Set(a).size === a.length, 'ids must not repeat')
  .meta({ description: `The awareness decisions to take, at most ${AWARENESS_BULK_MAX}.` });

/** `POST /known-vulnerabilities/awareness/bulk`: one decision for a checked selection or a whole group. */
export const BulkAwarenessInput = z
  .object({
    action: z.enum(['confirm', 'dismiss']),
    ids: Ids.optional(),
    group: AwarenessGroupKey.optional().meta({ description: `Every pending decision of a group (the oldest ${AWARENESS_BULK_MAX} per call).` }),
    awareAt: z.iso
      .datetime()
      .optional()
      .meta({ description: 'confirm: when the company became aware (default: now, one instant for every decision of the call).' }),
    note: z.string().trim().min(1).max(4000).optional().meta({ description: 'confirm: added to each report opened.' }),
    reason: z.string().trim().min(1, 'say why: the reason is kept with each decision').max(4000).optional().meta({ description: 'dismiss: required.' }),
  })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.ids === undefined) === (b.group === undefined)) ctx.addIssue({ code: 'custom', path: ['ids'], message: 'give either ids or a group' });
    if (b.action === 'dismiss' && b.reason === undefined)
      ctx.addIssue({ code: 'custom', path: ['reason'], message: 'say why: the reason is kept with each decision' });
    if (b.action === 'dismiss' && (b.awareAt !== undefined || b.note !== undefined))
      ctx.addIssue({ code: 'custom', path: [b.awareAt !== undefined ? 'awareAt' : 'note'], message: 'only a confirmation takes an awareness time or a note' });
    if (b.action === 'confirm' && b.reason !== undefined)
      ctx.addIssue({ code: 'custom', path: ['reason'], message: 'a confirmation takes a note, not a reason' });
  })
  .meta({ id: 'BulkAwarenessInput' });

export const BulkAwarenessItem = z
  .object({
    id: z.uuid(),
    outcome: z.enum(['confirmed', 'dismissed', 'unchanged', 'conflict', 'not_found', 'invalid']).meta({
      description:
        'confirmed or dismissed now; unchanged (already decided so: a repeated call); conflict (decided the other way); not_found (no such decision of this company); invalid.',
    }),
    productIdentifier: z.string().nullable(),
    state: z.enum(['pending', 'confirmed', 'dismissed']).nullable(),
    reportId: z.uuid().nullable().meta({ description: 'The Article 14 case the confirmation opened.' }),
    detail: z.string().optional(),
  })
  .meta({ id: 'BulkAwarenessItem' });

export const BulkAwarenessResult = z
  .object({
    decided: z.number().int(),
    unchanged: z.number().int(),
    failed: z.number().int(),
    remaining: z.number().int().meta({ description: 'Pending decisions of the group left for another call (0 for ids).' }),
    results: z.array(BulkAwarenessItem),
  })
  .meta({ id: 'BulkAwarenessResult', description: 'One result per decision, in the order given (a group: oldest first).' });
export type BulkAwarenessResult = z.infer<typeof BulkAwarenessResult>;
