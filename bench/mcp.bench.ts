/**
 * `tools/call list_products` over HTTP against `GET /api/v1/products`, in the same run, on the same
 * app, with the same key, 50 connections (issue #10 "Measure": MCP should keep at least half of
 * the REST throughput). Both paths pay for the whole authenticated path (key lookup, plan and
 * allowlist checks, limiter, group-committed audit row); MCP adds JSON-RPC framing and a server
 * instance per request (stateless). Two MCP forms are measured: a 2026-07-28 request (no session,
 * MCP-Protocol-Version header and the per-request `_meta` envelope) and a 2025-era stateless POST.
 *
 *   npm run bench mcp                      # PGlite in memory, in-memory limiter
 *   DATABASE_URL=postgres://... npm run bench mcp
 */
import autocannon from 'autocannon';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { operatorContext } from '../src/kernel/context.js';
import { createMemoryRateLimiter } from '../src/kernel/rate-limit.js';
import { createCompany } from '../src/modules/companies/create-company.js';
import { createKey } from '../src/modules/keys/create-key.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { createAdmin } from '../src/modules/users/create-admin.js';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);

type Figures = { rps: number; p99: number; errors: number; non2xx: number };
type Req = { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };

async function measure(url: string, req: Req): Promise<Figures> {
  const opts = { url, ...req, connections: CONNECTIONS };
  await autocannon({ ...opts, duration: 2 });
  const r = await autocannon({ ...opts, duration: DURATION_S });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

export const mcpRequests = (key: string, host: string): Record<'modern' | 'legacy', Req> => {
  const common = { authorization: `Bearer ${key}`, host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  return {
    modern: {
      method: 'POST',
      headers: { ...common, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_products' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_products', arguments: {}, _meta: META } }),
    },
    legacy: {
      method: 'POST',
      headers: { ...common, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_products', arguments: {} } }),
    },
  };
};

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://127.0.0.1:3000', API_RATE_LIMIT: '10000000', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
  const database = await openDatabase({ databaseUrl, poolSize: 20 });
  await database.migrate();
  const db = database.db;
  const slug = `bench-${Date.now().toString(36)}`;
  const company = await createCompany(db, operatorContext(), { slug, name: 'Bench GmbH', plan: 'enterprise' });
  const admin = await createAdmin(db, operatorContext(), slug, { email: `${slug}@example.test`, password: 'bench password 1' });
  for (let i = 0; i < 10; i++) await upsertProduct(db, operatorContext(), company.id, { name: `Product ${i}`, identifier: `p-${i}` });
  const { key } = await createKey(db, { actor: { type: 'user', id: admin.id } }, company.id, { name: 'bench', scopes: ['read'] });
  const rateLimiter = createMemoryRateLimiter();
  const app = await buildApp({ config, database, rateLimiter });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const host = '127.0.0.1:3000';
  try {
    const mcp = mcpRequests(key, host);
    // One checked call of each form first, so a broken request cannot pass as a fast one.
    for (const [form, req] of Object.entries(mcp)) {
      const res = await fetch(`${base}/api/mcp`, { method: 'POST', headers: req.headers, body: req.body ?? null });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('Product 9') || text.includes('"isError":true')) throw new Error(`${form} MCP call failed: ${res.status} ${text.slice(0, 300)}`);
    }
    const rest = await measure(`${base}/api/v1/products`, { method: 'GET', headers: { authorization: `Bearer ${key}`, host } });
    const modern = await measure(`${base}/api/mcp`, mcp.modern);
    const legacy = await measure(`${base}/api/mcp`, mcp.legacy);
    const store = databaseUrl ? 'PostgreSQL' : 'PGlite (in memory)';
    console.log(`mcp bench: ${CONNECTIONS} connections, ${DURATION_S} s each, ${store}, in-memory limiter`);
    const line = (label: string, f: Figures) =>
      console.log(`  ${label.padEnd(44)} ${f.rps.toFixed(0).padStart(7)} req/s   p99 ${String(f.p99).padStart(4)} ms   errors ${f.errors}   non-2xx ${f.non2xx}`);
    line('GET /api/v1/products (REST, baseline)', rest);
    line('tools/call list_products, 2026-07-28', modern);
    line('tools/call list_products, 2025-era stateless', legacy);
    console.log(`  MCP 2026-07-28: ${((modern.rps / rest.rps) * 100).toFixed(1)} % of REST; 2025-era: ${((legacy.rps / rest.rps) * 100).toFixed(1)} % (goal >= 50 %)`);
  } finally {
    await app.close();
    await rateLimiter.close();
    await database.close();
  }
}

await main();
