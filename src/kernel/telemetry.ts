// The few places that time work (HTTP requests, database statements, pool checkouts) report here.
// Nothing listens unless the operator turned metrics on (METRICS_TOKEN or METRICS_PORT): then
// src/metrics/prometheus.ts, loaded only in that case, installs a sink. Without one every hook is a
// single undefined check, so the default start and memory do not change (docs/operations.md).

export type TelemetrySink = {
  /** A database statement finished after `seconds` (`ok` false when it failed). */
  statement(seconds: number, ok: boolean): void;
  /** A connection was handed out `seconds` after it was asked for (PostgreSQL; `lane`: ADR 0009's two pools). */
  poolWait(lane: 'system' | 'company', seconds: number): void;
  /** One pass of the vulnerability feed sync: each feed (its origin and path, no query) and its outcome. */
  feedSync(results: { feed: string; outcome: 'imported' | 'not-modified' | 'failed' }[]): void;
};

let sink: TelemetrySink | undefined;

export function useTelemetrySink(s: TelemetrySink | undefined): void {
  sink = s;
}

export function telemetrySink(): TelemetrySink | undefined {
  return sink;
}

/**
 * Times one statement: the promise as is when nothing listens, otherwise the same outcome once its
 * duration is reported.
 */
export function timedStatement<T>(run: () => Promise<T>): Promise<T> {
  const s = sink;
  if (!s) return run();
  const start = performance.now();
  return run().then(
    (v) => {
      s.statement((performance.now() - start) / 1000, true);
      return v;
    },
    (err: unknown) => {
      s.statement((performance.now() - start) / 1000, false);
      throw err;
    },
  );
}
