import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import { parseInput } from '../../kernel/validate.js';
import { RESPONSE_CLOCKS } from '../reports/response-clocks.js';
import { Article14Stage } from './article14.schemas.js';
import { InboxCriteria } from './inbox-criteria.js';
import { InboxQuery, listInbox } from './list-inbox.js';
import { assertMeFits, getSavedFilter, missingOf, viewerOf } from './saved-filters.js';

/**
 * The criteria a view of the inbox applies: a saved filter's, with any criteria typed beside it
 * taking precedence, and what they name that no longer exists. The dashboard and the API resolve
 * them here, so a saved filter gives the list its criteria typed by hand give.
 */
export async function resolveCriteria(
  db: Executor,
  ctx: Context,
  companyId: string,
  saved: string | undefined,
  typed: InboxCriteria,
): Promise<{ criteria: InboxCriteria; savedFilter: { id: string; name: string } | null; missing: string[] }> {
  const filter = saved === undefined ? null : await getSavedFilter(db, ctx, companyId, saved);
  const criteria = { ...filter?.criteria, ...typed };
  assertMeFits(ctx, criteria, 'assignee');
  return { criteria, savedFilter: filter && { id: filter.id, name: filter.name }, missing: await missingOf(db, companyId, criteria) };
}

export const InboxListQuery = InboxCriteria.extend({
  saved: z.uuid().optional().meta({ description: "Apply one of the caller's saved filters; criteria given beside it take precedence." }),
  page: z.coerce.number().int().min(1).max(100_000).optional().meta({ description: 'Page (25 reports each), from 1.' }),
}).strict();

const InboxRow = z.object({
  submissionId: z.uuid(),
  createdAt: z.iso.datetime(),
  status: z.string(),
  productName: z.string().nullable(),
  severity: z.string().nullable(),
  cvssScore: z.number().nullable(),
  assigneeId: z.uuid().nullable(),
  excerpt: z.string().meta({ description: "The start of the reporter's description (untrusted text)." }),
  article14: Article14Stage.nullable().meta({ description: 'The next unfiled Article 14 stage with a due time, when a clock runs.' }),
  response: z
    .object({ clock: z.enum(RESPONSE_CLOCKS), dueAt: z.iso.datetime(), state: z.enum(['running', 'due_soon', 'overdue']) })
    .nullable()
    .meta({ description: 'The most urgent running response clock promised on the portal.' }),
});

export const InboxListing = z
  .object({
    criteria: InboxCriteria.meta({ description: 'The criteria applied.' }),
    savedFilter: z.object({ id: z.uuid(), name: z.string() }).nullable(),
    missing: z.array(z.string()).meta({ description: 'What the criteria name that no longer exists (a product, a member), in words.' }),
    total: z.number().int(),
    page: z.number().int(),
    pages: z.number().int(),
    items: z.array(InboxRow),
  })
  .meta({ id: 'InboxListing' });
export type InboxListing = z.infer<typeof InboxListing>;

/** `GET /vulnerabilities/inbox`: the dashboard inbox's list, by the same criteria (docs/workflow.md "Saved filters"). */
export async function listInboxView(db: Executor, ctx: Context, companyId: string, raw: unknown, now = new Date()): Promise<InboxListing> {
  const { saved, page, ...typed } = parseInput(InboxListQuery, raw);
  const resolved = await resolveCriteria(db, ctx, companyId, saved, typed);
  const p = await listInbox(db, companyId, InboxQuery.parse({ ...resolved.criteria, page }), now, viewerOf(ctx));
  return {
    ...resolved,
    total: p.total,
    page: p.page,
    pages: p.pages,
    items: p.items.map((r) => ({
      submissionId: r.id,
      createdAt: r.createdAt.toISOString(),
      status: r.status,
      productName: r.productName,
      severity: r.severity,
      cvssScore: r.cvssScore,
      assigneeId: r.assigneeId,
      excerpt: r.excerpt,
      article14: r.deadline,
      response: r.response,
    })),
  };
}
