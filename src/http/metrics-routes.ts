import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { safeEqual, sha256Hex } from '../kernel/ids.js';

type MetricsConfig = NonNullable<Config['metrics']>;

// A method outside this list (Node accepts a few dozen) is counted as `other`: label values stay a fixed set.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The request's method as a metric label or span attribute: one of a fixed set, else `other`. */
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : 'other');

/** Whether the request carries the metrics token; digests first, so the comparison time says nothing about its length. */
function hasToken(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
  return safeEqual(sha256Hex(given), sha256Hex(token));
}

/**
 * Prometheus metrics (docs/operations.md), installed by buildApp only when configured: prom-client
 * is imported here, so an instance without metrics never loads it. On the application's own port
 * `/metrics` answers only with `Authorization: Bearer <METRICS_TOKEN>` (401, a problem document
 * that names nothing, otherwise); with METRICS_PORT it is served on that address instead, where the
 * token is asked too when one is set.
 */
export async function installMetrics(app: FastifyInstance, db: Db, config: MetricsConfig): Promise<void> {
  const { startPrometheusMetrics } = await import('../metrics/prometheus.js');
  const metrics = startPrometheusMetrics(db, config.companyLabels);
  app.addHook('onResponse', (req, reply, done) => {
    metrics.httpRequest(req.routeOptions.url, methodLabel(req.method), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  let server: Server | undefined;
  if (config.listen) {
    const { host, port } = config.listen;
    server = createServer((req, res) => {
      const refuse = (status: number, text: string) =>
        res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(text);
      if ((req.url ?? '').split('?')[0] !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return refuse(404, 'not found\n');
      if (config.token && !hasToken(req.headers.authorization, config.token)) return refuse(401, 'authentication required\n');
      metrics.scrape().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }).end(text),
        (err: unknown) => {
          app.log.error({ err }, 'metrics scrape failed');
          refuse(503, 'metrics unavailable\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject).listen(port, host, () => resolve());
    });
    app.log.info({ host, port }, 'metrics listen on their own address');
  } else {
    app.get('/metrics', { logLevel: 'warn' }, async (req: FastifyRequest, reply: FastifyReply) => {
      req.bearerRoute = true;
      if (!hasToken(req.headers.authorization, config.token as string)) throw new AppError(ErrorCode.UNAUTHENTICATED, 'authentication required');
      const text = await metrics.scrape();
      return reply.header('cache-control', 'no-store').type(metrics.contentType).send(text);
    });
  }
  app.addHook('onClose', async () => {
    metrics.stop();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}
