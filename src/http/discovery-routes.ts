import type { FastifyInstance } from 'fastify';
import { buildOpenApi } from './openapi.js';

/** Machine-readable descriptions on the site host (spec "Surfaces" 5). */
export async function discoveryRoutes(app: FastifyInstance): Promise<void> {
  // Built once: the operation list is fixed at start, and agents poll this document.
  const openapi = JSON.stringify(buildOpenApi(app.deps.config), null, 2);
  app.get('/openapi.json', async (_req, reply) =>
    reply.header('cache-control', 'public, max-age=300').type('application/json; charset=utf-8').send(openapi),
  );
}
