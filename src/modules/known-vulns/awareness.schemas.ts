import { z } from 'zod';

export const Awareness = z
  .object({
    id: z.uuid(),
    productIdentifier: z.string(),
    vulnerability: z.string(),
    cves: z.array(z.string()).meta({ description: 'Its CVEs (the KEV catalog lists CVEs).' }),
    kevDateAdded: z.string().nullable().meta({ description: 'When CISA added it to KEV (YYYY-MM-DD).' }),
    components: z.array(z.string()).meta({ description: 'The affected component versions in the latest SBOM.' }),
    openedAt: z.iso.datetime(),
    state: z.enum(['pending', 'confirmed', 'dismissed']),
    decidedAt: z.iso.datetime().nullable(),
    decidedBy: z.string().nullable(),
    reason: z.string().nullable().meta({ description: 'Why it was dismissed, or the note given on confirmation.' }),
    reportId: z.uuid().nullable().meta({ description: 'The Article 14 case (report) a confirmation opened.' }),
  })
  .meta({ id: 'KevAwarenessDecision' });
export type Awareness = z.infer<typeof Awareness>;

export const ConfirmAwarenessInput = z
  .object({
    awareAt: z.iso.datetime().optional().meta({ description: 'When the company became aware (default: now). Article 14 deadlines run from it.' }),
    note: z.string().trim().min(1).max(4000).optional().meta({ description: 'Added to the report opened for the case.' }),
  })
  .strict()
  .meta({ id: 'ConfirmAwarenessInput' });

export const DismissAwarenessInput = z
  .object({ reason: z.string().trim().min(1, 'say why: the reason is kept with the decision').max(4000) })
  .strict()
  .meta({ id: 'DismissAwarenessInput' });
