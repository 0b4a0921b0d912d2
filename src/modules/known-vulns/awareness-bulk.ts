import type { Db } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import type { ReportSource } from '../reports/reports.schemas.js';
import { awarenessTime, confirmAwareness, dismissAwareness, getAwareness } from './awareness.js';
import { pendingOfGroup } from './awareness-groups.js';
import { AWARENESS_BULK_MAX, BulkAwarenessInput, type BulkAwarenessResult } from './awareness-groups.schemas.js';

type Item = BulkAwarenessResult['results'][number];

/**
 * Confirms or dismisses many awareness decisions (docs/known-vulnerabilities.md "Awareness
 * decisions"): each through the single decision's verb, so in a transaction of its own with the
 * same report, Article 14 facts, events and audit row as one by one; one that cannot be taken is
 * reported and the others go on. Repeating a call changes nothing: a decision already taken the
 * same way answers `unchanged`. A confirmation without `awareAt` uses one instant for the call.
 */
export async function bulkDecideAwareness(db: Db, ctx: Context, companyId: string, raw: unknown, source: ReportSource): Promise<BulkAwarenessResult> {
  const input = parseInput(BulkAwarenessInput, raw);
  const awareAt = input.action === 'confirm' ? awarenessTime(input.awareAt, new Date()).toISOString() : undefined;
  let ids = input.ids ?? [];
  let remaining = 0;
  if (input.group) {
    const pending = await pendingOfGroup(db, companyId, input.group);
    ids = pending.slice(0, AWARENESS_BULK_MAX);
    remaining = pending.length - ids.length;
  }
  const target = input.action === 'confirm' ? 'confirmed' : 'dismissed';
  const results: Item[] = [];
  for (const id of ids) {
    try {
      const a =
        input.action === 'confirm'
          ? await confirmAwareness(db, ctx, companyId, id, { awareAt, ...(input.note ? { note: input.note } : {}) }, source)
          : await dismissAwareness(db, ctx, companyId, id, { reason: input.reason });
      results.push({ id, outcome: target, productIdentifier: a.productIdentifier, state: a.state, reportId: a.reportId });
    } catch (e) {
      if (!isAppError(e)) throw e;
      const now = e.code === 'CONFLICT' ? await getAwareness(db, companyId, id) : null;
      if (now && now.state === target)
        results.push({ id, outcome: 'unchanged', productIdentifier: now.productIdentifier, state: now.state, reportId: now.reportId });
      else {
        const outcome = e.code === 'NOT_FOUND' ? 'not_found' : e.code === 'CONFLICT' ? 'conflict' : 'invalid';
        results.push({
          id,
          outcome,
          productIdentifier: now?.productIdentifier ?? null,
          state: now?.state ?? null,
          reportId: now?.reportId ?? null,
          detail: e.message,
        });
      }
    }
  }
  const count = (...o: Item['outcome'][]) => results.filter((r) => o.includes(r.outcome)).length;
  return { decided: count('confirmed', 'dismissed'), unchanged: count('unchanged'), failed: count('conflict', 'not_found', 'invalid'), remaining, results };
}
