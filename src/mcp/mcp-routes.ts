import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { createMcpHandler, McpRequestContext } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { siteUrl } from '../config.js';
import { labelAudit } from '../http/api-key-auth.js';
import { JSON_BODY_LIMIT } from '../http/operation-errors.js';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { ownBytes } from '../kernel/worker-bytes.js';
import { holdEvidenceSlot } from '../http/evidence-slot.js';
import { offloadPool } from '../kernel/offload-pool.js';
import { taskRef } from '../kernel/worker-task.js';
import { API_PLAN, HIGHEST_PLAN, planAtLeast, type Plan } from '../kernel/access.js';
import type * as McpEnvelope from './mcp-envelope.js';
import type { EnvelopeInput } from './mcp-envelope.js';
import type { McpServerRequest } from './mcp-server.js';
import { type McpCall, type OffloadedDocument, toolDefinitions } from './tools.js';

export const MCP_PATH = '/api/mcp';

type McpHandler = ReturnType<typeof createMcpHandler>;

/** Reading a large MCP request's envelope on the offload pool (listed in src/jobs/registry.ts). */
export const MCP_ENVELOPE_TASK = taskRef<typeof McpEnvelope>()(import.meta.url, 'mcp-envelope', 'readEnvelopeTask');

const lowestPlan = (plans: readonly Plan[]): Plan => plans.reduce((low, p) => (planAtLeast(low, p) ? p : low), HIGHEST_PLAN);

/** Request headers the MCP handler reads; the key and cookies stay behind. */
const FORWARDED = /^(accept|content-type|mcp-.*|last-event-id)$/i;

type RpcBody = { method?: unknown; params?: { name?: unknown; uri?: unknown } };

/** What the request's audit row names until a tool call relabels it: the JSON-RPC method(s). */
function rpcLabel(body: unknown): Record<string, unknown> {
  const msgs = (Array.isArray(body) ? body : [body]) as RpcBody[];
  const methods = msgs
    .map((m) => (typeof m?.method === 'string' ? m.method : 'response'))
    .join(',')
    .slice(0, 200);
  const uri = msgs.length === 1 && typeof msgs[0]?.params?.uri === 'string' ? { uri: msgs[0].params.uri.slice(0, 200) } : {};
  return { method: methods, ...uri };
}

/**
 * MCP spec (Streamable HTTP, "Security Warning"): servers must validate Origin against DNS
 * rebinding. Clients that are not browsers send none; a browser page of another origin is refused.
 */
function assertOrigin(req: FastifyRequest, own: string): void {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== own)
    throw new AppError(ErrorCode.FORBIDDEN, `requests from the browser origin ${origin.slice(0, 200)} are not accepted; only ${own}`);
}

/**
 * `subscriptions/listen` streams stay open: at most this many per key in each instance, each closed
 * after MCP_STREAM_LIFETIME_SECONDS (the client listens again), so no key can hold connections
 * without bound (issue 24).
 */
export const MCP_STREAMS_PER_KEY = 4;
/**
 * And at most this many per company in each instance, whatever the number of its keys (issue 32,
 * finding 7: 26 keys of one company held 104 streams).
 */
export const MCP_STREAMS_PER_COMPANY = 16;

async function sendResponse(reply: FastifyReply, res: Response, stream?: { lifetimeMs: number; onClose(): void }): Promise<unknown> {
  reply.code(res.status);
  res.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value);
  });
  if (!res.body) {
    stream?.onClose();
    return reply.send();
  }
  // A subscription stream stays open until its lifetime ends or the client goes; every other
  // answer is complete once its result is written, and is read whole so that the tool's outcome is
  // known before the audit row is written.
  if (stream) {
    const body = Readable.fromWeb(res.body as NodeReadableStream);
    const timer = setTimeout(() => body.destroy(), stream.lifetimeMs);
    timer.unref();
    reply.raw.once('close', () => {
      clearTimeout(timer);
      body.destroy();
      stream.onClose();
    });
    return reply.send(body);
  }
  return reply.send(await res.text());
}

/**
 * `{site_url}/api/mcp`: Streamable HTTP through the SDK v2 handler, serving 2026-07-28 clients
 * (no session, MCP-Protocol-Version on every POST, server/discover) and 2025-era clients
 * (initialize handshake, served statelessly). Registered inside the key-authenticated plugin, so
 * the key, plan, allowlist, limit and audit run before this handler; a refused key is an HTTP
 * 401/403 problem, never a tool result.
 */
export async function mcpRoutes(app: FastifyInstance): Promise<void> {
  const defs = toolDefinitions();
  // Open subscription streams, counted under `key:<id>` and `company:<id>`.
  const streams = new Map<string, number>();
  const open = (k: string): number => streams.get(k) ?? 0;
  const add = (k: string, d: number): void => {
    const n = open(k) + d;
    if (n <= 0) streams.delete(k);
    else streams.set(k, n);
  };
  const own = siteUrl(app.deps.config);
  // The SDK (about 5 MiB of an idle server's heap) and the MCP server are loaded by the first MCP
  // request, which waits for them once (ADR 0027).
  let handler: Promise<McpHandler> | undefined;
  const mcpHandler = (): Promise<McpHandler> =>
    (handler ??= Promise.all([import('@modelcontextprotocol/server'), import('./mcp-server.js')]).then(([{ createMcpHandler }, { mcpServerFactory }]) => {
      const serverFor = mcpServerFactory(defs);
      return createMcpHandler(
        (ctx: McpRequestContext) => serverFor(ctx.authInfo?.extra?.server as McpServerRequest),
        // Default response mode: one JSON body, as no tool emits progress before its result.
        { onerror: (err) => app.log.debug({ err }, 'MCP request refused by the protocol layer') },
      );
    }));
  app.addHook('onClose', async () => (await handler)?.close());
  // A body the size other JSON routes accept is parsed as everywhere (Fastify's parser). A larger one
  // (push_sbom, push_sarif) is parsed on a worker in the company's turn, and the document argument
  // comes back as bytes for the operation's own read, so the event loop never parses nor re-serialises
  // it (issue 24; figures: docs/performance.md "MCP document pushes").
  const inlineJson = app.getDefaultJsonParser('error', 'error');
  const documentArgs = Object.fromEntries(defs.filter((d) => d.op.rawBody && d.op.mcpBodyName).map((d) => [d.name, d.op.mcpBodyName as string]));
  const offloaded = new WeakMap<FastifyRequest, OffloadedDocument>();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length <= JSON_BODY_LIMIT || !req.apiKey) return inlineJson(req, bytes.toString('utf8'), done);
    const input: EnvelopeInput = { body: ownBytes(bytes), token: `cradle-document:${randomUUID()}`, documentArgs };
    offloadPool()
      .run(req.apiKey.companyId, MCP_ENVELOPE_TASK, input, [input.body.buffer as ArrayBuffer])
      .then(({ message, document }) => {
        if (document) offloaded.set(req, { token: input.token, bytes: Buffer.from(document.buffer, document.byteOffset, document.byteLength) });
        done(null, message);
      }, done);
  });
  // The shared auth step waits for the body when a request has no Authorization header (a key may
  // hide in a JSON field); this route refuses at once rather than read up to its large body limit.
  app.addHook('onRequest', async (req) => {
    if (req.missingKeyDeferred) throw new AppError(ErrorCode.UNAUTHENTICATED, 'send an API key in the Authorization header: "Authorization: Bearer <key>"');
  });
  // A body that may carry a document (larger than other JSON bodies, or of unknown length) takes the
  // company's evidence slot before it is read, as the REST pushes do (docs/evidence.md "Limits").
  app.addHook('preParsing', async (req, reply, payload) => {
    const length = Number(req.headers['content-length'] ?? Number.NaN);
    const small = req.headers['transfer-encoding'] === undefined && length <= JSON_BODY_LIMIT;
    if (req.apiKey && req.method === 'POST' && !small) holdEvidenceSlot(req, reply, req.apiKey.companyId, app.deps.config.evidenceMaxBytes);
    return payload;
  });

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: MCP_PATH,
    // The door opens from the lowest plan any tool needs; each server then offers only the tools
    // the key's plan allows (mcp-server.ts), so REST and MCP answer a plan alike.
    config: { minPlan: lowestPlan(defs.map((d) => d.op.minPlan ?? API_PLAN)) },
    // push_sbom and push_sarif carry whole documents as arguments: the evidence size limit, not
    // the 1 MiB of other JSON routes (the key is checked before the body is read).
    bodyLimit: app.deps.config.evidenceMaxBytes,
    handler: async (req, reply) => {
      const key = req.apiKey;
      if (!key) throw new AppError(ErrorCode.UNAUTHENTICATED, 'not authenticated');
      assertOrigin(req, own);
      labelAudit(req, 'mcp.request', rpcLabel(req.body));
      // One JSON-RPC message per HTTP request. A batch would spend one unit of the key's limit and
      // write one audit row for any number of calls (issue 24); MCP 2025-06-18 removed batching, and
      // the SDK clients never send one.
      if (Array.isArray(req.body)) {
        labelAudit(req, 'mcp.request', { method: 'batch', refused: 'JSON-RPC batch', size: req.body.length });
        return reply
          .code(400)
          .type('application/json')
          .send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'JSON-RPC batches are not accepted: send one message per HTTP request' } });
      }
      const rpc = req.body as RpcBody | undefined;
      const listen = rpc?.method === 'subscriptions/listen';
      if (listen) {
        const full =
          open(`key:${key.id}`) >= MCP_STREAMS_PER_KEY
            ? `${MCP_STREAMS_PER_KEY} subscription streams per API key`
            : open(`company:${key.companyId}`) >= MCP_STREAMS_PER_COMPANY
              ? `${MCP_STREAMS_PER_COMPANY} subscription streams per company (all its keys together)`
              : undefined;
        if (full) {
          const id = (req.body as { id?: unknown }).id ?? null;
          return reply
            .code(429)
            .type('application/json')
            .send({ jsonrpc: '2.0', id, error: { code: -32000, message: `at most ${full} are open at once; close one first` } });
        }
        // Counted before the handler runs, so parallel requests cannot all pass the check.
        add(`key:${key.id}`, 1);
        add(`company:${key.companyId}`, 1);
      }
      let closed = false;
      const release = () => {
        if (!listen || closed) return;
        closed = true;
        add(`key:${key.id}`, -1);
        add(`company:${key.companyId}`, -1);
      };
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (FORWARDED.test(name) && value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const document = offloaded.get(req);
      const call: McpCall = { app, req, key, ...(document ? { document } : {}) };
      const server: McpServerRequest = { call, calledTool: rpc?.method === 'tools/call' && typeof rpc.params?.name === 'string' ? rpc.params.name : undefined };
      const res = await mcpHandler()
        .then((h) =>
          h.fetch(new Request(`${own}${MCP_PATH}`, { method: req.method, headers }), {
            // The key itself never travels further: the handler sees its id, scopes and expiry.
            authInfo: { token: key.id, clientId: key.id, scopes: key.scopes, expiresAt: Math.floor(key.expiresAt.getTime() / 1000), extra: { server } },
            ...(req.method === 'POST' ? { parsedBody: req.body } : {}),
          }),
        )
        .catch((err: unknown) => {
          release();
          throw err;
        });
      return listen ? sendResponse(reply, res, { lifetimeMs: app.deps.config.mcpStreamLifetimeMs, onClose: release }) : sendResponse(reply, res);
    },
  });
}
