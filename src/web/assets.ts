import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// src/web/assets.ts and dist/web/assets.js sit at the same depth, so this resolves from both.
const dir = new URL('../../src/web/assets/', import.meta.url);

const css = readFileSync(new URL('app.css', dir));
const cssEtag = `"${createHash('sha256').update(css).digest('base64url').slice(0, 16)}"`;

/** The stylesheet's path carries its hash, so it can be cached for a year and still never go stale. */
export const STYLESHEET_PATH = `/assets/app.${cssEtag.slice(1, 9)}.css`;

/** Static assets answer on every zone: the portal's pages load them from their own origin (CSP 'self'). */
export async function assetRoutes(app: FastifyInstance): Promise<void> {
  app.get(STYLESHEET_PATH, (_req, reply) =>
    reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', cssEtag)
      .type('text/css; charset=utf-8')
      .send(css),
  );
}
