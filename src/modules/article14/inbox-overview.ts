import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { pendingAwareness } from '../known-vulns/awareness-groups.js';
import { RESPONSE_CLOCKS, responseClocks } from '../reports/response-clocks.js';
import { inboxCounts } from './list-inbox.js';

const count = () => z.number().int();

/** `GET /vulnerabilities/overview`: what waits on the team (docs/workflow.md "What waits"), with every running response clock. */
export const InboxOverview = z
  .object({
    counts: z.object({
      new: count(),
      triaging: count(),
      open: count(),
      unassigned: count().meta({ description: 'Open reports nobody is assigned to.' }),
      article14Overdue: count().meta({ description: 'Reports whose next Article 14 stage is overdue.' }),
      article14DueSoon: count().meta({ description: 'Reports whose next Article 14 stage is due within 6 hours.' }),
      responseOverdue: count().meta({ description: 'Reports past an acknowledgement or assessment time promised on the portal.' }),
      responseDueSoon: count().meta({ description: 'Reports whose promised response time falls within a day.' }),
      kevAwarenessPending: count().meta({
        description: 'Known-vulnerability awareness decisions (CISA KEV, CRA Article 14) waiting to be confirmed or dismissed (`list_awareness_groups`).',
      }),
      kevAwarenessGroups: count().meta({ description: 'The vulnerability and component-package groups those decisions fall in (one bulk decision each).' }),
    }),
    responseClocks: z
      .array(
        z.object({
          submissionId: z.uuid(),
          clock: z.enum(RESPONSE_CLOCKS),
          dueAt: z.iso.datetime(),
          state: z.enum(['running', 'due_soon', 'overdue']),
        }),
      )
      .meta({ description: "Every running response clock of the company's reports, most urgent first." }),
  })
  .meta({ id: 'InboxOverview' });
export type InboxOverview = z.infer<typeof InboxOverview>;

/** The counts of the dashboard home and the running response clocks, for REST and MCP. */
export async function inboxOverview(db: Executor, companyId: string, now = new Date()): Promise<InboxOverview> {
  const [c, clocks, kev] = await Promise.all([inboxCounts(db, companyId, now), responseClocks(db, companyId, now), pendingAwareness(db, companyId)]);
  return {
    counts: {
      new: c.new,
      triaging: c.triaging,
      open: c.open,
      unassigned: c.unassigned,
      article14Overdue: c.overdue,
      article14DueSoon: c.dueSoon,
      responseOverdue: c.responseOverdue,
      responseDueSoon: c.responseDueSoon,
      kevAwarenessPending: kev.decisions,
      kevAwarenessGroups: kev.groups,
    },
    responseClocks: clocks.flatMap((r) => r.clocks.map((k) => ({ submissionId: r.reportId, ...k }))).sort((a, b) => Date.parse(a.dueAt) - Date.parse(b.dueAt)),
  };
}
