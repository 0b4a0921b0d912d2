import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Database } from '../src/db/client.js';
import { openBenchDatabase } from './lib.js';
import { operatorContext } from '../src/kernel/context.js';
import { createMemoryRateLimiter } from '../src/kernel/rate-limit.js';
import { createRedisRateLimiter } from '../src/kernel/redis-rate-limit.js';
import type { Company } from '../src/modules/companies/companies.schemas.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { createKey } from '../src/modules/keys/create-key.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { createAdmin } from '../src/modules/users/create-admin.js';

export type ApiBenchApp = { app: FastifyInstance; database: Database; company: Company; key: string; base: string; host: string; close(): Promise<void> };

/**
 * The app listening on a loopback port with one Enterprise company, ten products and a `read` key,
 * on a fresh database (bench/lib.ts openBenchDatabase), with the in-memory limiter or REDIS_URL's. The per-key limit
 * is raised for the run only; every request still takes the whole authenticated path.
 */
export async function startApiBenchApp(): Promise<ApiBenchApp> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://127.0.0.1:3000', API_RATE_LIMIT: '10000000' });
  const { database, dispose } = await openBenchDatabase(process.env.DATABASE_URL ? 'postgres' : 'pglite', 20);
  const db = database.db;
  const slug = `bench-${Date.now().toString(36)}`;
  const company = await createCompany(db, operatorContext(), { slug, name: 'Bench GmbH', plan: 'enterprise' });
  const admin = await createAdmin(db, operatorContext(), slug, { email: `${slug}@example.test`, password: 'quartz lantern ripples over 19 dunes' });
  for (let i = 0; i < 10; i++) await upsertProduct(db, operatorContext(), company.id, { name: `Product ${i}`, identifier: `p-${i}` });
  const { key } = await createKey(db, { actor: { type: 'user', id: admin.id } }, company.id, { name: 'bench', scopes: ['read'] });
  const rateLimiter = process.env.REDIS_URL ? createRedisRateLimiter(process.env.REDIS_URL, { prefix: `cradle:bench:${slug}:` }) : createMemoryRateLimiter();
  const app = await buildApp({ config, database, rateLimiter });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  return {
    app,
    database,
    company,
    key,
    base: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    host: '127.0.0.1:3000',
    async close() {
      await app.close();
      await rateLimiter.close();
      await dispose();
    },
  };
}
