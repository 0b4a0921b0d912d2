import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { outboxEvents } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import type { EventType } from './webhooks.schemas.js';

export type WebhookPayload = { type: EventType; timestamp: string; data: Record<string, unknown> };

/**
 * The outbox row of an event, as a statement to run with the change it announces (same
 * transaction or same statement): an event exists exactly when its change committed, so no webhook
 * ever fires for a report that was not stored. Delivery happens later, from the outbox, never
 * inside a researcher's request.
 */
export function eventInsertSql(companyId: string, type: EventType, data: Record<string, unknown>, at: Date): { statement: SQL; payload: WebhookPayload } {
  const payload: WebhookPayload = { type, timestamp: at.toISOString(), data };
  const statement = sql`insert into outbox_events (id, company_id, type, payload, created_at)
values (${newId()}::uuid, ${companyId}::uuid, ${type}, ${JSON.stringify(payload)}::jsonb, ${payload.timestamp}::timestamptz)`;
  return { statement, payload };
}

/** Writes an event to the outbox with the caller's transaction (same guarantee as above). */
export async function enqueueEvent(tx: Executor, companyId: string, type: EventType, data: Record<string, unknown>, at: Date): Promise<string> {
  const id = newId();
  await tx.insert(outboxEvents).values({ id, companyId, type, payload: { type, timestamp: at.toISOString(), data }, createdAt: at });
  return id;
}
