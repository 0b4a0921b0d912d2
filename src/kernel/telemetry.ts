// The few places that time work (HTTP requests, database statements, pool checkouts, outgoing
// webhooks and mail) report here. Nothing listens unless the operator turned metrics on
// (METRICS_TOKEN or METRICS_PORT: src/metrics/prometheus.ts installs a sink) or traces
// (OTEL_EXPORTER_OTLP_ENDPOINT: src/metrics/tracing.ts installs a tracer); both are loaded only in
// that case. Without them every hook is a single undefined check, so the default start and memory
// do not change (docs/operations.md).

export type TelemetrySink = {
  /** A database statement finished after `seconds` (`ok` false when it failed). */
  statement(seconds: number, ok: boolean): void;
  /** A connection was handed out `seconds` after it was asked for (PostgreSQL; `lane`: ADR 0009's two pools). */
  poolWait(lane: 'system' | 'company', seconds: number): void;
  /** One pass of the vulnerability feed sync: each feed (its origin and path, no query) and its outcome. */
  feedSync(results: { feed: string; outcome: 'imported' | 'not-modified' | 'failed' }[]): void;
};

/**
 * Attribute values of a span. Only names Cradle chose (operations, tables, route templates, kinds,
 * host names, statuses): never a statement's text or parameters, a report's text, an address or a
 * secret.
 */
export type SpanAttributes = Record<string, string | number | boolean>;

/** The span being run: more attributes once the outcome is known, or a failure that is not a throw. */
export type SpanHandle = { set(attributes: SpanAttributes): void; fail(reason: string): void };

export type Tracer = {
  /**
   * Runs `run` in a client span, a child of the current one, ended with its outcome. With
   * `childOnly`, outside any span `run` runs untraced (a worker's polling is not a trace of its own).
   */
  span<T>(name: string, attributes: SpanAttributes, run: (span: SpanHandle) => Promise<T>, childOnly?: boolean): Promise<T>;
};

let sink: TelemetrySink | undefined;
let tracer: Tracer | undefined;

export function useTelemetrySink(s: TelemetrySink | undefined): void {
  sink = s;
}

export function telemetrySink(): TelemetrySink | undefined {
  return sink;
}

export function useTracer(t: Tracer | undefined): void {
  tracer = t;
}

/** Whether statements are watched at all (metrics or traces): the drivers skip their wrapping otherwise. */
export function statementsObserved(): boolean {
  return sink !== undefined || tracer !== undefined;
}

const NO_SPAN: SpanHandle = { set: () => undefined, fail: () => undefined };

/** Runs `run` in a span when traces are on, as is otherwise. */
export function traced<T>(name: string, attributes: () => SpanAttributes, run: (span: SpanHandle) => Promise<T>): Promise<T> {
  const t = tracer;
  return t ? t.span(name, attributes(), run) : run(NO_SPAN);
}

// The first table a statement writes (`insert into`, `update`, `delete from`; in a `with` too), or
// reads (`from`, not a set-returning function such as `jsonb_to_recordset(`).
const WRITES = /\b(insert\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)\b/i;
const READS = /\bfrom\s+"?([a-z_][a-z0-9_]*)\b"?(?!\s*\()/i;

/**
 * What a span may say about a statement: its operation and main table, as PostgreSQL names them.
 * The text itself stays out (a hand-written statement could carry a literal).
 */
export function statementSummary(sql: string | undefined): { operation: string; table: string | undefined } {
  // Literals out first: a quoted 'from x' names no table.
  const text = (sql ?? '').replace(/'(?:[^']|'')*'/g, "''");
  const first = /^\s*([a-z]+)/i.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
  if (first === 'SELECT' || first === 'WITH' || first === 'INSERT' || first === 'UPDATE' || first === 'DELETE') {
    const write = first === 'SELECT' ? undefined : WRITES.exec(text);
    if (write) return { operation: (write[1] as string).split(/\s/)[0]!.toUpperCase(), table: (write[2] as string).toLowerCase() };
    return { operation: 'SELECT', table: READS.exec(text)?.[1]?.toLowerCase() };
  }
  return { operation: first, table: undefined };
}

function statementSpan<T>(t: Tracer, driver: 'pglite' | 'pg', sql: string | undefined, run: () => Promise<T>): Promise<T> {
  const { operation, table } = statementSummary(sql);
  const attributes: SpanAttributes = { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'cradle.db.driver': driver };
  if (table) attributes['db.collection.name'] = table;
  return t.span(table ? `${operation} ${table}` : operation, attributes, run, true);
}

/**
 * Times one statement (and runs it in a span when traces are on): the promise as is when nothing
 * listens, otherwise the same outcome once its duration is reported.
 */
export function timedStatement<T>(run: () => Promise<T>, driver: 'pglite' | 'pg' = 'pg', sql?: string): Promise<T> {
  const s = sink;
  const t = tracer;
  if (!s && !t) return run();
  const timed = !s
    ? run
    : () => {
        const start = performance.now();
        return run().then(
          (v) => {
            s.statement((performance.now() - start) / 1000, true);
            return v;
          },
          (err: unknown) => {
            s.statement((performance.now() - start) / 1000, false);
            throw err;
          },
        );
      };
  return t ? statementSpan(t, driver, sql, timed) : timed();
}
