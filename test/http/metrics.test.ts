import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { operatorContext } from '../../src/kernel/context.js';
import { sendTestEvent } from '../../src/modules/webhooks/delivery-log.js';
import { registerWebhook } from '../../src/modules/webhooks/webhook-endpoints.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/modules/webhooks/webhook-worker.js';
import { makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, portalHost, type TestApp, testConfig, testRateLimiter } from '../helpers/app.js';
import { freshAddress } from '../helpers/intake.js';
import { startReceiver } from '../helpers/receiver.js';
import { freePort } from '../helpers/processes.js';
import { gates, WORKER_TASKS } from '../helpers/worker-gates.js';
import { offloadPool } from '../../src/kernel/offload-pool.js';

// Issue 36: Prometheus metrics, off unless configured, only for the token.

const TOKEN = 'metrics-token-0123456789abcdef0123456789';
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
let t: TestApp;
let acme: Tenant;

before(async () => {
  t = await createTestApp({ METRICS_TOKEN: TOKEN });
  acme = await makeTenant(t.database.db);
});
after(() => t.close());

const scrape = (authorization?: string) => t.app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} });

/** The value of one series of a scrape, e.g. `cradle_queue_depth{queue="mail_messages"}`. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrapeText(): Promise<string> {
  const res = await scrape(`Bearer ${TOKEN}`);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
  return res.body;
}

const file = (n: number) =>
  t.app.inject({
    method: 'POST',
    url: '/submit',
    headers: { host: portalHost(acme.company.slug), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: new URLSearchParams({ description: `metrics load ${n} description`, stepsToReproduce: 'steps', impact: 'impact' }).toString(),
    remoteAddress: freshAddress(),
  });

describe('/metrics', () => {
  it('answers 401 without the token, or with a wrong one, and reveals nothing', async () => {
    for (const auth of [undefined, `Bearer ${TOKEN.slice(0, -1)}x`, `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`]) {
      const res = await scrape(auth);
      assert.equal(res.statusCode, 401, String(auth));
      assert.doesNotMatch(res.body, /cradle_|nodejs_|process_|# HELP/);
      assert.equal(res.headers['www-authenticate'], auth?.startsWith('Bearer ') ? 'Bearer error="invalid_token"' : 'Bearer');
    }
  });

  it('is absent when not configured', async () => {
    const bare = await buildApp({ config: testConfig(), database: t.database, rateLimiter: testRateLimiter() });
    try {
      const res = await bare.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.statusCode, 404);
    } finally {
      await bare.close();
      // The app does not own the limiter it is given: on the PostgreSQL pass it is a Redis
      // connection, which left open kept this file's process alive after its tests.
      await bare.deps.rateLimiter.close();
    }
  });

  it('counts filed reports and requests by route template under filing load, in a form promtool accepts', async (ctx) => {
    const filed = await Promise.all(Array.from({ length: 12 }, (_, i) => file(i)));
    assert.deepEqual(
      filed.map((r) => r.statusCode),
      filed.map(() => 200),
    );
    const text = await scrapeText();
    assert.equal(value(text, 'cradle_reports{status="new"}'), 12);
    assert.equal(value(text, 'cradle_http_request_duration_seconds_count{route="/submit",method="POST",status_class="2xx"}'), 12);
    // The scrape's own reads are statements too: the next scrape counts them.
    const statements = value(text, 'cradle_db_statement_duration_seconds_count{outcome="ok"}') ?? 0;
    assert.ok(statements > 0);
    assert.ok((value(await scrapeText(), 'cradle_db_statement_duration_seconds_count{outcome="ok"}') ?? 0) >= statements + 4);
    // An outbox event per filing, waiting: no dispatcher runs here.
    assert.equal(value(text, 'cradle_queue_depth{queue="outbox_events"}'), 12);
    assert.ok((value(text, 'cradle_queue_oldest_age_seconds{queue="outbox_events"}') ?? 0) > 0);
    for (const series of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) {
      assert.ok((value(text, series) ?? -1) > 0, series);
    }
    for (const s of ['open', 'due_soon', 'overdue']) assert.equal(value(text, `cradle_article14_stages{state="${s}"}`), 0);
    // No company name, slug or id in any label value.
    for (const secret of [acme.company.id, acme.company.slug, acme.company.name]) assert.ok(!text.includes(secret), secret);
    assert.doesNotMatch(text, /^nodejs_active_\w+_total /m);
    if (!PROMTOOL) return ctx.skip('promtool is not installed (Debian package prometheus; .ci/run installs it)');
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
  });

  it("shows this process's offload pool: jobs running, jobs queued behind them, its workers", async () => {
    const pool = offloadPool();
    // The pool's size where this runs (src/kernel/worker-pool.ts's default): that many run, 3 more queue.
    const size = Math.min(4, Math.max(2, availableParallelism() - 1));
    const n = size + 3;
    const g = gates(n);
    // One key per job, so none waits for its own key's turn.
    const jobs = Array.from({ length: n }, (_, i) => pool.run(`metrics-${i}`, { module: WORKER_TASKS, fn: 'held' }, g.input(i)));
    try {
      while (g.started().length < size) await sleep(10);
      const text = await scrapeText();
      assert.equal(value(text, 'cradle_offload_jobs{state="running"}'), size);
      assert.equal(value(text, 'cradle_offload_jobs{state="queued"}'), 3);
      assert.equal(value(text, 'cradle_offload_workers'), size + 1, 'the busy workers and a warm spare for the jobs waiting');
    } finally {
      for (let i = 0; i < n; i++) g.release(i);
      await Promise.all(jobs);
    }
    const idle = await scrapeText();
    assert.equal(value(idle, 'cradle_offload_jobs{state="running"}'), 0);
    assert.equal(value(idle, 'cradle_offload_jobs{state="queued"}'), 0);
  });

  it('shows the webhook queue growing while the receiver is down and emptying once it is up', async () => {
    const rx = await startReceiver();
    let worker: WebhookWorker | undefined;
    try {
      rx.respond(() => ({ status: 503 }));
      const hook = await registerWebhook(
        t.database.db,
        operatorContext(),
        acme.company.id,
        { url: rx.url('/down'), event: 'webhook.test' },
        { allowPrivate: true },
      );
      worker = startWebhookWorker(t.database.db, { allowPrivate: true, pollMs: 50, retryScale: 0.001, listen: t.database.listen });
      await sendTestEvent(t.database.db, operatorContext(), acme.company.id, hook.id);
      const depth = async () => value(await scrapeText(), 'cradle_queue_depth{queue="webhook_deliveries"}');
      for (const deadline = Date.now() + 20_000; !(rx.seen.length >= 1 && (await depth()) === 1); await sleep(50)) {
        assert.ok(Date.now() < deadline, `no failed attempt with the delivery still queued (attempts ${rx.seen.length})`);
      }
      rx.respond(() => ({ status: 204 }));
      for (const deadline = Date.now() + 20_000; (await depth()) !== 0; await sleep(50)) {
        assert.ok(Date.now() < deadline, 'the queue did not empty once the receiver was up');
      }
      assert.ok(rx.seen.length >= 2);
    } finally {
      await worker?.stop();
      await rx.close();
    }
  });
});

describe('metrics configuration', () => {
  it('refuses a short token and a metrics host without a port, naming the variable', () => {
    assert.throws(() => testConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN: at least 32 characters/);
    assert.throws(() => testConfig({ METRICS_HOST: '0.0.0.0' }), /METRICS_HOST needs METRICS_PORT/);
    assert.deepEqual(testConfig({ METRICS_PORT: '9464' }).metrics, { token: undefined, listen: { host: 'localhost', port: 9464 }, companyLabels: false });
    assert.equal(testConfig().metrics, undefined);
  });
});

describe('per-company labels', () => {
  it('are absent unless the operator asks, and then name each company by its slug', async () => {
    const plain = await scrapeText();
    assert.ok(!plain.includes(acme.company.slug) && !plain.includes(acme.company.id), 'the default scrape names a company');
    assert.doesNotMatch(plain, /cradle_company_/);

    const app = await buildApp({
      config: testConfig({ METRICS_TOKEN: TOKEN, METRICS_COMPANY_LABELS: 'true' }),
      database: t.database,
      rateLimiter: testRateLimiter(),
    });
    try {
      const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.statusCode, 200);
      // acme is the only company with reports here, so its series equals the instance-wide one.
      const all = value(res.body, 'cradle_reports{status="new"}');
      assert.ok(all !== undefined && all > 0);
      assert.equal(value(res.body, `cradle_company_reports{company="${acme.company.slug}",status="new"}`), all);
      assert.ok(!res.body.includes(acme.company.id), 'company ids never appear, only slugs');
      if (PROMTOOL) {
        const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: res.body, encoding: 'utf8' });
        assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
      }
    } finally {
      await app.close();
      await app.deps.rateLimiter.close();
    }
  });

  it('is refused without metrics turned on', () => {
    assert.throws(() => testConfig({ METRICS_COMPANY_LABELS: 'true' }), /METRICS_COMPANY_LABELS needs metrics on/);
  });
});

describe('metrics on their own address', () => {
  it('serves /metrics only there, without a token when none is set', async () => {
    // A port the kernel just handed out as free: a random one in 40,000-60,000 lies in the range
    // the kernel gives outgoing connections (the PostgreSQL pass's pools hold many) and collided.
    const port = await freePort();
    const own = await buildApp({
      config: testConfig({ METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' }),
      database: t.database,
      rateLimiter: testRateLimiter(),
    });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /^cradle_reports\{status="new"\} 12$/m);
      assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 404);
      assert.equal((await own.inject({ url: '/metrics' })).statusCode, 404);
    } finally {
      await own.close();
      // Its own rate limiter (a Redis connection on the PostgreSQL pass) would keep the test process alive.
      await own.deps.rateLimiter.close();
    }
  });
});
