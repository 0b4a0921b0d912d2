import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { retentionForCompanies } from './retention-run.js';

const HOUR_MS = 3_600_000;

/**
 * One pass of the daily retention job (docs/retention.md "The daily run"; scheduled hourly by
 * src/jobs/registry.ts): applies the rules of each company whose last run is a day old or more; a
 * restart or a second instance finds nothing due and does nothing (each company's run is one
 * transaction, and a rule finds no item twice). Each run's audit row has counts only.
 */
export async function retentionPass(db: Db, log: Pick<Logger, 'info' | 'error'>, now?: Date): Promise<void> {
  const runs = await retentionForCompanies(
    db,
    { actor: { type: 'system' } },
    {
      apply: true,
      dueAfterMs: 24 * HOUR_MS - 5 * 60_000,
      now,
      onError: (companyId, err) => log.error({ err, companyId }, 'retention run failed for one company'),
    },
  );
  const changed = runs.filter((r) => r.rules.some((x) => x.count > 0));
  if (changed.length > 0) log.info({ companies: changed.length }, 'retention rules applied');
}
