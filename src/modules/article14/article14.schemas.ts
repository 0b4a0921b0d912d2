import { z } from 'zod';
import { STAGE_STATES, STAGES } from './article14-clock.js';

const Instant = z.iso.datetime();

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
