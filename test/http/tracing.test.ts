import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { sendTestEvent } from '../../src/modules/webhooks/delivery-log.js';
import { registerWebhook } from '../../src/modules/webhooks/webhook-endpoints.js';
import { runDeliveryCycle } from '../../src/modules/webhooks/webhook-worker.js';
import { makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, portalHost, type TestApp } from '../helpers/app.js';
import { freshAddress } from '../helpers/intake.js';
import { startReceiver } from '../helpers/receiver.js';

// Issue 36: OpenTelemetry traces over OTLP/HTTP (JSON) when OTEL_EXPORTER_OTLP_ENDPOINT is set,
// received by a plain HTTP server on loopback that decodes the export as a collector would.

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  status?: { code?: number };
};
type Export = { resourceSpans: { resource: { attributes: { key: string; value: AnyValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };

const SERVER = 2;
const CLIENT = 3;
const REPORT_TEXT = 'tracing-canary-description the admin panel leaks session cookies';
const STEPS = 'tracing-canary-steps open the page';

const attr = (s: OtlpSpan, key: string): string | number | boolean | undefined => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : (v.stringValue ?? (v.intValue === undefined ? v.boolValue : Number(v.intValue)));
};

let rx: Awaited<ReturnType<typeof startReceiver>>;
let t: TestApp;
let acme: Tenant;

before(async () => {
  rx = await startReceiver();
  rx.respond((r) => (r.path === '/v1/traces' ? { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' } : { status: 204 }));
  t = await createTestApp({ OTEL_EXPORTER_OTLP_ENDPOINT: rx.url(''), OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'cradle-test' });
  acme = await makeTenant(t.database.db);
});
after(async () => {
  await t.close();
  await rx.close();
});

const exports = () => rx.seen.filter((r) => r.path === '/v1/traces');
const spans = (): OtlpSpan[] => exports().flatMap((r) => (JSON.parse(r.body) as Export).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));

async function waitForSpan(test: (s: OtlpSpan) => boolean, what: string): Promise<OtlpSpan> {
  for (const deadline = Date.now() + 30_000; ; await sleep(50)) {
    const found = spans().find(test);
    if (found) return found;
    assert.ok(Date.now() < deadline, `no ${what} span exported (${spans().length} spans so far: ${[...new Set(spans().map((s) => s.name))].join(', ')})`);
  }
}

describe('traces over OTLP/HTTP', () => {
  it('exports a filed report as a trace with its HTTP server span and the database statements under it, without its text', async () => {
    const hook = await registerWebhook(t.database.db, operatorContext(), acme.company.id, { url: rx.url('/hook') }, { allowPrivate: true });
    const res = await t.app.inject({
      method: 'POST',
      url: '/submit',
      headers: { host: portalHost(acme.company.slug), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: new URLSearchParams({
        description: REPORT_TEXT,
        stepsToReproduce: STEPS,
        impact: 'impact',
        reporterEmail: 'canary-reporter@example.org',
      }).toString(),
      remoteAddress: freshAddress(),
    });
    assert.equal(res.statusCode, 200, res.body);

    const server = await waitForSpan((s) => s.kind === SERVER && attr(s, 'http.route') === '/submit', 'HTTP server');
    assert.equal(server.name, 'POST /submit');
    assert.equal(attr(server, 'http.request.method'), 'POST');
    assert.equal(attr(server, 'http.response.status_code'), 200);
    assert.equal(server.parentSpanId || undefined, undefined, 'a request without traceparent starts its own trace');

    // The statements that stored the report, in the request's trace, each a child of a span of it.
    const insert = await waitForSpan(
      (s) => s.traceId === server.traceId && attr(s, 'db.operation.name') === 'INSERT' && attr(s, 'db.collection.name') === 'reports',
      'INSERT reports',
    );
    assert.equal(insert.kind, CLIENT);
    assert.equal(insert.name, 'INSERT reports');
    assert.equal(attr(insert, 'db.system.name'), 'postgresql');
    assert.equal(attr(insert, 'cradle.db.driver'), t.database.url ? 'pg' : 'pglite');
    const inTrace = spans().filter((s) => s.traceId === server.traceId);
    const ids = new Set(inTrace.map((s) => s.spanId));
    for (const s of inTrace) if (s.spanId !== server.spanId) assert.ok(s.parentSpanId && ids.has(s.parentSpanId), `${s.name} hangs off a span of the trace`);
    assert.ok(inTrace.filter((s) => attr(s, 'db.system.name') === 'postgresql').length >= 2, 'several statements traced');
    const resource = (JSON.parse(exports()[0]!.body) as Export).resourceSpans[0]!.resource.attributes;
    assert.deepEqual(resource.find((a) => a.key === 'service.name')?.value, { stringValue: 'cradle-test' });

    // An outgoing webhook: its own span, naming the receiver's host and its answer.
    await sendTestEvent(t.database.db, operatorContext(), acme.company.id, hook.id);
    for (const deadline = Date.now() + 20_000; !rx.seen.some((r) => r.path === '/hook'); await sleep(50)) {
      await runDeliveryCycle(t.database.db, { allowPrivate: true });
      assert.ok(Date.now() < deadline, 'the webhook was not delivered');
    }
    const post = await waitForSpan((s) => s.name === 'webhook POST', 'webhook');
    assert.equal(post.kind, CLIENT);
    assert.equal(attr(post, 'server.address'), '127.0.0.1');
    assert.equal(attr(post, 'http.response.status_code'), 204);

    // Nothing a researcher wrote, no address, no path with a token, no secret in any export.
    const all = exports()
      .map((r) => r.body)
      .join('\n');
    for (const secret of [REPORT_TEXT, STEPS, 'canary-reporter@example.org', hook.secret as string, acme.company.slug, '/hook']) {
      assert.ok(!all.includes(secret), `the export carries ${secret}`);
    }
    assert.doesNotMatch(all, /"db\.query\.text"|"url\.(path|full|query)"/);
  });

  it('joins the trace a proxy started (traceparent) and marks a failing request', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await t.app.inject({ url: '/api/v1/products', headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, authorization: 'Bearer nope' } });
    assert.equal(res.statusCode, 401);
    const server = await waitForSpan((s) => s.kind === SERVER && s.traceId === traceId, 'joined server');
    assert.equal(server.parentSpanId, '00f067aa0ba902b7');
    assert.equal(attr(server, 'http.response.status_code'), 401);
  });
});
