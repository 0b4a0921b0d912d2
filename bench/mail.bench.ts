/**
 * E-mail benchmark (issue 21): mails per second through Cradle's queue to a loopback SMTP server,
 * and filing-to-mail-accepted latency, each beside a same-run baseline.
 *
 *   node --import ./scripts/ts-hooks.mjs bench/mail.bench.ts      # PGlite, and PostgreSQL when DATABASE_URL is set
 *
 * Baseline (same run, same SMTP server): as many messages of about the same size sent by nodemailer
 * with Cradle's pool settings straight from memory, with no database: the ratio is the cost of the
 * durable queue (claim, lease, outcome rows, the per-recipient count, composing). Throughput runs in
 * BENCH_ROUNDS alternating rounds (default 3) of BENCH_MAILS (default 1,000) after a warm-up round;
 * the figure is the median (a shared machine's bursts land in one round, not in all).
 * BENCH_SMTP_SLOW=N:MS makes the SMTP server answer every Nth message MS ms late.
 */
import { createTransport } from 'nodemailer';
import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/client.js';
import type { Listen } from '../src/db/notifications.js';
import { operatorContext } from '../src/kernel/context.js';
import type { Company } from '../src/modules/companies/companies.schemas.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { SMTP_POOL, smtpTransport } from '../src/modules/mail/mail-transport.js';
import { startMailWorker } from '../src/modules/mail/mail-worker.js';
import { fileReport } from '../src/modules/reports/file-report.js';
import { createAdmin } from '../src/modules/users/create-admin.js';
import { dispatchOutbox } from '../src/modules/webhooks/dispatch-outbox.js';
import { startWebhookWorker } from '../src/modules/webhooks/webhook-worker.js';
import { median, withBenchDatabase } from './lib.js';

const MAILS = Number(process.env.BENCH_MAILS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 200;
const COMPANIES = 10;
const RATE = 20; // reports per second for the latency run
const SECONDS = 6;

/** A loopback SMTP server in its own process, noting when each message (by its subject's submission id) was accepted. */
async function startPeer() {
  const accepted = new Map<string, number>();
  const child = fork(new URL('./smtp-peer-child.mjs', import.meta.url), { stdio: 'ignore' });
  const port = await new Promise<number>((resolve) => {
    child.on('message', (m: { port?: number; id?: string | null; at?: number }) => {
      if (m.port) resolve(m.port);
      else if (m.id && m.at && !accepted.has(m.id)) accepted.set(m.id, m.at);
    });
  });
  return { url: `smtp://127.0.0.1:${port}`, accepted, close: () => child.disconnect() };
}

async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) return false;
    await sleep(5);
  }
  return true;
}

async function companies(db: Db, prefix: string): Promise<Company[]> {
  const out: Company[] = [];
  for (let i = 0; i < COMPANIES; i++) {
    const c = await createCompany(db, operatorContext(), { slug: `${prefix}-${i}`, name: `Bench ${prefix} ${i}`, plan: 'enterprise' });
    await createAdmin(db, operatorContext(), c.slug, { email: `psirt-${prefix}-${i}@bench.example`, password: 'a long bench passphrase' });
    out.push(c);
  }
  return out;
}

const report = (i: number) => ({
  description: `Benchmark report ${i}: the firmware update channel accepts unsigned images.`,
  vulnerabilityType: 'insecure_update' as const,
});

async function run(db: Db, listen: Listen) {
  const peer = await startPeer();
  const config = loadConfig({
    PUBLIC_URL: 'http://localhost:3000',
    SMTP_URL: peer.url,
    MAIL_FROM: 'cradle@bench.example',
    MAIL_MAX_PER_RECIPIENT_PER_HOUR: '10000',
  });
  const mail = config.mail as NonNullable<typeof config.mail>;

  // Throughput, in alternating rounds (on a shared machine one round can land in another job's
  // burst): each round queues MAILS new-report notices and times Cradle's sender draining them,
  // then times the baseline sending as many. A first, smaller round warms both paths up (JIT, the
  // pool's connections) and is not counted.
  const tp = await companies(db, 'tp');
  const queueRates: number[] = [];
  const baseRates: number[] = [];
  const queueCpu: number[] = [];
  const baseCpu: number[] = [];
  let filed = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const n = round === 0 ? WARM_UP : MAILS;
    // Filed in groups (group commit) to keep the untimed set-up short.
    for (let i = 0; i < n; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, n - i) }, (_, j) =>
          fileReport(db, operatorContext(), tp[(filed + i + j) % COMPANIES] as Company, report(filed + i + j), 'api'),
        ),
      );
    filed += n;
    while ((await dispatchOutbox(db, new Date(), { mail: true, batch: 500 })) > 0);
    peer.accepted.clear();
    const t0 = Date.now();
    const c0 = process.cpuUsage();
    const sender = startMailWorker(db, { config, mail, transport: smtpTransport(peer.url), pollMs: 20 });
    const drained = await until(() => peer.accepted.size >= n, 600_000);
    const ms = Date.now() - t0;
    const cpu = process.cpuUsage(c0);
    await sender.stop();
    if (!drained) throw new Error(`only ${peer.accepted.size} of ${n} mails arrived`);

    // Baseline: as many messages of about the same size, nodemailer with the same pool settings, no database.
    const direct = createTransport({ url: peer.url, pool: true, ...SMTP_POOL } as Parameters<typeof createTransport>[0]);
    const ids = [...peer.accepted.keys()];
    peer.accepted.clear();
    const b0 = Date.now();
    const bc0 = process.cpuUsage();
    await Promise.all(
      ids.map((id) =>
        direct.sendMail({
          from: { name: 'Bench', address: 'cradle@bench.example' },
          to: 'psirt@bench.example',
          subject: `New vulnerability report ${id}`,
          text: 'x'.repeat(400),
          html: `<p>${'x'.repeat(400)}</p>`,
        }),
      ),
    );
    const bms = Date.now() - b0;
    const bcpu = process.cpuUsage(bc0);
    direct.close();
    if (round === 0) continue;
    queueRates.push((n / ms) * 1000);
    baseRates.push((ids.length / bms) * 1000);
    queueCpu.push((cpu.user + cpu.system) / n);
    baseCpu.push((bcpu.user + bcpu.system) / ids.length);
    console.log(`  round ${round}: through the queue ${queueRates.at(-1)?.toFixed(0)}/s, straight ${baseRates.at(-1)?.toFixed(0)}/s`);
  }

  // Latency: reports filed at a steady rate while both workers run as in the server.
  peer.accepted.clear();
  const lat = await companies(db, 'lat');
  const l0 = Date.now();
  // Woken by the database as in the server (migration 0020).
  const mailer = startMailWorker(db, { config, mail, transport: smtpTransport(peer.url), pollMs: 1000, listen });
  const hooks = startWebhookWorker(db, { allowPrivate: true, pollMs: 1000, dispatch: { mail: true }, listen });
  const filedAt = new Map<string, number>();
  for (let i = 0; i < RATE * SECONDS; i++) {
    const { report: r } = await fileReport(db, operatorContext(), lat[i % COMPANIES] as Company, report(i), 'api');
    filedAt.set(r.submissionId, Date.now());
    const wait = l0 + ((i + 1) * 1000) / RATE - Date.now();
    if (wait > 0) await sleep(wait);
  }
  await until(() => [...filedAt.keys()].every((id) => peer.accepted.has(id)), 60_000);
  await hooks.stop();
  await mailer.stop();
  const latencies = [...filedAt].filter(([id]) => peer.accepted.has(id)).map(([id, at]) => (peer.accepted.get(id) as number) - at);
  await peer.close();
  const ratios = queueRates.map((q, i) => q / (baseRates[i] as number));
  return {
    perSecond: median(queueRates),
    baseline: median(baseRates),
    ratio: median(ratios),
    ratios,
    cpu: median(queueCpu),
    baseCpu: median(baseCpu),
    p50: median(latencies),
    lost: filedAt.size - latencies.length,
  };
}

const kinds: ('pglite' | 'postgres')[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
console.log(
  `mail benchmark: ${ROUNDS} rounds of ${MAILS} queued notices over ${COMPANIES} companies, each beside the baseline (after a ${WARM_UP}-mail warm-up); latency at ${RATE} reports/s for ${SECONDS} s; SMTP pool ${SMTP_POOL.maxConnections} connections${process.env.BENCH_SMTP_SLOW ? `; the SMTP server answers every ${process.env.BENCH_SMTP_SLOW.replace(':', 'th message ')} ms late` : ''}; node ${process.version}`,
);
for (const kind of kinds) {
  await withBenchDatabase(kind, async ({ db, listen }) => {
    console.log(`\n${kind}`);
    const r = await run(db, listen);
    console.log(
      `  mails: ${r.perSecond.toFixed(0)}/s (goal >= 200/s, median of ${ROUNDS} rounds); baseline, same count straight through nodemailer without the database: ${r.baseline.toFixed(0)}/s; ratio ${r.ratio.toFixed(2)} (median of ${r.ratios.map((x) => x.toFixed(2)).join(', ')})`,
    );
    console.log(
      `  this process's CPU per mail (median): through the queue ${r.cpu.toFixed(0)} µs, straight ${r.baseCpu.toFixed(0)} µs${kind === 'pglite' ? ' (the embedded database included)' : ' (the PostgreSQL server not included)'}`,
    );
    console.log(`  filing-to-mail-accepted: p50 ${r.p50.toFixed(0)} ms (goal < 1000 ms); not arrived ${r.lost}`);
  });
}
