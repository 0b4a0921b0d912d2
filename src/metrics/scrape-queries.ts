import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { selectRows } from '../db/sql-rows.js';
import { asSystem } from '../db/tenant-scope.js';
import { article14Statuses } from '../modules/article14/article14-statuses.js';

/** The queues whose depth and oldest waiting item a scrape reads from the database (instance-wide). */
export const QUEUES = ['outbox_events', 'webhook_deliveries', 'mail_messages', 'triage_jobs'] as const;
export type Queue = (typeof QUEUES)[number];

export type ScrapeFacts = {
  queues: Record<Queue, { depth: number; oldestAgeSeconds: number }>;
  reports: { status: string; count: number }[];
  vulndbSources: { source: string; ageSeconds: number; records: number }[];
  article14: Record<'open' | 'due_soon' | 'overdue', number>;
};

type QueueRow = { queue: Queue; depth: number; oldest: number | null };

/** The per-company figures an operator may ask for (METRICS_COMPANY_LABELS): labelled by the company's slug. */
export type CompanyFacts = {
  queues: { company: string; queue: Queue; depth: number; oldestAgeSeconds: number }[];
  reports: { company: string; status: string; count: number }[];
};

/**
 * The same queues and reports per company, as system: only companies with something waiting or
 * filed appear, so an idle instance adds no series.
 */
export function readCompanyFacts(db: Db): Promise<CompanyFacts> {
  return asSystem(async () => {
    const queues = await selectRows<{ company: string; queue: Queue; depth: number; oldest: number | null }>(
      db,
      sql`select c.slug as company, q.queue, q.depth, q.oldest from (
            select company_id, 'outbox_events' as queue, count(*)::int as depth, extract(epoch from now() - min(created_at))::float8 as oldest from outbox_events where dispatched_at is null group by company_id
            union all select company_id, 'webhook_deliveries', count(*)::int, extract(epoch from now() - min(created_at))::float8 from webhook_deliveries where state = 'pending' group by company_id
            union all select company_id, 'mail_messages', count(*)::int, extract(epoch from now() - min(created_at))::float8 from mail_messages where state = 'pending' group by company_id
            union all select company_id, 'triage_jobs', count(*)::int, extract(epoch from now() - min(created_at))::float8 from triage_jobs where state in ('pending', 'running') group by company_id
          ) q join companies c on c.id = q.company_id order by 1, 2`,
    );
    const reports = await selectRows<{ company: string; status: string; count: number }>(
      db,
      sql`select c.slug as company, r.status, count(*)::int as count from reports r join companies c on c.id = r.company_id group by c.slug, r.status order by 1, 2`,
    );
    return {
      queues: queues.map((q) => ({ company: q.company, queue: q.queue, depth: Number(q.depth), oldestAgeSeconds: Math.max(0, Number(q.oldest ?? 0)) })),
      reports: reports.map((r) => ({ ...r, count: Number(r.count) })),
    };
  });
}

/**
 * Read at scrape time, as system: one aggregate per queue over its partial "waiting" index
 * (migration-defined `*_pending_idx`/`*_due_idx`), the report count by status, the feeds' last
 * imports and the Article 14 stages of reports the article applies to. Nothing is kept by hand, so
 * every instance reports the same instance-wide figures (docs/operations.md).
 */
export function readScrapeFacts(db: Db): Promise<ScrapeFacts> {
  return asSystem(async () => {
    const queueRows = await selectRows<QueueRow>(
      db,
      sql`select 'outbox_events' as queue, count(*)::int as depth, extract(epoch from now() - min(created_at))::float8 as oldest from outbox_events where dispatched_at is null
          union all select 'webhook_deliveries', count(*)::int, extract(epoch from now() - min(created_at))::float8 from webhook_deliveries where state = 'pending'
          union all select 'mail_messages', count(*)::int, extract(epoch from now() - min(created_at))::float8 from mail_messages where state = 'pending'
          union all select 'triage_jobs', count(*)::int, extract(epoch from now() - min(created_at))::float8 from triage_jobs where state in ('pending', 'running')`,
    );
    const queues = Object.fromEntries(QUEUES.map((q) => [q, { depth: 0, oldestAgeSeconds: 0 }])) as ScrapeFacts['queues'];
    for (const r of queueRows) queues[r.queue] = { depth: Number(r.depth), oldestAgeSeconds: Math.max(0, Number(r.oldest ?? 0)) };
    const reports = await selectRows<{ status: string; count: number }>(
      db,
      sql`select status, count(*)::int as count from reports group by status order by status`,
    );
    const vulndbSources = await selectRows<{ source: string; ageSeconds: number; records: number }>(
      db,
      sql`select source, extract(epoch from now() - imported_at)::float8 as "ageSeconds", records from vulndb_sources order by source`,
    );
    const article14 = { open: 0, due_soon: 0, overdue: 0 };
    for (const { status } of await article14Statuses(db, undefined, new Date())) {
      for (const stage of status.stages) if (stage.state === 'open' || stage.state === 'due_soon' || stage.state === 'overdue') article14[stage.state]++;
    }
    return { queues, reports: reports.map((r) => ({ ...r, count: Number(r.count) })), vulndbSources, article14 };
  });
}
