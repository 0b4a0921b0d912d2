import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from './app.js';
import { freePort } from './processes.js';

export type ListeningApp = TestApp & { url: string; mcpUrl: URL };

/** The app on a fresh database, listening on an ephemeral loopback port that is also its PUBLIC_URL. */
export async function startListeningApp(env: Record<string, string> = {}): Promise<ListeningApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ PUBLIC_URL: url, ...env });
  await t.app.listen({ host: '127.0.0.1', port });
  return { ...t, url, mcpUrl: new URL('/api/mcp', url) };
}

const CLIENT_INFO = { name: 'cradle-tests', version: '1.0.0' };
const auth = (key: string) => ({ requestInit: { headers: { authorization: `Bearer ${key}` } } });

/** The official v2 client, negotiating the 2026-07-28 revision (server/discover, no initialize). */
export async function connectModern(t: ListeningApp, key: string): Promise<ClientV2> {
  const client = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(t.mcpUrl, auth(key)));
  return client;
}

/** The 1.x SDK client: a 2025-era client (initialize handshake). */
export async function connectLegacy(t: ListeningApp, key: string): Promise<ClientV1> {
  const client = new ClientV1(CLIENT_INFO);
  await client.connect(new TransportV1(t.mcpUrl, auth(key)));
  return client;
}

/** A client of either line: the calls the tests make have the same shape in both. */
export type AnyClient = {
  listTools(): Promise<{
    tools: { name: string; description?: string; inputSchema: unknown; outputSchema?: unknown; annotations?: Record<string, unknown> }[];
  }>;
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
};

export type ToolCallResult = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

export async function callTool(client: AnyClient, name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> {
  return (await client.callTool({ name, arguments: args })) as ToolCallResult;
}
