import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { webhookDeliveries } from '../../src/db/schema/index.js';
import { inviteMember } from '../../src/modules/team/invitations.js';
import { saveFilter } from '../../src/modules/article14/saved-filters.js';
import { makeKey, type Tenant } from './access.js';
import { OPERATION_FIXTURES } from './operation-fixtures.js';
import { INVITE_ENV } from './team.js';

/** Path parameters by name, resolving to real records of one company. */
export type DashboardIds = Record<string, string>;

/**
 * One record of each kind a dashboard route names (report, filing stage, attestation, product,
 * known vulnerability, awareness decision, SBOM, advisory, webhook and delivery, key, invitation,
 * case and inbound case with a file each),
 * made through the operation fixtures, so every page of the dashboard has something to show.
 */
export async function dashboardFixtures(db: Db, acme: Tenant): Promise<DashboardIds> {
  const ids: DashboardIds = {};
  const fixture = async (name: string) => {
    const f = OPERATION_FIXTURES[name];
    assert.ok(f, name);
    return f(db, acme.company);
  };
  const filing = await fixture('article14.file');
  ids.report = filing.id ?? '';
  ids.stage = filing.stage ?? '';
  ids.attestation = (await fixture('compliance.withdraw_attestation')).id ?? '';
  ids.product = (await fixture('products.get')).identifier ?? '';
  ids.knownVuln = (await fixture('knownVulnerabilities.get')).id ?? '';
  ids.awareness = (await fixture('knownVulnerabilities.awareness.confirm')).id ?? '';
  ids.sbom = (await fixture('sboms.get')).id ?? '';
  ids.advisory = (await fixture('advisories.get')).id ?? '';
  ids.delivery = (await fixture('webhooks.redeliver')).id ?? '';
  ids.webhook = (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, ids.delivery)))[0]?.webhookId ?? '';
  // A case and an inbound case whose threads each hold a message with a file.
  const withFile = await fixture('cases.attachments.get');
  ids.case = withFile.id ?? '';
  ids.caseAttachment = withFile.attachmentId ?? '';
  const inboundWithFile = await fixture('cases.inbound.attachments.get');
  ids.inbound = inboundWithFile.id ?? '';
  ids.inboundAttachment = inboundWithFile.attachmentId ?? '';
  ids.key = (await makeKey(db, acme)).id;
  const actor = { actor: { type: 'user' as const, id: acme.admin.id } };
  ids.savedFilter = (await saveFilter(db, actor, acme.company.id, { name: 'Fixture filter', criteria: { severity: 'high' } })).id;
  ids.invitation = (await inviteMember(db, actor, acme.company.id, acme.admin.id, { email: 'pending@example.test', role: 'viewer' }, INVITE_ENV)).invitation.id;
  return ids;
}

/**
 * The concrete path of a dashboard route (`GET /reports/:id`): real records (`real`), or ids that
 * name nothing (an allowed POST must not destroy the fixtures).
 */
export function dashboardPath(ids: DashboardIds, route: string, real: boolean): string {
  const [, path = ''] = route.split(' ');
  const pick = (key: string) => (real ? (ids[key] ?? '') : key === 'product' ? 'no-such-product' : randomUUID());
  return path
    .replace(/^\/reports\/saved-filters\/:id/, () => `/reports/saved-filters/${pick('savedFilter')}`)
    .replace(/^\/reports\/:id/, () => `/reports/${real ? ids.report : randomUUID()}`)
    .replace(':stage', ids.stage ?? 'early_warning')
    .replace(/^\/compliance\/attestations\/:id/, () => `/compliance/attestations/${pick('attestation')}`)
    .replace(/\/(compliance\/)?products\/:identifier/, (m) => m.replace(':identifier', pick('product')))
    .replace(/^\/cases\/inbound\/:id\/attachments\/:attachmentId/, () => `/cases/inbound/${pick('inbound')}/attachments/${pick('inboundAttachment')}`)
    .replace(/^\/cases\/:id\/attachments\/:attachmentId/, () => `/cases/${pick('case')}/attachments/${pick('caseAttachment')}`)
    .replace(/^\/cases\/inbound\/:id/, () => `/cases/inbound/${pick('inbound')}`)
    .replace(/^\/cases\/:id/, () => `/cases/${pick('case')}`)
    .replace(/^\/advisories\/:id/, () => `/advisories/${pick('advisory')}`)
    .replace(/^\/evidence\/sboms\/:id/, () => `/evidence/sboms/${pick('sbom')}`)
    .replace(/^\/known-vulnerabilities\/awareness\/:id/, () => `/known-vulnerabilities/awareness/${pick('awareness')}`)
    .replace(/^\/known-vulnerabilities\/:id/, () => `/known-vulnerabilities/${pick('knownVuln')}`)
    .replace(/^\/settings\/api-keys\/:id/, () => `/settings/api-keys/${pick('key')}`)
    .replace(/^\/settings\/webhooks\/:id/, () => `/settings/webhooks/${pick('webhook')}`)
    .replace(':deliveryId', pick('delivery'))
    .replace(/^\/settings\/team\/invitations\/:id/, () => `/settings/team/invitations/${pick('invitation')}`)
    .replace(/^\/settings\/team\/members\/:id/, () => `/settings/team/members/${pick('member')}`)
    .replace(/^\/evidence\/sboms$/, '/evidence/sboms?product=thermo-t2')
    .replace(/^\/known-vulnerabilities\/vex$/, () => `/known-vulnerabilities/vex?product=${ids.product}`);
}
