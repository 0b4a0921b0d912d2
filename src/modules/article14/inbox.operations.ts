import { z } from 'zod';
import { type Operation, defineOperation } from '../operations/operation.js';
import { EXAMPLE_ID } from '../reports/reports.operations.js';
import { InboxListing, InboxListQuery, listInboxView } from './inbox-listing.js';
import { deleteSavedFilter, listSavedFilters, saveFilter, updateSavedFilter } from './saved-filters.js';
import { SavedFilter, SaveFilterInput, UpdateSavedFilterInput } from './saved-filters.schemas.js';

// Saved filters are views of the inbox, not the company's work: every member (viewers too) keeps
// their own, and keys holding `read` the set the company's keys share (docs/workflow.md "Saved filters").
const OWN = { scope: 'read', access: 'self' } as const;

/** The inbox as a list, and each caller's saved filters of it (docs/workflow.md "Saved filters"). */
export const inboxOperations: Operation[] = [
  defineOperation({
    name: 'reports.inbox',
    summary: "The reports inbox: one page (25) of reports by the dashboard's criteria or a saved filter, with their Article 14 and response clocks",
    scope: 'read',
    untrustedOutput: true,
    method: 'GET',
    path: '/vulnerabilities/inbox',
    mcpTool: 'list_inbox',
    query: InboxListQuery,
    output: InboxListing,
    errors: { 404: 'No saved filter of yours has the id given in `saved`.' },
    example: { query: { tab: 'open', severity: 'high' } },
    handler: async ({ db, ctx, companyId, query }) => ({ status: 200, body: await listInboxView(db, ctx, companyId, query) }),
  }),
  defineOperation({
    ...OWN,
    name: 'reports.saved_filters.list',
    summary: "Your saved inbox filters (a member's own; API keys share the company's API set), by name, each saying what it names that no longer exists",
    method: 'GET',
    path: '/saved-filters',
    mcpTool: 'list_saved_filters',
    output: z.array(SavedFilter).meta({ id: 'SavedFilterList' }),
    example: {},
    handler: async ({ db, ctx, companyId }) => ({ status: 200, body: await listSavedFilters(db, ctx, companyId) }),
  }),
  defineOperation({
    ...OWN,
    name: 'reports.saved_filters.save',
    statuses: [201],
    summary: "Save inbox criteria under a name (a member's own; for a key, the keys' shared set; at most 50)",
    method: 'POST',
    path: '/saved-filters',
    mcpTool: 'save_inbox_filter',
    input: SaveFilterInput,
    output: SavedFilter,
    errors: { 409: 'Another filter has that name (saving the same name and criteria again answers the saved filter), or 50 filters are kept already.' },
    example: { body: { name: 'High severity, unassigned', criteria: { severity: 'high', assignee: 'none' } } },
    handler: async ({ db, ctx, companyId }, body) => ({ status: 201, body: await saveFilter(db, ctx, companyId, body) }),
  }),
  defineOperation({
    ...OWN,
    name: 'reports.saved_filters.update',
    summary: 'Rename a saved inbox filter, or replace its criteria',
    method: 'PATCH',
    path: '/saved-filters/:id',
    mcpTool: 'update_inbox_filter',
    input: UpdateSavedFilterInput,
    output: SavedFilter,
    errors: { 409: 'Another filter has that name.' },
    example: { params: { id: EXAMPLE_ID }, body: { criteria: { severity: 'critical', assignee: 'none' } } },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 200, body: await updateSavedFilter(db, ctx, companyId, params.id, body) }),
  }),
  defineOperation({
    ...OWN,
    name: 'reports.saved_filters.delete',
    statuses: [204],
    summary: 'Delete a saved inbox filter',
    method: 'DELETE',
    path: '/saved-filters/:id',
    mcpTool: 'delete_inbox_filter',
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, ctx, companyId, params }) => {
      await deleteSavedFilter(db, ctx, companyId, params.id);
      return { status: 204, body: undefined };
    },
  }),
];
