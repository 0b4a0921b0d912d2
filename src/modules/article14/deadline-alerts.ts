import type { Db } from '../../db/client.js';
import { article14Alerts } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import type { Article14Status, Stage } from './article14-clock.js';
import { article14Statuses } from './article14-statuses.js';

/** An unfiled stage this close to its due time raises `article14.deadline_approaching`. */
export const APPROACHING_MS = 4 * 3_600_000;

export type DeadlineAlert = { stage: Stage; kind: 'approaching' | 'overdue'; dueAt: string };

/**
 * The alerts a report's Article 14 status calls for now (pure): overdue for every unfiled stage
 * past its due time, approaching for one due within APPROACHING_MS. A stage already overdue is not
 * also announced as approaching.
 */
export function deadlineAlerts(status: Article14Status, now: Date): DeadlineAlert[] {
  return status.stages.flatMap((s): DeadlineAlert[] => {
    if (s.filing || !s.dueAt) return [];
    const left = Date.parse(s.dueAt) - now.getTime();
    if (left < 0) return [{ stage: s.stage, kind: 'overdue', dueAt: s.dueAt }];
    return left <= APPROACHING_MS ? [{ stage: s.stage, kind: 'approaching', dueAt: s.dueAt }] : [];
  });
}

const EVENT = { approaching: 'article14.deadline_approaching', overdue: 'article14.overdue' } as const;

/**
 * One pass over every report Article 14 applies to: each alert due is recorded once (unique key
 * report, stage, kind, due time) and its webhook event is written in the same transaction. Two
 * instances racing on one alert: the second insert finds the first's row and does nothing.
 */
export async function raiseDeadlineAlerts(db: Db, now = new Date()): Promise<DeadlineAlert[]> {
  const raised: DeadlineAlert[] = [];
  for (const { reportId, companyId, status } of await article14Statuses(db, undefined, now)) {
    for (const a of deadlineAlerts(status, now)) {
      const fresh = await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(article14Alerts)
          .values({ id: newId(), companyId, reportId, stage: a.stage, kind: a.kind, dueAt: new Date(a.dueAt), createdAt: now })
          .onConflictDoNothing()
          .returning({ id: article14Alerts.id });
        if (!row) return false;
        await enqueueEvent(tx, companyId, EVENT[a.kind], { submissionId: reportId, stage: a.stage, dueAt: a.dueAt, basis: status.basis }, now);
        return true;
      });
      if (fresh) raised.push(a);
    }
  }
  return raised;
}
