import type { Listen } from './notifications.js';
import { asSystem } from './tenant-scope.js';

/**
 * A background loop around one async pass: it runs at once, then every `pollMs` after a pass
 * ends, and at once when nudged (a nudge during a pass runs one more pass right after it, never
 * two at the same time). A failing pass is reported and retried at the next tick. Used by the
 * webhook, mail and triage workers.
 *
 * With `wake`, a notification on its channel nudges the loop: the triggers of migration 0020 notify
 * when work is queued, so the loop runs as soon as the writing transaction commits, on any instance.
 * The first pass waits for the subscription: work queued before it is found by that pass, work
 * queued after it wakes the loop.
 */
export type PollLoop = { nudge(): void; stop(): Promise<void> };

export function startPollLoop(
  pass: () => Promise<void>,
  o: { pollMs: number; onError: (err: unknown) => void; wake?: { listen: Listen; channel: string } },
): PollLoop {
  let stopped = false;
  const subscribed = o.wake
    ? o.wake
        .listen(o.wake.channel, () => tick())
        .catch((err: unknown) => {
          o.onError(err);
          return undefined;
        })
    : Promise.resolve(undefined);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const tick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    // Cradle's own cross-company work, whoever nudged it (a nudge may come from inside a request).
    running = asSystem(async () => {
      await subscribed;
      await pass();
    })
      .catch(o.onError)
      .finally(() => {
        running = undefined;
        if (stopped) return;
        if (again) {
          again = false;
          setImmediate(tick);
        } else timer = setTimeout(tick, o.pollMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    nudge: tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await (
        await subscribed
      )?.();
    },
  };
}

/**
 * A queue worker's loop (the triage and SBOM-match jobs): a pass runs `cycle`, which claims and runs
 * a batch and answers how many it claimed, until one claims nothing or the loop is stopping.
 */
export function startQueueLoop(cycle: () => Promise<number>, o: Parameters<typeof startPollLoop>[1]): PollLoop {
  let stopping = false;
  const loop = startPollLoop(async () => {
    while (!stopping && (await cycle()) > 0);
  }, o);
  return {
    nudge: loop.nudge,
    async stop() {
      stopping = true;
      await loop.stop();
    },
  };
}
