import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openMigratedDataDir } from '../helpers/db.js';
import { startServer } from '../helpers/processes.js';
import { startReceiver } from '../helpers/receiver.js';

// Issue 36: without OTEL_EXPORTER_OTLP_ENDPOINT (and without METRICS_*) the OpenTelemetry SDK and
// prom-client are not even loaded, so the default start and idle memory stay as they were. Each
// start records every module it loaded (test/helpers/module-trace.mjs); the second start, with
// the variables set, shows the check can see them. Both start on a DATA_DIR made from the migrated
// image: a first start that makes the cluster and runs every migration took most of this file's
// minute and more, and loads the same modules (the CLI tests cover that start).

const HOOK = fileURLToPath(new URL('../helpers/module-trace.mjs', import.meta.url));
const SDK = ['@opentelemetry/sdk-trace/', '@opentelemetry/exporter-trace-otlp-http/', '@opentelemetry/context-async-hooks/'];
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cradle-modules-'));
  await (await openMigratedDataDir(join(dir, 'data'))).close();
});
after(() => rm(dir, { recursive: true, force: true }));

async function modulesOfAStart(name: string, env: Record<string, string>): Promise<string[]> {
  const trace = join(dir, `${name}.txt`);
  const server = await startServer({ DATA_DIR: join(dir, 'data'), NODE_OPTIONS: `--import ${HOOK}`, CRADLE_MODULE_TRACE: trace, ...env });
  try {
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  } finally {
    const code = await server.stop();
    assert.equal(code, 0, `exit ${code} signal ${server.child.signalCode}: ${server.output()}`);
  }
  return (await readFile(trace, 'utf8')).split('\n');
}

it('loads neither the OpenTelemetry SDK nor prom-client unless traces or metrics are configured', async () => {
  const plain = await modulesOfAStart('plain', {});
  assert.ok(
    plain.some((u) => u.includes('/node_modules/fastify/')),
    'the trace records the modules of a start',
  );
  for (const pkg of [...SDK, '/prom-client/']) assert.ok(!plain.some((u) => u.includes(pkg)), `${pkg} was loaded without being configured`);

  const rx = await startReceiver();
  try {
    const traced = await modulesOfAStart('traced', { OTEL_EXPORTER_OTLP_ENDPOINT: rx.url(''), METRICS_TOKEN: 'metrics-token-0123456789abcdef0123456789' });
    for (const pkg of [...SDK, '/prom-client/'])
      assert.ok(
        traced.some((u) => u.includes(pkg)),
        `${pkg} was not loaded once configured`,
      );
  } finally {
    await rx.close();
  }
});
