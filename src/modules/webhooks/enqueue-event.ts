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
  return (await enqueueEvents(tx, [{ companyId, type, data, at }]))[0]!;
}

export type OutboxEvent = { companyId: string; type: EventType; data: Record<string, unknown>; at: Date };

/** `enqueueEvent` of many events in one statement (a feed re-match announces one per product). */
export async function enqueueEvents(tx: Executor, events: readonly OutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((e) => ({ id: newId(), companyId: e.companyId, type: e.type, payload: eventPayload(e.type, e.data, e.at), createdAt: e.at }));
  await tx.insert(outboxEvents).values(rows);
  return rows.map((r) => r.id);
}
