import type { Db } from '../../src/db/client.js';
import { outboxEvents, webhookDeliveries } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { newId } from '../../src/kernel/ids.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { recordAttestation } from '../../src/modules/compliance/attestations.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { updateReport } from '../../src/modules/triage/update-report.js';
import { registerWebhook } from '../../src/modules/webhooks/register-webhook.js';

/**
 * Records an operation's example needs before it can succeed (its path parameters), created for
 * the calling company. The generated security suite fails, naming the operation, when one with
 * path parameters has no entry here.
 */
type Fixture = (db: Db, company: Company) => Promise<Record<string, string>>;

const report = async (db: Db, c: Company) => (await fileReport(db, operatorContext(), c, { description: 'fixture report' }, 'api')).report.submissionId;
const product = async (db: Db, c: Company) => (await upsertProduct(db, operatorContext(), c.id, { name: 'Fixture product', identifier: `fixture-${newId()}` })).product.identifier;
const webhook = async (db: Db, c: Company) => (await registerWebhook(db, operatorContext(), c.id, { url: 'https://hooks.example.com/cradle' }, { allowPrivate: false })).id;

export const OPERATION_FIXTURES: Record<string, Fixture> = {
  'reports.get': async (db, c) => ({ id: await report(db, c) }),
  'reports.update': async (db, c) => ({ id: await report(db, c) }),
  'article14.get': async (db, c) => ({ id: await report(db, c) }),
  'article14.file': async (db, c) => {
    const id = await report(db, c);
    await updateReport(db, operatorContext(), c.id, id, { activelyExploited: true, awareAt: new Date().toISOString() });
    return { id, stage: 'early_warning' };
  },
  'compliance.product_facts': async (db, c) => ({ identifier: await product(db, c) }),
  'compliance.set_product_facts': async (db, c) => ({ identifier: await product(db, c) }),
  'compliance.withdraw_attestation': async (db, c) => ({
    id: (await recordAttestation(db, operatorContext(), c.id, { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'fixture' }, 'fixture')).id,
  }),
  'reports.messages.list': async (db, c) => ({ id: await report(db, c) }),
  'reports.messages.post': async (db, c) => ({ id: await report(db, c) }),
  'webhooks.update': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.delete': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.rotate_secret': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.deliveries': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.test': async (db, c) => ({ id: await webhook(db, c) }),
  'webhooks.redeliver': async (db, c) => {
    const webhookId = await webhook(db, c);
    const eventId = newId();
    const now = new Date();
    await db.insert(outboxEvents).values({ id: eventId, companyId: c.id, type: 'webhook.test', payload: { type: 'webhook.test', timestamp: now.toISOString(), data: {} }, createdAt: now, dispatchedAt: now });
    const id = newId();
    await db.insert(webhookDeliveries).values({ id, companyId: c.id, webhookId, eventId, eventType: 'webhook.test', state: 'succeeded', attempts: 1, nextAttemptAt: now, createdAt: now, finishedAt: now });
    return { id };
  },
};
