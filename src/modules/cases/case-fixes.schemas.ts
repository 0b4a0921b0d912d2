import { z } from 'zod';

/** A patch: a unified diff of at most 256 Ki characters (it travels in encrypted mail). */
export const PATCH_MAX = 256 * 1024;
/** A fix description in plain text. */
export const DESCRIPTION_MAX = 16 * 1024;
export const FIX_KINDS = ['patch', 'description'] as const;

export const AddCaseFixInput = z
  .object({
    kind: z.enum(FIX_KINDS).meta({ description: '`patch`: a unified diff (validated as one); `description`: the fix in plain text.' }),
    body: z
      .string()
      .min(1, 'must not be empty')
      .max(PATCH_MAX, `must be at most ${PATCH_MAX} characters`)
      .meta({ description: `The unified diff (at most ${PATCH_MAX} characters) or the description (at most ${DESCRIPTION_MAX}).` }),
    osvDraft: z
      .boolean()
      .optional()
      .meta({ description: "Attach an OSV-format draft of the upstream advisory, made from the case's first report (its triage facts, never its text)." }),
  })
  .strict()
  .meta({ id: 'AddCaseFixInput' });

export const CaseFix = z
  .object({
    id: z.uuid(),
    kind: z.enum(FIX_KINDS),
    body: z.string(),
    osvDraft: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'The OSV-format draft of the upstream advisory (https://ossf.github.io/osv-schema/), or null.' }),
    createdBy: z.string(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'CaseFix' });
export type CaseFixView = z.infer<typeof CaseFix>;

/** What an upstream participant sees of a fix: no author. */
export const SharedFix = CaseFix.omit({ createdBy: true }).meta({ id: 'SharedCaseFix' });
export type SharedFixView = z.infer<typeof SharedFix>;
