import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// src/web/assets.ts and dist/web/assets.js sit at the same depth, so this resolves from both.
const dir = new URL('../../src/web/assets/', import.meta.url);

type Asset = { path: string; body: Buffer; etag: string; type: string };

/** A path that carries the content hash, so it can be cached for a year and still never go stale. */
function asset(file: string, type: string): Asset {
  const body = readFileSync(new URL(file, dir));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
  const [stem, ext] = file.split('.');
  return { path: `/assets/${stem}.${etag.slice(1, 9)}.${ext}`, body, etag, type };
}

const css = asset('app.css', 'text/css; charset=utf-8');
const copyScript = asset('copy.js', 'text/javascript; charset=utf-8');

export const STYLESHEET_PATH = css.path;
/** The dashboard's only script (copy button); pages work without it. */
export const COPY_SCRIPT_PATH = copyScript.path;

/** Static assets answer on every zone: the portal's pages load them from their own origin (CSP 'self'). */
export async function assetRoutes(app: FastifyInstance): Promise<void> {
  for (const a of [css, copyScript]) {
    app.get(a.path, (_req, reply) => reply.header('cache-control', 'public, max-age=31536000, immutable').header('etag', a.etag).type(a.type).send(a.body));
  }
}
