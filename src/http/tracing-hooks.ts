import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { methodLabel } from './metrics-routes.js';

type TracingConfig = NonNullable<Config['tracing']>;

async function packageVersion(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * OpenTelemetry traces (docs/operations.md), installed by buildApp only when an OTLP endpoint is
 * set, and before every other hook: the rest of each request (its tenant scope, authentication,
 * handler and statements) runs inside its server span. The span is named by the method and the
 * route template; the path itself is never recorded (a portal's report links carry tokens).
 */
export async function installTracing(app: FastifyInstance, config: TracingConfig): Promise<void> {
  const { startTracing } = await import('../metrics/tracing.js');
  const tracing = startTracing(config, await packageVersion(), (message) => app.log.warn({ error: message }, 'trace export failed'));
  const spans = new WeakMap<object, ReturnType<typeof tracing.startRequest>['span']>();
  app.addHook('onRequest', (req, _reply, done) => {
    const { span, context } = tracing.startRequest(methodLabel(req.method), req.headers);
    spans.set(req, span);
    tracing.within(context, done);
  });
  const end = (req: { method: string; routeOptions: { url?: string | undefined } }, status: number | undefined) => {
    const span = spans.get(req);
    if (!span) return;
    spans.delete(req);
    tracing.endRequest(span, methodLabel(req.method), req.routeOptions.url, status);
  };
  app.addHook('onResponse', (req, reply, done) => {
    end(req, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    end(req, undefined);
    done();
  });
  app.addHook('onClose', () => tracing.stop());
}
