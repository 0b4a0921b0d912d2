/**
 * `npm run chaos` (issue 11 "Crash and fault durability"). On each database, for CHAOS_ROUNDS rounds
 * (default 10): a real server process takes portal-form, bulk and REST filings from concurrent
 * clients and is killed with SIGKILL at a random moment; it is started again on the same data. Then:
 * every acknowledged report must be stored, every `ok` bulk item too, and every acknowledged
 * report's webhook must arrive (signed, verified). On PostgreSQL the database itself is then stopped
 * under load: answers must be 503 problems, never an acknowledgement without a stored row, and the
 * service must recover by itself when the database returns (the recovery time is reported).
 *
 * PostgreSQL runs as a private throwaway cluster (initdb as the `postgres` user on a free port), so
 * stopping it harms nothing else; without that possibility the PostgreSQL half is skipped.
 *
 *   npm run chaos                       CHAOS_ROUNDS=20 npm run chaos
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { openDatabase } from '../src/db/client.js';
import { operatorContext } from '../src/kernel/context.js';
import { upsertProduct } from '../src/modules/products/upsert-product.js';
import { registerWebhook } from '../src/modules/webhooks/webhook-endpoints.js';
import { makeKey, makeTenant } from '../test/helpers/access.js';
import { freshAddress } from '../test/helpers/intake.js';
import { freePort, startServer, type ServerProcess } from '../test/helpers/processes.js';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 10);
// Each pass chooses its own database (a data directory, or a private PostgreSQL server): a URL
// inherited from the shell would reach the servers this script starts and silently turn the PGlite
// pass into a PostgreSQL one (it did: every request then answered 401 or 404 and nothing was filed).
delete process.env.DATABASE_URL;
delete process.env.REDIS_URL;
const PG_BIN = '/usr/lib/postgresql/15/bin';

type Answer = { status: number; body: string };
/** node:http rather than fetch: the portal needs its own Host header. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.setTimeout(10_000, () => req.destroy());
    req.end(body);
  });
}

type Tally = { acknowledged: Set<string>; bulkOk: number; requests: number; statuses: Map<number, number> };
const newTally = (): Tally => ({ acknowledged: new Set(), bulkOk: 0, requests: 0, statuses: new Map() });

/** Three kinds of clients filing until `stop()`; every acknowledged submissionId is collected. */
function load(port: number, slug: string, key: string, tally: Tally) {
  let running = true;
  const note = (a: Answer) => {
    tally.requests++;
    tally.statuses.set(a.status, (tally.statuses.get(a.status) ?? 0) + 1);
  };
  const site = `localhost:${port}`;
  const form = async () => {
    while (running) {
      const a = await send(
        port,
        'POST',
        '/submit',
        { host: `${slug}.${site}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', 'x-forwarded-for': freshAddress() },
        new URLSearchParams({
          description: 'Chaos form report: the update server accepts unsigned images.',
          vulnerabilityType: 'insecure_update',
          website: '',
        }).toString(),
      );
      note(a);
      const id = a.status === 200 ? /id="submission-id">([0-9a-f-]{36})</.exec(a.body)?.[1] : undefined;
      if (id) tally.acknowledged.add(id);
    }
  };
  const bulk = async () => {
    while (running) {
      const submissions = Array.from({ length: 5 }, (_, i) => ({
        slug,
        description: `Chaos bulk item ${i}: default credentials on the service port.`,
        vulnerabilityType: 'hardcoded_credentials',
      }));
      const a = await send(
        port,
        'POST',
        '/api/portal/batch',
        { host: site, 'content-type': 'application/json', 'x-forwarded-for': freshAddress() },
        JSON.stringify({ submissions }),
      );
      note(a);
      if (a.status === 200) {
        for (const r of (JSON.parse(a.body) as { results: { ok: boolean; submissionId?: string }[] }).results) {
          if (r.ok && r.submissionId) {
            tally.acknowledged.add(r.submissionId);
            tally.bulkOk++;
          }
        }
      }
    }
  };
  const rest = async () => {
    while (running) {
      const a = await send(
        port,
        'POST',
        '/api/v1/vulnerabilities',
        { host: site, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        JSON.stringify({ description: 'Chaos API report: path traversal in the log download.', vulnerabilityType: 'access_control' }),
      );
      note(a);
      if (a.status === 201) tally.acknowledged.add((JSON.parse(a.body) as { submissionId: string }).submissionId);
    }
  };
  const clients = [form(), form(), bulk(), rest(), rest(), rest()];
  return {
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

async function startReceiver(secret: () => string) {
  const delivered = new Map<string, number>();
  let bad = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const payload = new Webhook(secret()).verify(body, req.headers as Record<string, string>) as { data: { submissionId?: string } };
        const id = payload.data.submissionId;
        if (id) delivered.set(id, (delivered.get(id) ?? 0) + 1);
      } catch {
        bad++;
      }
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    delivered,
    bad: () => bad,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A private PostgreSQL 15 cluster on a free port, or undefined when this machine cannot make one. */
async function privatePostgres(): Promise<{ url: string; stop(): void; start(): void; destroy(): void } | undefined> {
  const can = spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', `${PG_BIN}/initdb --version`]);
  if (can.status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'cradle-chaos-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  const asPg = (cmd: string) => execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', cmd], { stdio: 'ignore' });
  asPg(`${PG_BIN}/initdb -D ${data} -A trust -U postgres`);
  const start = () => asPg(`${PG_BIN}/pg_ctl -D ${data} -l ${dir}/log -w -o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=on" start`);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: () => asPg(`${PG_BIN}/pg_ctl -D ${data} -m fast -w stop`),
    destroy: () => {
      try {
        asPg(`${PG_BIN}/pg_ctl -D ${data} -m immediate -w stop`);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Result = {
  database: string;
  rounds: number;
  answers: Record<string, number>;
  acknowledged: number;
  stored: number;
  lost: number;
  bulkOk: number;
  webhooksMissing: number;
  duplicateDeliveries: number;
  badSignatures: number;
  requests: number;
  outage?: { answers: Record<string, number>; acknowledgedDuringOutage: number; lostDuringOutage: number; recoveryMs: number };
};

async function chaos(kind: 'pglite' | 'postgres'): Promise<Result | undefined> {
  const pgServer = kind === 'postgres' ? await privatePostgres() : undefined;
  if (kind === 'postgres' && !pgServer) {
    console.log('postgres: skipped (cannot create a private cluster here: needs root and the postgres user)');
    return undefined;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'cradle-chaos-'));
  let secret = '';
  const receiver = await startReceiver(() => secret);
  const seed = await openDatabase(pgServer ? { databaseUrl: pgServer.url } : { dataDir });
  await seed.migrate();
  const tenant = await makeTenant(seed.db);
  const key = (await makeKey(seed.db, tenant)).key;
  await upsertProduct(seed.db, operatorContext(), tenant.company.id, { name: 'Chaos Gateway', identifier: 'chaos-gw' });
  secret = (await registerWebhook(seed.db, operatorContext(), tenant.company.id, { url: receiver.url }, { allowPrivate: true })).secret ?? '';
  await seed.close();

  const port = await freePort();
  const env = {
    ...(pgServer ? { DATABASE_URL: pgServer.url } : { DATA_DIR: dataDir }),
    PUBLIC_URL: `http://localhost:${port}`,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_SECONDS: '2',
    API_RATE_LIMIT: '10000000',
    TRUST_PROXY: '127.0.0.1',
  };
  const tally = newTally();
  let server: ServerProcess | undefined;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      server = await startServer(env, { port, production: true, inheritDatabase: true });
      const l = load(port, tenant.company.slug, key, tally);
      await sleep(1000 + Math.random() * 3000);
      server.child.kill('SIGKILL');
      await once(server.child, 'exit').catch(() => undefined);
      await l.stop();
      process.stdout.write(`${kind}: round ${round}/${ROUNDS}, ${tally.acknowledged.size} acknowledged so far\n`);
    }
    server = await startServer(env, { port, production: true, inheritDatabase: true });
    const check = async (ids: Iterable<string>) => {
      let stored = 0;
      let lost = 0;
      for (const id of ids) {
        const a = await send(port, 'GET', `/api/v1/vulnerabilities/${id}`, { host: `localhost:${port}`, authorization: `Bearer ${key}` }, '');
        if (a.status === 200) stored++;
        else lost++;
      }
      return { stored, lost };
    };
    const { stored, lost } = await check(tally.acknowledged);
    // Every acknowledged report's event arrives (leases of killed attempts expire after 9 s).
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && [...tally.acknowledged].some((id) => !receiver.delivered.has(id))) await sleep(250);
    const webhooksMissing = [...tally.acknowledged].filter((id) => !receiver.delivered.has(id)).length;
    const duplicateDeliveries = [...receiver.delivered.values()].filter((n) => n > 1).length;
    const result: Result = {
      database: kind,
      rounds: ROUNDS,
      answers: Object.fromEntries([...tally.statuses].map(([st, n]) => [String(st), n])),
      acknowledged: tally.acknowledged.size,
      stored,
      lost,
      bulkOk: tally.bulkOk,
      webhooksMissing,
      duplicateDeliveries,
      badSignatures: receiver.bad(),
      requests: tally.requests,
    };

    if (pgServer) {
      // The database goes away under load, then comes back.
      const outage = newTally();
      const l = load(port, tenant.company.slug, key, outage);
      await sleep(1000);
      pgServer.stop();
      const ackBefore = outage.acknowledged.size;
      const statusesBefore = new Map(outage.statuses);
      await sleep(3000);
      const during = new Map([...outage.statuses].map(([s, n]) => [s, n - (statusesBefore.get(s) ?? 0)]));
      const ackDuring = new Set([...outage.acknowledged].slice(ackBefore));
      const restarted = performance.now();
      pgServer.start();
      let recoveryMs = NaN;
      for (;;) {
        const a = await send(
          port,
          'POST',
          '/api/v1/vulnerabilities',
          { host: `localhost:${port}`, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          JSON.stringify({ description: 'Recovery probe after the database came back.' }),
        );
        if (a.status === 201) {
          recoveryMs = performance.now() - restarted;
          break;
        }
        if (performance.now() - restarted > 60_000) break;
        await sleep(50);
      }
      await l.stop();
      if (Number.isNaN(recoveryMs)) {
        // Say why: a server that died shows its exit code and last words.
        console.log(`${kind}: no recovery; server exit code ${String(server.child.exitCode)}; its last output:\n${server.output().slice(-3000)}`);
      }
      const { lost: lostOutage } = await check(outage.acknowledged);
      result.outage = {
        answers: Object.fromEntries([...during].filter(([, n]) => n > 0).map(([s, n]) => [String(s), n])),
        acknowledgedDuringOutage: ackDuring.size,
        lostDuringOutage: lostOutage,
        recoveryMs,
      };
    }
    return result;
  } finally {
    await server?.stop();
    await receiver.close();
    pgServer?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results: Result[] = [];
for (const kind of ['pglite', 'postgres'] as const) {
  const r = await chaos(kind);
  if (r) results.push(r);
}
console.log('\nchaos results');
let failed = false;
for (const r of results) {
  console.log(
    `  ${r.database}: ${r.rounds} SIGKILL rounds, ${r.requests} requests (answers ${JSON.stringify(r.answers)}, 0 = cut off by the kill); acknowledged ${r.acknowledged} (bulk ok items ${r.bulkOk}), stored ${r.stored}, lost ${r.lost}; webhooks missing ${r.webhooksMissing}, delivered more than once ${r.duplicateDeliveries}, bad signatures ${r.badSignatures}`,
  );
  // A pass that acknowledged nothing has proved nothing.
  if (r.acknowledged === 0 || r.lost > 0 || r.webhooksMissing > 0 || r.badSignatures > 0) failed = true;
  if (r.outage) {
    const o = r.outage;
    console.log(
      `  ${r.database} outage: answers while the database was down ${JSON.stringify(o.answers)}; acknowledged during the outage ${o.acknowledgedDuringOutage}, of which lost ${o.lostDuringOutage}; recovered ${Number.isNaN(o.recoveryMs) ? 'NOT within 60 s' : `${(o.recoveryMs / 1000).toFixed(2)} s`} after the database was started again`,
    );
    const wrong = Object.keys(o.answers).filter((s) => !['0', '503', '200', '201'].includes(s));
    if (o.lostDuringOutage > 0 || Number.isNaN(o.recoveryMs) || wrong.length > 0) failed = true;
  }
}
process.exit(failed ? 1 : 0);
