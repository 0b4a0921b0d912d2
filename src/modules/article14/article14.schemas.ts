import { z } from 'zod';
import { STAGE_STATES, STAGES } from './article14-clock.js';

const Instant = z.iso.datetime();

/** `POST /vulnerabilities/{id}/article14/{stage}`: what the company records of a filing it made in ENISA's Single Reporting Platform. */
export const RecordFilingInput = z
  .object({
    filedAt: z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time with a time zone' }).optional().meta({
      description: 'When the stage was filed (ISO 8601 with a time zone; stored as an instant). Not in the future; default: now.',
      example: '2026-11-20T19:00:00Z',
    }),
    reference: z
      .string({ error: 'expected the SRP reference as a string' })
      .max(200, { error: 'at most 200 characters' })
      .optional()
      .meta({ description: "The Single Reporting Platform's reference of the filing. At most 200 characters.", example: 'SRP-2026-0001' }),
  })
  .strict()
  .meta({ id: 'RecordArticle14FilingInput' });
export type RecordFilingInput = z.input<typeof RecordFilingInput>;

export const Article14Filing = z.object({ filedAt: Instant, filedBy: z.string().nullable(), reference: z.string().nullable() }).meta({ id: 'Article14Filing' });

export const Article14Stage = z
  .object({
    stage: z.enum(STAGES),
    dueAt: Instant.nullable().meta({ description: 'UTC; null while the anchor it counts from is unknown.' }),
    state: z.enum(STAGE_STATES),
    anchor: z.string().meta({ description: 'What the due time counts from, in words, or what is missing.' }),
    filing: Article14Filing.nullable(),
  })
  .meta({ id: 'Article14Stage' });

export const Article14Status = z
  .object({
    applies: z.boolean(),
    basis: z.enum(['actively_exploited_vulnerability', 'severe_incident']).nullable(),
    reason: z.string(),
    stages: z.array(Article14Stage),
  })
  .meta({ id: 'Article14Status' });

export const PackField = z.object({ label: z.string(), value: z.string().nullable(), hint: z.string() }).meta({ id: 'Article14PackField' });

/** `GET .../article14`: the status, each stage with the content its filing needs. */
export const Article14View = Article14Status.extend({
  stages: z.array(Article14Stage.extend({ pack: z.array(PackField) })),
}).meta({ id: 'Article14View' });
