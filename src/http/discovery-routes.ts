import type { FastifyInstance } from 'fastify';
import { loadSkills, skillsIndex } from './agent-skills.js';
import { apiReferenceRoutes } from './api-reference.js';
import { API_CATALOG_LINK, API_CATALOG_PATH, API_CATALOG_TYPE, apiCatalog } from './api-catalog.js';
import { llmsTxt, loadDocs } from './llms-txt.js';
import { buildOpenApi } from './openapi.js';

const CACHE = 'public, max-age=300';
const MARKDOWN = 'text/markdown; charset=utf-8';

/**
 * Machine-readable descriptions on the site host (docs/api.md "Machine-readable
 * descriptions"). Every document is built once, at start, or for the OpenAPI document at its first
 * request: their inputs are fixed at start, and agents poll them. GET routes answer HEAD too (Fastify exposes HEAD for every GET). There is deliberately no
 * `/.well-known/oauth-*` document: keys are pre-shared, and docs/api.md has those answer 404.
 */
export async function discoveryRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.deps;
  // The largest document (about 1 MB): built from the operations' schemas on its first request, not
  // at start, and kept as UTF-8 bytes, half its size as a JavaScript string (ADR 0020).
  let openapi: Buffer | undefined;
  app.get('/openapi.json', async (_req, reply) => {
    openapi ??= Buffer.from(JSON.stringify(buildOpenApi(config), null, 2));
    return reply.header('cache-control', CACHE).type('application/json; charset=utf-8').send(openapi);
  });

  const catalog = Buffer.from(JSON.stringify(apiCatalog(config), null, 2));
  app.get(API_CATALOG_PATH, async (_req, reply) => reply.header('cache-control', CACHE).header('link', API_CATALOG_LINK).type(API_CATALOG_TYPE).send(catalog));

  const skills = loadSkills(config);
  const index = JSON.stringify(skillsIndex(config, skills), null, 2);
  app.get('/.well-known/agent-skills/index.json', async (_req, reply) =>
    reply.header('cache-control', CACHE).type('application/json; charset=utf-8').send(index),
  );
  for (const s of skills) app.get(s.path, async (_req, reply) => reply.header('cache-control', CACHE).type(MARKDOWN).send(s.body));

  const llms = llmsTxt(config, skills);
  app.get('/llms.txt', async (_req, reply) => reply.header('cache-control', CACHE).type(MARKDOWN).send(llms));
  await app.register(apiReferenceRoutes);
  for (const [name, body] of loadDocs()) app.get(`/docs/${name}.md`, async (_req, reply) => reply.header('cache-control', CACHE).type(MARKDOWN).send(body));
}
