import type { Executor } from '../../db/client.js';
import { outboxEvents } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';

/** Event types the service emits (contract "Webhooks"). */
export const EVENT_TYPES = ['vulnerability.reported'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export type WebhookPayload = { type: EventType; timestamp: string; data: Record<string, unknown> };

/**
 * Writes an event to the outbox with the caller's transaction: it commits or rolls back with the
 * change it announces, so no webhook ever fires for a report that was not stored. Delivery happens
 * later, from the outbox, and never inside a researcher's request.
 */
export async function enqueueEvent(tx: Executor, companyId: string, type: EventType, data: Record<string, unknown>, at: Date): Promise<WebhookPayload> {
  const payload: WebhookPayload = { type, timestamp: at.toISOString(), data };
  await tx.insert(outboxEvents).values({ id: newId(), companyId, type, payload, createdAt: at });
  return payload;
}
