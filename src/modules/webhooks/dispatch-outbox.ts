import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { outboxEvents, webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import { fanOutMail } from '../mail/fan-out-mail.js';

type Hook = { id: string; companyId: string; event: string | null };
type Event = { id: string; companyId: string; type: string; payload: { data?: Record<string, unknown> } };

/** Which endpoints receive an event: the event filter, plus the two targeted event types. */
export function recipients(ev: Event, hooks: readonly Hook[]): Hook[] {
  const about = ev.payload.data?.webhookId;
  return hooks.filter((h) => {
    if (h.companyId !== ev.companyId) return false;
    if (h.event !== null && h.event !== ev.type) return false;
    if (ev.type === 'webhook.test') return h.id === about;
    // A dead endpoint is told nothing about itself: it would only fail again.
    if (ev.type === 'webhook.delivery_dead_lettered') return h.id !== about;
    return true;
  });
}

export type DispatchOptions = {
  batch?: number;
  /** Queue the events' e-mail too (SMTP configured); without it no mail is queued. */
  mail?: boolean;
};

/**
 * Fans pending outbox events out into one delivery per receiving endpoint (and, with `mail`, into
 * queued e-mail) and marks them dispatched, in one transaction. `skip locked` lets several
 * instances dispatch side by side without taking the same event twice.
 */
export async function dispatchOutbox(db: Db, now = new Date(), o: DispatchOptions = {}): Promise<number> {
  const batch = o.batch ?? 200;
  return db.transaction(async (tx) => {
    const events = (await tx
      .select({ id: outboxEvents.id, companyId: outboxEvents.companyId, type: outboxEvents.type, payload: outboxEvents.payload })
      .from(outboxEvents)
      .where(isNull(outboxEvents.dispatchedAt))
      .orderBy(asc(outboxEvents.createdAt))
      .limit(batch)
      .for('update', { skipLocked: true })) as Event[];
    if (events.length === 0) return 0;
    // Queued mail wakes the mail worker by itself (migration 0020).
    if (o.mail) await fanOutMail(tx, events, now);
    const companyIds = [...new Set(events.map((e) => e.companyId))];
    const hooks = await tx
      .select({ id: webhooks.id, companyId: webhooks.companyId, event: webhooks.event })
      .from(webhooks)
      .where(and(inArray(webhooks.companyId, companyIds), eq(webhooks.enabled, true)));
    const rows = events.flatMap((ev) =>
      recipients(ev, hooks).map((h) => ({
        id: newId(),
        companyId: ev.companyId,
        webhookId: h.id,
        eventId: ev.id,
        eventType: ev.type,
        nextAttemptAt: now,
        createdAt: now,
      })),
    );
    for (let i = 0; i < rows.length; i += 500) await tx.insert(webhookDeliveries).values(rows.slice(i, i + 500));
    await tx
      .update(outboxEvents)
      .set({ dispatchedAt: now })
      .where(
        inArray(
          outboxEvents.id,
          events.map((e) => e.id),
        ),
      );
    return events.length;
  });
}
