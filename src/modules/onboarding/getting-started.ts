import type { Db } from '../../db/client.js';
import { getCompanyById } from '../companies/get-company.js';
import { listKeys } from '../keys/manage-keys.js';
import { listProducts } from '../products/list-products.js';
import { listSboms } from '../sboms/list-sboms.js';
import { listPendingInvitations } from '../team/invitations.js';
import { listMembers } from '../team/members.js';
import { listFeedStatus } from '../vulndb/feed-status.js';
import { listWebhooks } from '../webhooks/webhook-endpoints.js';

/** One step of a new company's set-up: ticked from the company's real state, never by hand. */
export type StartStep = { id: string; label: string; done: boolean; href: string; hint: string };

/**
 * The getting-started checklist of the overview (docs/workflow.md "Getting started"): the steps a
 * new PSIRT takes before its first report, each with the dashboard page that does it. Read-only;
 * every step is ticked from what exists, so the list is true whoever did the work (dashboard, API,
 * MCP or CLI). `mailConfigured`: the instance sends mail, so the team's own notices count as "told".
 */
export async function gettingStarted(db: Db, companyId: string, o: { mailConfigured: boolean }): Promise<StartStep[]> {
  const [company, keys, products, sboms, members, invitations, webhooks, feeds] = await Promise.all([
    getCompanyById(db, companyId),
    listKeys(db, companyId),
    listProducts(db, companyId),
    listSboms(db, companyId, {}, { limit: 1 }),
    listMembers(db, companyId),
    listPendingInvitations(db, companyId),
    listWebhooks(db, companyId),
    listFeedStatus(db),
  ]);
  return [
    {
      id: 'policy',
      label: 'Publish your disclosure policy',
      done: Boolean(company.policyText?.trim() || company.policyUrl),
      href: '/settings/portal',
      hint: 'What researchers may test, how you answer, and your safe-harbour statement, on your portal.',
    },
    {
      id: 'contact',
      label: 'Name your security contact',
      done: Boolean(company.securityEmail),
      href: '/settings/portal',
      hint: 'The address in your security.txt and on your portal.',
    },
    {
      id: 'key',
      label: 'Create an API key',
      done: keys.some((k) => k.status === 'active'),
      href: '/settings/api-keys',
      hint: 'For your CI pipeline, your tools and your agents (REST and MCP).',
    },
    {
      id: 'product',
      label: 'Register your first product',
      done: products.length > 0,
      href: '/products',
      hint: 'Each product with digital elements you place on the EU market.',
    },
    {
      id: 'sbom',
      label: 'Upload a first SBOM',
      done: sboms.items.length > 0,
      href: '/evidence',
      hint: "CycloneDX or SPDX: Cradle then matches the product's components against known vulnerabilities.",
    },
    {
      id: 'team',
      label: 'Invite your team',
      done: members.length > 1 || invitations.length > 0,
      href: '/settings/team',
      hint: 'PSIRT members triage reports; viewers read.',
    },
    {
      id: 'notify',
      label: 'Get told of new reports',
      done: o.mailConfigured || webhooks.length > 0,
      href: '/settings/webhooks',
      hint: o.mailConfigured ? 'Team e-mail is on for this instance.' : 'This instance sends no e-mail: register a webhook for your ticketing or chat.',
    },
    {
      id: 'feeds',
      label: 'Load the vulnerability feeds',
      done: feeds.some((f) => f.importedAt !== null),
      href: '/known-vulnerabilities',
      hint: 'OSV, CISA KEV and EPSS: your operator loads them with `cradle vulndb sync` or a periodic sync.',
    },
  ];
}
