import { z } from 'zod';
import { InboxCriteria } from './inbox-criteria.js';

/** At most this many saved filters per member (or API key), each name at most this long. */
export const SAVED_FILTERS_MAX = 50;
export const SAVED_FILTER_NAME_MAX = 80;

const Name = z
  .string({ error: 'name must be a string' })
  .trim()
  .min(1, 'name must not be empty')
  .max(SAVED_FILTER_NAME_MAX, `name must be at most ${SAVED_FILTER_NAME_MAX} characters`)
  .refine((s) => !/\p{Cc}/u.test(s), 'name must not hold control characters')
  .meta({ description: `Unique among the caller's saved filters (whatever the case), at most ${SAVED_FILTER_NAME_MAX} characters.` });

export const SavedFilter = z
  .object({
    id: z.uuid(),
    name: z.string(),
    criteria: InboxCriteria,
    missing: z
      .array(z.string())
      .meta({ description: 'What the filter names that no longer exists (a product, a member), in words; the filter still applies.' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'SavedFilter' });
export type SavedFilter = z.infer<typeof SavedFilter>;

export const SaveFilterInput = z
  .object({ name: Name, criteria: InboxCriteria.default({}) })
  .strict()
  .meta({ id: 'SaveFilterInput' });

export const UpdateSavedFilterInput = z
  .object({ name: Name.optional(), criteria: InboxCriteria.optional().meta({ description: 'Replaces the saved criteria whole.' }) })
  .strict()
  .refine((b) => b.name !== undefined || b.criteria !== undefined, { message: 'give a name or criteria', path: ['name'] })
  .meta({ id: 'UpdateSavedFilterInput' });
