/**
 * Webhook delivery benchmark (issue 9): deliveries per second to a local receiver, filing-to-delivery
 * latency, and what one company's dead endpoint costs the others.
 *
 *   node --import ./scripts/ts-hooks.mjs bench/webhooks.bench.ts        # PGlite, and PostgreSQL when DATABASE_URL is set
 *   BENCH_EVENTS=4000 node --import ./scripts/ts-hooks.mjs bench/webhooks.bench.ts
 *
 * Baseline (same run, same receiver): the same signed POSTs sent by `postWebhook` straight from
 * memory at the worker's concurrency, with no database: the ratio is the cost of durability (outbox,
 * claim, lease and outcome rows).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../src/db/client.js';
import { operatorContext } from '../src/kernel/context.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import type { Company } from '../src/modules/companies/companies.schemas.js';
import { fileReport } from '../src/modules/reports/file-report.js';
import { postWebhook } from '../src/modules/webhooks/post-webhook.js';
import { registerWebhook } from '../src/modules/webhooks/webhook-endpoints.js';
import { webhookHeaders } from '../src/modules/webhooks/signing.js';
import { startWebhookWorker } from '../src/modules/webhooks/webhook-worker.js';
import { median, withBenchDatabase } from './lib.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const COMPANIES = 10;
const CONCURRENCY = 32;
const LATENCY_RATE = Number(process.env.BENCH_LATENCY_RATE ?? 50); // reports per second
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 8);

type Receiver = { url: string; arrivals: Map<string, number>; close(): Promise<void> };

/** Answers 204 at once and notes when each report's event arrived (by submissionId). */
async function startReceiver(hang = false): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (hang) return;
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { submissionId?: string } };
      const id = body.data?.submissionId;
      if (id && !arrivals.has(id)) arrivals.set(id, at);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    arrivals,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const t0 = performance.now();
  while (!cond()) {
    if (performance.now() - t0 > timeoutMs) return false;
    await sleep(5);
  }
  return true;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function makeCompanies(db: Db, n: number, prefix: string, url: string): Promise<Company[]> {
  const out: Company[] = [];
  for (let i = 0; i < n; i++) {
    const c = await createCompany(db, operatorContext(), { slug: `${prefix}-${i}`, name: `${prefix} ${i}`, plan: 'enterprise' });
    await registerWebhook(db, operatorContext(), c.id, { url }, { allowPrivate: true });
    out.push(c);
  }
  return out;
}

const report = (i: number) => ({
  description: `Benchmark report ${i}: the firmware update channel accepts unsigned images.`,
  vulnerabilityType: 'insecure_update',
});

/** Throughput: EVENTS reports queued first, then the worker drains them; and the in-memory baseline. */
async function throughput(db: Db): Promise<{ perSecond: number; baselinePerSecond: number }> {
  const receiver = await startReceiver();
  const companies = await makeCompanies(db, COMPANIES, 'tp', receiver.url);
  const bodies: string[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const { report: r } = await fileReport(db, operatorContext(), companies[i % COMPANIES] as Company, report(i), 'api');
    bodies.push(JSON.stringify({ type: 'vulnerability.reported', timestamp: new Date().toISOString(), data: r }));
  }
  const t0 = performance.now();
  const worker = startWebhookWorker(db, { allowPrivate: true, concurrency: CONCURRENCY, pollMs: 20 });
  const done = await until(() => receiver.arrivals.size >= EVENTS, 300_000);
  const ms = performance.now() - t0;
  await worker.stop();
  if (!done) throw new Error(`only ${receiver.arrivals.size} of ${EVENTS} events arrived`);

  // Baseline: the same signed POSTs, same concurrency, same receiver, no database.
  const base = await startReceiver();
  const secrets = ['whsec_' + Buffer.alloc(32, 7).toString('base64')];
  let next = 0;
  const b0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < bodies.length; i = next++) {
        const body = bodies[i] as string;
        await postWebhook(base.url, webhookHeaders(`msg_${i}`, body, secrets, new Date()), body, { allowPrivate: true });
      }
    }),
  );
  const bms = performance.now() - b0;
  await Promise.all([receiver.close(), base.close()]);
  return { perSecond: (EVENTS / ms) * 1000, baselinePerSecond: (bodies.length / bms) * 1000 };
}

/** Latency from the filing's commit to arrival, reports filed at a steady rate while the worker runs. */
async function latency(db: Db, prefix: string, deadEndpoint: boolean): Promise<{ p50: number; p99: number; lost: number }> {
  const receiver = await startReceiver();
  const dead = deadEndpoint ? await startReceiver(true) : undefined;
  const companies = await makeCompanies(db, 3, prefix, receiver.url);
  const worker = startWebhookWorker(db, { allowPrivate: true, concurrency: CONCURRENCY, pollMs: 200, totalTimeoutMs: 15_000 });
  if (dead) {
    // One company whose endpoint accepts connections and never answers, with a backlog of events.
    const [victim] = await makeCompanies(db, 1, `${prefix}-dead`, dead.url);
    for (let i = 0; i < 200; i++) await fileReport(db, operatorContext(), victim as Company, report(i), 'api');
    worker.nudge();
    await sleep(500);
  }
  const filedAt = new Map<string, number>();
  const total = LATENCY_RATE * LATENCY_SECONDS;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const { report: r } = await fileReport(db, operatorContext(), companies[i % companies.length] as Company, report(i), 'api');
    filedAt.set(r.submissionId, performance.now());
    worker.nudge();
    const wait = t0 + ((i + 1) * 1000) / LATENCY_RATE - performance.now();
    if (wait > 0) await sleep(wait);
  }
  await until(() => [...filedAt.keys()].every((id) => receiver.arrivals.has(id)), 60_000);
  await dead?.close();
  await worker.stop();
  const lat = [...filedAt].filter(([id]) => receiver.arrivals.has(id)).map(([id, at]) => (receiver.arrivals.get(id) as number) - at);
  await receiver.close();
  return { p50: median(lat), p99: percentile(lat, 99), lost: total - lat.length };
}

const kinds: ('pglite' | 'postgres')[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
console.log(
  `webhook benchmark: ${EVENTS} queued events over ${COMPANIES} endpoints, worker concurrency ${CONCURRENCY}; latency at ${LATENCY_RATE} reports/s for ${LATENCY_SECONDS} s; node ${process.version}`,
);
for (const kind of kinds) {
  await withBenchDatabase(kind, async ({ db }) => {
    const tp = await throughput(db);
    const calm = await latency(db, 'calm', false);
    const stormy = await latency(db, 'storm', true);
    console.log(`\n${kind}`);
    console.log(
      `  deliveries: ${tp.perSecond.toFixed(0)}/s (goal >= 500/s); baseline, same POSTs from memory without the database: ${tp.baselinePerSecond.toFixed(0)}/s; ratio ${(tp.perSecond / tp.baselinePerSecond).toFixed(2)}`,
    );
    console.log(`  filing-to-delivery: p50 ${calm.p50.toFixed(0)} ms (goal < 250 ms), p99 ${calm.p99.toFixed(0)} ms; not arrived ${calm.lost}`);
    console.log(
      `  same, while another company's dead endpoint holds 200 hanging deliveries: p50 ${stormy.p50.toFixed(0)} ms, p99 ${stormy.p99.toFixed(0)} ms; not arrived ${stormy.lost}`,
    );
  });
}
