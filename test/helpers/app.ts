import type { FastifyInstance } from 'fastify';
import { buildApp, type Deps } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { randomBytes } from 'node:crypto';
import { createMemoryRateLimiter, type RateLimiter } from '../../src/kernel/rate-limit.js';
import { createRedisRateLimiter } from '../../src/kernel/redis-rate-limit.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export type TestApp = { app: FastifyInstance; database: TestDatabase; config: Config; deps: Deps; close(): Promise<void> };

/** The test configuration: the defaults with PUBLIC_URL http://localhost:3000, plus overrides. */
export const testConfig = (env: Record<string, string> = {}): Config =>
  // Suites send hundreds of refused requests from one address; the hold-off has its own test.
  loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'http://localhost:3000', LOG_LEVEL: 'silent', API_UNAUTHENTICATED_LIMIT: '10000000', ...env });

/** Builds the app on a fresh database, without listening; drive it with `app.inject()`. */
export async function createTestApp(env: Record<string, string> = {}, extra: Pick<Deps, 'securityTxtSigner'> = {}): Promise<TestApp> {
  const config = testConfig(env);
  const database = await createTestDatabase();
  const deps: Deps = { config, database, rateLimiter: testRateLimiter(), ...extra };
  const app = await buildApp(deps);
  await app.ready();
  return {
    app,
    database,
    config,
    deps,
    async close() {
      await app.close();
      await deps.rateLimiter.close();
      await database.drop();
    },
  };
}

export type SecondInstance = { app: FastifyInstance; database: Database; close(): Promise<void> };

/**
 * A second app on `a`'s database, as a second instance has: its own connection pool on PostgreSQL;
 * on PGlite, which one process holds, a second app on the one embedded database.
 */
export async function startSecondInstance(a: TestApp): Promise<SecondInstance> {
  const database = a.database.url ? await openDatabase({ databaseUrl: a.database.url, poolSize: 4 }) : a.database;
  // What an instance does at start: on PostgreSQL this also drops to the role row-level security binds.
  await database.migrate();
  const app = await buildApp({ config: a.config, database, rateLimiter: testRateLimiter() });
  await app.ready();
  return {
    app,
    database,
    async close() {
      await app.close();
      await app.deps.rateLimiter.close();
      if (database !== a.database) await database.close();
    },
  };
}

/**
 * The Redis store when REDIS_URL is set (CI's PostgreSQL pass), else memory. Each test app gets its
 * own key prefix, so parallel test files never share counters.
 */
export function testRateLimiter(): RateLimiter {
  const url = process.env.REDIS_URL;
  return url ? createRedisRateLimiter(url, { prefix: `cradle:test:${randomBytes(6).toString('hex')}:` }) : createMemoryRateLimiter();
}

/** Host headers of the site and of a company portal under the test PUBLIC_URL. */
export const SITE = 'localhost:3000';
export const portalHost = (slug: string): string => `${slug}.localhost:3000`;
