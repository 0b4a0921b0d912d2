// The probes of the availability bench (bench/availability.bench.ts): requests sent beside a
// workload at a fixed pace, each answer's wait kept, and the server's own figures around it (its
// resident memory from /proc, its event-loop and statement figures from /metrics).
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { oneComponentSbom } from './evidence-data.js';
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

/** Sends every probe on its own pace until `done()`; a probe sent before that is counted when it is answered. */
export async function runProbes(probes: Probe[], done: () => boolean): Promise<ProbeStats[]> {
  return Promise.all(
    probes.map(async (p): Promise<ProbeStats> => {
      const waits: number[] = [];
      const refused: number[] = [];
      while (!done()) {
        const t0 = performance.now();
        const status = await p.send().catch(() => 0);
        waits.push(performance.now() - t0);
        if (!p.ok(status)) refused.push(status);
        await sleep(p.everyMs);
      }
      return { label: p.label, answered: waits.length - refused.length, refused, slowestMs: Math.max(0, ...waits), p99Ms: percentile(waits, 99) };
    }),
  );
}

const drained = (r: Response) => r.arrayBuffer().then(() => r.status);

/** Company B's probes: /healthz and its read every 50 ms, its one-component SBOM push every 500 ms. */
export function probesOf(base: string, keyB: string): Probe[] {
  let version = Date.now() % 100_000;
  const auth = { authorization: `Bearer ${keyB}` };
  return [
    { label: '/healthz', everyMs: 50, send: () => fetch(`${base}/healthz`).then(drained), ok: (s) => s === 200 },
    { label: "B's read", everyMs: 50, send: () => fetch(`${base}/api/v1/products`, { headers: auth }).then(drained), ok: (s) => s === 200 },
    {
      label: "B's SBOM push",
      everyMs: 500,
      send: () =>
        fetch(`${base}/api/v1/sboms?product=probe`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: oneComponentSbom(++version),
        }).then(drained),
      ok: (s) => s === 201,
    },
  ];
}

/**
 * Runs `work` while a child process (bench/availability-prober.ts) sends B's probes to `base`, and
 * samples the resident memory of `pid` every 50 ms. The probes run in a process of their own so that
 * their waits are the server's, not this process's: writing 16 bodies of 45 MiB held this event loop
 * for seconds, which an in-process probe counted as the server's wait.
 */
export async function beside<T>(pid: number, prober: { base: string; keyB: string }, work: () => Promise<T>): Promise<Beside<T>> {
  const child = fork(fileURLToPath(new URL('./availability-prober.ts', import.meta.url)), [prober.base, prober.keyB], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const messages: unknown[] = [];
  let wake: (() => void) | undefined;
  child.on('message', (m) => (messages.push(m), wake?.()));
  const next = async (): Promise<unknown> => {
    while (messages.length === 0) {
      if (child.exitCode !== null) throw new Error(`the prober ended (${child.exitCode}) before it reported`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        child.once('exit', () => resolve());
      });
    }
    return messages.shift();
  };
  // Whatever fails here (the server gone, a workload's error), the prober must not outlive the bench:
  // an orphaned prober keeps `npm run bench` waiting for ever.
  try {
    if ((await next()) !== 'ready') throw new Error('the prober did not start');
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
    // Its failure (the server gone) is thrown where it is awaited below, not as an unhandled rejection.
    sampling.catch(() => undefined);
    child.send('start');
    const t0 = performance.now();
    const result = await work().finally(() => {
      done = true;
      child.send('stop');
    });
    const ms = performance.now() - t0;
    await sampling;
    return { result, ms, probes: (await next()) as ProbeStats[], peakRssMiB, hwmMiB: statusMiB(pid, 'VmHWM'), beforeRssMiB };
  } catch (e) {
    if (child.exitCode === null) child.kill();
    throw e;
  }
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
