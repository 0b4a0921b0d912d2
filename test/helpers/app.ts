import type { FastifyInstance } from 'fastify';
import { buildApp, type Deps } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createMemoryRateLimiter } from '../../src/kernel/rate-limit.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export type TestApp = { app: FastifyInstance; database: TestDatabase; config: Config; deps: Deps; close(): Promise<void> };

/** The test configuration: the defaults with PUBLIC_URL http://localhost:3000, plus overrides. */
export const testConfig = (env: Record<string, string> = {}): Config =>
  loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'http://localhost:3000', LOG_LEVEL: 'silent', ...env });

/** Builds the app on a fresh database, without listening; drive it with `app.inject()`. */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const config = testConfig(env);
  const database = await createTestDatabase();
  const deps: Deps = { config, database, rateLimiter: createMemoryRateLimiter() };
  const app = await buildApp(deps);
  await app.ready();
  return {
    app,
    database,
    config,
    deps,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

/** Host headers of the site and of a company portal under the test PUBLIC_URL. */
export const SITE = 'localhost:3000';
export const portalHost = (slug: string): string => `${slug}.localhost:3000`;
