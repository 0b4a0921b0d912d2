import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Listen } from '../db/notifications.js';
import type { TaskRef } from '../kernel/worker-task.js';

/** What a job is started with: the process's database, configuration, log and wake-ups. */
export type JobEnv = { db: Db; config: Config; log: Logger; listen: Listen };

/** A started job: `stop` lets what it runs finish (in-flight work records, leases are not left held). */
export type Running = { stop(): Promise<void> };

type Described = {
  /** `owner.what`: the owner is the module whose code the job runs. */
  name: string;
  owner: string;
  /** When it runs, in words (docs/architecture.md "Background jobs" shows it). */
  schedule: string;
  /** How much of it runs at once. */
  concurrency: string;
  /** What bounds one run. */
  budget: string;
};

/**
 * A scan that runs on its own poll loop: at start, then `everyMs` after each pass ends (off while it
 * gives undefined). A failing pass is logged and retried at the next tick. Several instances may run
 * it against one PostgreSQL: what it raises is unique in the database.
 */
export type PeriodicJob = Described & { kind: 'periodic'; everyMs(config: Config): number | undefined; run(env: JobEnv): Promise<void> };

/**
 * A queue worker: it claims work that writers queue in the database, with leases, woken by its
 * channel at the writer's commit (migration 0020) and polling as the safety net. Off while `start`
 * gives undefined.
 */
export type QueueJob = Described & { kind: 'queue'; start(env: JobEnv): Running | undefined | Promise<Running | undefined> };

/** A task run on the offload pool (src/kernel/offload-pool.ts) by the verb that needs it; listed here so the list is whole. */
export type PoolTask = Described & { kind: 'pool-task'; task: TaskRef<never, unknown> };

export type Job = PeriodicJob | QueueJob | PoolTask;

export const periodicJob = (j: Omit<PeriodicJob, 'kind'>): PeriodicJob => ({ kind: 'periodic', ...j });
export const queueJob = (j: Omit<QueueJob, 'kind'>): QueueJob => ({ kind: 'queue', ...j });
export const poolTask = <I, O>(j: Omit<PoolTask, 'kind' | 'task'> & { task: TaskRef<I, O> }): PoolTask => ({ kind: 'pool-task', ...j }) as PoolTask;
