import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { CONTENT_SECURITY_POLICY } from './security-headers.js';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerVersion = (JSON.parse(readFileSync(join(swaggerDir, 'package.json'), 'utf8')) as { version: string }).version;
// src/http and dist/http sit at the same depth, so this resolves from both.
const initScript = readFileSync(new URL('../../src/web/assets/api-reference.js', import.meta.url));

/**
 * The page's policy: the site's strict one plus `connect-src 'self'`, so the renderer may fetch
 * `/openapi.json` from its own origin. Still no inline script, no eval, nothing from elsewhere
 * (docs/adr/0007-api-reference-renderer.md).
 */
export const API_REFERENCE_CSP = `${CONTENT_SECURITY_POLICY}; connect-src 'self'`;

const ASSETS = `/docs/api/assets/${swaggerVersion}`;
const FILES: Record<string, { body: Buffer; type: string }> = {
  'swagger-ui-bundle.js': { body: readFileSync(join(swaggerDir, 'swagger-ui-bundle.js')), type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { body: readFileSync(join(swaggerDir, 'swagger-ui.css')), type: 'text/css; charset=utf-8' },
  'api-reference.js': { body: initScript, type: 'text/javascript; charset=utf-8' },
};

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cradle API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
<script src="${ASSETS}/swagger-ui-bundle.js" defer></script>
<script src="${ASSETS}/api-reference.js" defer></script>
</head>
<body>
<noscript><p>This page renders <a href="/openapi.json">/openapi.json</a> with JavaScript; the document itself is readable as is.</p></noscript>
<div id="api-reference"></div>
</body>
</html>
`;

/** `/docs/api`: the API reference, rendered in the browser from `/openapi.json` by Swagger UI served from here. */
export async function apiReferenceRoutes(app: FastifyInstance): Promise<void> {
  app.get('/docs/api', async (_req, reply) =>
    reply.header('content-security-policy', API_REFERENCE_CSP).header('cache-control', 'public, max-age=300').type('text/html; charset=utf-8').send(page),
  );
  for (const [name, f] of Object.entries(FILES)) {
    app.get(`${ASSETS}/${name}`, async (_req, reply) => reply.header('cache-control', 'public, max-age=86400').type(f.type).send(f.body));
  }
}
