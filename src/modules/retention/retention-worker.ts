import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { type PollLoop, startPollLoop } from '../../db/poll-loop.js';
import { retentionForCompanies } from './retention-run.js';

const HOUR_MS = 3_600_000;

/**
 * The daily retention job (docs/retention.md "The daily run"), started by main.ts on the poll loop
 * every worker uses. It looks once an hour and applies the rules of each company whose last run is
 * a day old or more; a restart or a second instance finds nothing due and does nothing (each
 * company's run is one transaction, and a rule finds no item twice). Each run's audit row has counts only.
 */
export function startRetentionWorker(db: Db, o: { log: Pick<Logger, 'info' | 'error'>; pollMs?: number; now?: () => Date }): PollLoop {
  return startPollLoop(
    async () => {
      const runs = await retentionForCompanies(
        db,
        { actor: { type: 'system' } },
        {
          apply: true,
          dueAfterMs: 24 * HOUR_MS - 5 * 60_000,
          now: o.now?.(),
          onError: (companyId, err) => o.log.error({ err, companyId }, 'retention run failed for one company'),
        },
      );
      const changed = runs.filter((r) => r.rules.some((x) => x.count > 0));
      if (changed.length > 0) o.log.info({ companies: changed.length }, 'retention rules applied');
    },
    { pollMs: o.pollMs ?? HOUR_MS, onError: (err) => o.log.error({ err }, 'retention pass failed') },
  );
}
