import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/client.js';
import { openOffloadPool } from '../kernel/offload-pool.js';
import { useTelemetrySink } from '../kernel/telemetry.js';
import { type CompanyFacts, readCompanyFacts, readScrapeFacts } from './scrape-queries.js';

// Loaded (dynamic import) only when the operator turns metrics on (docs/operations.md). Label values
// are route templates, status classes, queue, lane, feed and state names: never a company's name or
// id, nor anything a client chose, so the series count is fixed.

/**
 * prom-client's default process metrics include three gauges named `*_total` beside the same gauge
 * by type, which promtool refuses (a `_total` name is a counter's): dropped, their unsuffixed
 * siblings stay.
 */
const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export type PrometheusMetrics = {
  registry: Registry;
  /** One finished HTTP request: its route template (or `unmatched`), method and status. */
  httpRequest(route: string | undefined, method: string, statusCode: number, seconds: number): void;
  /** The exposition text, after reading the database's figures. */
  scrape(): Promise<string>;
  contentType: string;
  stop(): void;
};

/** `companyLabels`: the operator asked for per-company series (METRICS_COMPANY_LABELS; docs/operations.md says what they reveal). */
export function startPrometheusMetrics(db: Db, companyLabels = false): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  const registers = [registry];
  const http = new Histogram({
    name: 'cradle_http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status class, from arrival to the last byte handed to the socket.',
    labelNames: ['route', 'method', 'status_class'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const statements = new Histogram({
    name: 'cradle_db_statement_duration_seconds',
    help: 'Database statements by outcome, measured at the driver (PGlite or node-postgres).',
    labelNames: ['outcome'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers,
  });
  const poolWait = new Histogram({
    name: 'cradle_db_pool_wait_seconds',
    help: 'Time to get a PostgreSQL connection from the pool, by lane (system or company).',
    labelNames: ['lane'],
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  const feedSyncs = new Counter({
    name: 'cradle_vulndb_feed_syncs_total',
    help: 'Feed synchronisations by this instance, by outcome.',
    labelNames: ['outcome'],
    registers,
  });
  const lastFeedSync = new Gauge({
    name: 'cradle_vulndb_feed_last_sync_timestamp_seconds',
    help: "When this instance last synchronised a feed, by the outcome of that feed's last pass.",
    labelNames: ['feed', 'outcome'],
    registers,
  });
  const queueDepth = new Gauge({ name: 'cradle_queue_depth', help: 'Items waiting in each queue, all companies.', labelNames: ['queue'], registers });
  const queueAge = new Gauge({
    name: 'cradle_queue_oldest_age_seconds',
    help: 'Age of the oldest waiting item of each queue (0 when empty).',
    labelNames: ['queue'],
    registers,
  });
  const reports = new Gauge({ name: 'cradle_reports', help: 'Reports filed, all companies, by status.', labelNames: ['status'], registers });
  const feedAge = new Gauge({
    name: 'cradle_vulndb_source_age_seconds',
    help: 'Time since each vulnerability source was last imported.',
    labelNames: ['source'],
    registers,
  });
  const article14 = new Gauge({
    name: 'cradle_article14_stages',
    help: 'Unfiled Article 14 stages with a running clock, all companies: open, due_soon (within a day) or overdue.',
    labelNames: ['state'],
    registers,
  });
  // This process's own figures (not the database's): each instance has its own pool.
  new Gauge({
    name: 'cradle_offload_jobs',
    help: "Jobs of this process's offload pool (document parsing, triage similarity): running, or queued for a free worker.",
    labelNames: ['state'],
    registers,
    collect() {
      const s = openOffloadPool()?.stats();
      this.set({ state: 'running' }, s?.running ?? 0);
      this.set({ state: 'queued' }, s?.queued ?? 0);
    },
  });
  new Gauge({
    name: 'cradle_offload_workers',
    help: "Worker threads of this process's offload pool alive now.",
    registers,
    collect() {
      this.set(openOffloadPool()?.stats().workers ?? 0);
    },
  });
  const perCompany = companyLabels ? companySeries(registers) : undefined;
  useTelemetrySink({
    statement: (seconds, ok) => statements.observe({ outcome: ok ? 'ok' : 'error' }, seconds),
    poolWait: (lane, seconds) => poolWait.observe({ lane }, seconds),
    feedSync: (results) => {
      for (const r of results) {
        feedSyncs.inc({ outcome: r.outcome });
        lastFeedSync.remove({ feed: r.feed, outcome: 'failed' });
        lastFeedSync.remove({ feed: r.feed, outcome: 'ok' });
        lastFeedSync.set({ feed: r.feed, outcome: r.outcome === 'failed' ? 'failed' : 'ok' }, Date.now() / 1000);
      }
    },
  });
  return {
    registry,
    contentType: registry.contentType,
    httpRequest(route, method, statusCode, seconds) {
      http.observe({ route: route ?? 'unmatched', method, status_class: `${Math.floor(statusCode / 100)}xx` }, seconds);
    },
    async scrape() {
      const facts = await readScrapeFacts(db);
      for (const [queue, q] of Object.entries(facts.queues)) {
        queueDepth.set({ queue }, q.depth);
        queueAge.set({ queue }, q.oldestAgeSeconds);
      }
      reports.reset();
      for (const r of facts.reports) reports.set({ status: r.status }, r.count);
      feedAge.reset();
      for (const s of facts.vulndbSources) feedAge.set({ source: s.source }, s.ageSeconds);
      for (const [state, n] of Object.entries(facts.article14)) article14.set({ state }, n);
      if (perCompany) await perCompany.update(await readCompanyFacts(db));
      return registry.metrics();
    },
    stop() {
      useTelemetrySink(undefined);
      registry.clear();
    },
  };
}

/** The per-company series: reset at each scrape, so a company whose queue emptied drops out. */
function companySeries(registers: Registry[]) {
  const gauge = <L extends string>(name: string, help: string, labelNames: L[]) => new Gauge<L>({ name, help, labelNames, registers });
  const depth = gauge('cradle_company_queue_depth', 'Items waiting in each queue, by company (slug).', ['company', 'queue']);
  const age = gauge('cradle_company_queue_oldest_age_seconds', "Age of a company's oldest waiting item in each queue.", ['company', 'queue']);
  const reports = gauge('cradle_company_reports', 'Reports filed, by company (slug) and status.', ['company', 'status']);
  return {
    update(facts: CompanyFacts): void {
      depth.reset();
      age.reset();
      reports.reset();
      for (const q of facts.queues) {
        depth.set({ company: q.company, queue: q.queue }, q.depth);
        age.set({ company: q.company, queue: q.queue }, q.oldestAgeSeconds);
      }
      for (const r of facts.reports) reports.set({ company: r.company, status: r.status }, r.count);
    },
  };
}
