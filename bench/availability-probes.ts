// The probes of the availability bench (bench/availability.bench.ts): requests sent beside a
// workload at a fixed pace, each answer's wait kept, and the server's own figures around it (its
// resident memory from /proc, its event-loop and statement figures from /metrics).
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { rssMiB, statusMiB } from './lib.js';

/** One kind of request sent every `everyMs` while the work runs; `send` resolves to the HTTP status. */
export type Probe = { label: string; everyMs: number; send(): Promise<number>; ok(status: number): boolean };

export type ProbeStats = { label: string; answered: number; refused: number[]; slowestMs: number; p99Ms: number };

export type Beside<T> = { result: T; ms: number; probes: ProbeStats[]; peakRssMiB: number; hwmMiB: number; beforeRssMiB: number };

const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};

/** Asks the kernel to start the process's VmHWM again from its current size (Linux 4.0+; quietly kept when refused). */
function resetHighWaterMark(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not permitted here: VmHWM then counts from the server's start, which the printed line says.
  }
}

/**
 * Runs `work` and, until it settles, every probe on its own pace and a resident-memory sample of
 * `pid` every 50 ms. A probe sent before the work settled is counted when it is answered.
 */
export async function beside<T>(pid: number, probes: Probe[], work: () => Promise<T>): Promise<Beside<T>> {
  const beforeRssMiB = rssMiB(pid);
  resetHighWaterMark(pid);
  let done = false;
  let peakRssMiB = beforeRssMiB;
  const sampling = (async () => {
    while (!done) {
      peakRssMiB = Math.max(peakRssMiB, rssMiB(pid));
      await sleep(50);
    }
  })();
  const loops = probes.map(async (p): Promise<ProbeStats> => {
    const waits: number[] = [];
    const refused: number[] = [];
    while (!done) {
      const t0 = performance.now();
      const status = await p.send().catch(() => 0);
      waits.push(performance.now() - t0);
      if (!p.ok(status)) refused.push(status);
      await sleep(p.everyMs);
    }
    return { label: p.label, answered: waits.length - refused.length, refused, slowestMs: Math.max(0, ...waits), p99Ms: percentile(waits, 99) };
  });
  const t0 = performance.now();
  const result = await work().finally(() => (done = true));
  const ms = performance.now() - t0;
  const stats = await Promise.all(loops);
  await sampling;
  return { result, ms, probes: stats, peakRssMiB, hwmMiB: statusMiB(pid, 'VmHWM'), beforeRssMiB };
}

/** The figures read from the server's `/metrics` (prom-client's event-loop histogram is reset by each scrape). */
export type ServerFigures = { loopMaxMs: number; statements: number; over500ms: number; over1s: number; over5s: number };

function histogramCounts(text: string, name: string): { count: number; le: Map<string, number> } {
  let count = 0;
  const le = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}_count`)) count += Number(line.split(' ').pop());
    const bucket = new RegExp(`^${name}_bucket\\{.*le="([^"]+)".*\\} (\\d+)`).exec(line);
    if (bucket) le.set(bucket[1] as string, (le.get(bucket[1] as string) ?? 0) + Number(bucket[2]));
  }
  return { count, le };
}

/** Scrapes `/metrics`: the longest event-loop gap since the previous scrape and the statement histogram's running counts. */
export async function scrape(base: string, token: string): Promise<ServerFigures> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const loop = /^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text);
  const { count, le } = histogramCounts(text, 'cradle_db_statement_duration_seconds');
  const over = (bound: string) => count - (le.get(bound) ?? count);
  return { loopMaxMs: Number(loop?.[1] ?? NaN) * 1000, statements: count, over500ms: over('0.5'), over1s: over('1'), over5s: over('5') };
}

/** The statement counts between two scrapes; the event-loop gap of the later one (it covers the time since the earlier). */
export const between = (a: ServerFigures, b: ServerFigures): ServerFigures => ({
  loopMaxMs: b.loopMaxMs,
  statements: b.statements - a.statements,
  over500ms: b.over500ms - a.over500ms,
  over1s: b.over1s - a.over1s,
  over5s: b.over5s - a.over5s,
});
