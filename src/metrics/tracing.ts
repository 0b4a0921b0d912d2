import { context, type Context, defaultTextMapGetter, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../config.js';
import { type SpanAttributes, type SpanHandle, useTracer } from '../kernel/telemetry.js';

// Loaded (dynamic import) only when the operator sets an OTLP endpoint (docs/operations.md), so an
// instance without traces never loads the OpenTelemetry SDK. Spans are made by hand at the few
// places that matter (HTTP server, database statements, webhook and mail sends) rather than by
// patching modules: their attributes are names Cradle chose, never a request's path or body, a
// statement's text, an address or a secret.

export type Tracing = {
  /** Starts the server span of a request: a child of the caller's `traceparent` when it sent one. */
  startRequest(method: string, headers: IncomingHttpHeaders): { span: Span; context: Context };
  /** Runs `fn` (the rest of the request) with `ctx` current. */
  within(ctx: Context, fn: () => void): void;
  /** Names the request's span after its route template and ends it with its status. */
  endRequest(span: Span, method: string, route: string | undefined, status: number | undefined): void;
  /** Sends what is buffered and stops. */
  stop(): Promise<void>;
};

const propagator = new W3CTraceContextPropagator();
const NO_SPAN: SpanHandle = { set: () => undefined, fail: () => undefined };

export function startTracing(config: NonNullable<Config['tracing']>, version: string, onExportError: (message: string) => void): Tracing {
  const exporter = new OTLPTraceExporter({ url: config.url });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.exportDelayMs })],
  });
  // Spans follow the code that runs for a request across awaits, as the tenant scope does (ADR 0015).
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const tracer = provider.getTracer('cradle', version);

  const span = <T>(name: string, attributes: SpanAttributes, run: (s: SpanHandle) => Promise<T>, childOnly = false): Promise<T> => {
    if (childOnly && !trace.getSpan(context.active())) return run(NO_SPAN);
    const s = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, context.active());
    const handle: SpanHandle = {
      set: (a) => s.setAttributes(a),
      fail: (reason) => s.setStatus({ code: SpanStatusCode.ERROR, message: reason }),
    };
    return context
      .with(trace.setSpan(context.active(), s), () => run(handle))
      .then(
        (v) => {
          s.end();
          return v;
        },
        (err: unknown) => {
          // The error's class, not its message: a driver's message can quote the value it refused.
          s.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
          const code = (err as { code?: unknown }).code;
          if (typeof code === 'string') s.setAttribute('error.type', code);
          s.end();
          throw err;
        },
      );
  };
  useTracer({ span });

  // The exporter reports a failed export through the SDK's error handler: one line, no payload.
  setGlobalErrorHandler((e) => onExportError(e instanceof Error ? e.message : String(e)));

  return {
    startRequest(method, headers) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const s = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
      return { span: s, context: trace.setSpan(parent, s) };
    },
    within: (ctx, fn) => context.with(ctx, fn),
    endRequest(s, method, route, status) {
      if (route) {
        s.updateName(`${method} ${route}`);
        s.setAttribute('http.route', route);
      }
      if (status === undefined) s.setStatus({ code: SpanStatusCode.ERROR, message: 'aborted by the client' });
      else {
        s.setAttribute('http.response.status_code', status);
        if (status >= 500) s.setStatus({ code: SpanStatusCode.ERROR });
      }
      s.end();
    },
    async stop() {
      useTracer(undefined);
      await provider.shutdown().catch((err: unknown) => onExportError(err instanceof Error ? err.message : String(err)));
      contextManager.disable();
      context.disable();
    },
  };
}
