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
import { startApiBenchApp } from './api-bench-app.js';

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

const mcpRequests = (key: string, host: string): Record<'modern' | 'legacy', Req> => {
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
  const { key, base, host, close } = await startApiBenchApp();
  try {
    const mcp = mcpRequests(key, host);
    // One checked call of each form first, so a broken request cannot pass as a fast one.
    for (const [form, req] of Object.entries(mcp)) {
      const res = await fetch(`${base}/api/mcp`, { method: 'POST', headers: req.headers, body: req.body ?? null });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('Product 9') || text.includes('"isError":true'))
        throw new Error(`${form} MCP call failed: ${res.status} ${text.slice(0, 300)}`);
    }
    const rest = await measure(`${base}/api/v1/products`, { method: 'GET', headers: { authorization: `Bearer ${key}`, host } });
    const modern = await measure(`${base}/api/mcp`, mcp.modern);
    const legacy = await measure(`${base}/api/mcp`, mcp.legacy);
    const store = `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite (in memory)'}, ${process.env.REDIS_URL ? 'Redis' : 'in-memory'} limiter`;
    console.log(`mcp bench: ${CONNECTIONS} connections, ${DURATION_S} s each, ${store}`);
    const line = (label: string, f: Figures) =>
      console.log(
        `  ${label.padEnd(44)} ${f.rps.toFixed(0).padStart(7)} req/s   p99 ${String(f.p99).padStart(4)} ms   errors ${f.errors}   non-2xx ${f.non2xx}`,
      );
    line('GET /api/v1/products (REST, baseline)', rest);
    line('tools/call list_products, 2026-07-28', modern);
    line('tools/call list_products, 2025-era stateless', legacy);
    console.log(
      `  MCP 2026-07-28: ${((modern.rps / rest.rps) * 100).toFixed(1)} % of REST; 2025-era: ${((legacy.rps / rest.rps) * 100).toFixed(1)} % (goal >= 50 %)`,
    );
  } finally {
    await close();
  }
}

await main();
