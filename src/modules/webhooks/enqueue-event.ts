import type { Executor } from '../../db/client.js';
import { outboxEvents } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import type { EventType } from './webhooks.schemas.js';

export type WebhookPayload = { type: EventType; timestamp: string; data: Record<string, unknown> };

/** The complete webhook payload of an event, fixed at the time of the change it announces. */
export function eventPayload(type: EventType, data: Record<string, unknown>, at: Date): WebhookPayload {
  return { type, timestamp: at.toISOString(), data };
}

/**
 * Writes an event to the outbox with the caller's transaction: an event exists exactly when its
 * change committed, so no webhook ever fires for a change that was not stored. Delivery happens
 * later, from the outbox, never inside the request that made the change. (Report filings write
 * their events in their own batch statement: src/modules/reports/file-report.ts.)
 */
export async function enqueueEvent(tx: Executor, companyId: string, type: EventType, data: Record<string, unknown>, at: Date): Promise<string> {
  const id = newId();
  await tx.insert(outboxEvents).values({ id, companyId, type, payload: eventPayload(type, data, at), createdAt: at });
  return id;
}
