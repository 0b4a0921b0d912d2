import { z } from 'zod';
import { CLOSED_STATES, REPORT_STATES } from '../reports/lifecycle.js';

/** Tabs of the inbox: the open work, one state, closed outcomes, everything, or running clocks. */
export const INBOX_TABS = ['open', ...REPORT_STATES.filter((s) => !CLOSED_STATES.includes(s)), 'closed', 'all', 'deadlines'] as const;
export const INBOX_SEVERITIES = ['critical', 'high', 'medium', 'low', 'none', 'unrated'] as const;
export const INBOX_SORTS = ['newest', 'oldest'] as const;
/** A running clock (Article 14 stage or promised response time) in this state. */
export const INBOX_CLOCKS = ['due_soon', 'overdue'] as const;
export const SEARCH_MAX = 200;

/**
 * The inbox's filters as the API and saved filters take them (docs/workflow.md "Saved filters"):
 * a value out of its list is refused. The dashboard's GET form reads the same fields leniently
 * (`InboxQuery`: a hand-edited address falls back to the defaults).
 */
export const InboxCriteria = z
  .object({
    tab: z
      .enum(INBOX_TABS)
      .optional()
      .meta({ description: 'open (default), one open state, closed, all, or deadlines (running Article 14 clocks, most urgent first).' }),
    severity: z.enum(INBOX_SEVERITIES).optional(),
    product: z.string().trim().min(1).max(255).optional().meta({ description: 'The product name the reports give.' }),
    assignee: z
      .union([z.literal('me'), z.literal('none'), z.uuid()], { error: 'assignee: me, none, or a member id' })
      .optional()
      .meta({ description: '`me` (the signed-in member; not for an API key, which acts for no member), `none` (unassigned), or a member id.' }),
    sort: z.enum(INBOX_SORTS).optional().meta({ description: 'newest (default) or oldest first.' }),
    search: z.string().trim().min(1).max(SEARCH_MAX).optional().meta({ description: "Words in the report's description or product name (case-insensitive)." }),
    clock: z
      .enum(INBOX_CLOCKS)
      .optional()
      .meta({ description: 'Only reports with a running clock (Article 14 stage or promised response time) due soon, or overdue.' }),
  })
  .strict()
  .meta({ id: 'InboxCriteria' });
export type InboxCriteria = z.infer<typeof InboxCriteria>;

/** The criteria's fields, as forms carry them. */
export const INBOX_CRITERIA_FIELDS = ['tab', 'severity', 'product', 'assignee', 'sort', 'search', 'clock'] as const satisfies readonly (keyof InboxCriteria)[];
