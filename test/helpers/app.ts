import type { FastifyInstance } from 'fastify';
import { buildApp, type Deps } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { randomBytes } from 'node:crypto';
import { createMemoryRateLimiter, type RateLimiter } from '../../src/kernel/rate-limit.js';
import { createRedisRateLimiter } from '../../src/kernel/redis-rate-limit.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export type TestApp = { app: FastifyInstance; database: TestDatabase; config: Config; deps: Deps; close(): Promise<void> };

/** The test configuration: the defaults with PUBLIC_URL http://localhost:3000, plus overrides. */
export const testConfig = (env: Record<string, string> = {}): Config =>
  loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'http://localhost:3000', LOG_LEVEL: 'silent', ...env });

/** Builds the app on a fresh database, without listening; drive it with `app.inject()`. */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const config = testConfig(env);
  const database = await createTestDatabase();
  const deps: Deps = { config, database, rateLimiter: testRateLimiter() };
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
