import type { Server } from 'node:net';
import { pino } from 'pino';
import { buildApp, type Deps } from './app.js';
import { type Config, ConfigError, defaultUrlMissesPort, loadConfig, siteUrl } from './config.js';
import { openDatabase } from './db/client.js';
import { errorLogSerializer, requestLogSerializer } from './http/log-serializers.js';
import { createMemoryRateLimiter, type RateLimiter } from './kernel/rate-limit.js';
import { useSecretKeys } from './kernel/secret-box.js';
import { loadSecretKeys } from './kernel/secret-keys.js';
import { startMemoryReclaim } from './kernel/memory-reclaim.js';
import { issueSetupToken } from './modules/instance/setup.js';
import { JOBS } from './jobs/registry.js';
import { startJobs } from './jobs/start-jobs.js';
import { sealWebhookSecrets } from './modules/webhooks/webhook-secrets.js';
import { rewrapGithubTokens } from './modules/upstream/upstream-settings.js';
import { claimDataDir } from './operator/claim.js';
import { LockHeldError, type Release } from './operator/instance-lock.js';
import { closeServer, startOperatorServer } from './operator/operator-server.js';
import { loadSecurityTxtSigner, SigningKeyError } from './web/portal/security-txt-signer.js';

const started = performance.now();

function fail(message: string): never {
  process.stderr.write(`cradle: ${message}\n`);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) fail(e.message);
  throw e;
}

// The security.txt signing key is checked before anything else starts: a bad key refuses the start.
const securityTxtSigner = config.securityTxtSigning
  ? await loadSecurityTxtSigner(config.securityTxtSigning).catch((e: unknown) =>
      fail(e instanceof SigningKeyError ? e.message : `cannot load the security.txt signing key: ${(e as Error).message}`),
    )
  : undefined;

// Our request serialiser replaces Fastify's default (pino's own serialisers win over Fastify's).
const log = pino({ level: config.logLevel, base: { service: 'cradle' }, serializers: { req: requestLogSerializer, err: errorLogSerializer } });

let release: Release | undefined;
let operator: Server | undefined;
if (!config.databaseUrl) {
  const claim = await claimDataDir(config.dataDir, {
    onCompromised: (err) => log.error({ err }, 'lost the lock on DATA_DIR; another process may open the database'),
  }).catch((e: unknown) => {
    if (e instanceof LockHeldError) fail(`${e.message} and does not answer; stop it first (or set DATA_DIR to another directory)`);
    throw e;
  });
  if (claim.kind === 'server') {
    fail(`a Cradle server is already running on ${config.dataDir}; stop it first (or set DATA_DIR to another directory)`);
  }
  release = claim.release;
}

// The operator key that seals stored secrets (ADR 0016): configured, or made in DATA_DIR at the
// embedded database's first start; on PostgreSQL without one Cradle does not start.
const secretKeys = await loadSecretKeys({ configured: config.secretsKey, dataDir: config.dataDir, embedded: !config.databaseUrl }).catch((e: unknown) =>
  fail(`operator key: ${(e as Error).message}`),
);
useSecretKeys(secretKeys.ring);
for (const w of secretKeys.warnings) log.warn(`operator key: ${w}`);
if (secretKeys.source.kind === 'file' && secretKeys.source.generated) {
  log.warn({ file: secretKeys.source.path }, 'operator key generated: it seals the webhook secrets; keep it apart from database backups (docs/deployment.md)');
}

const database = await openDatabase({
  dataDir: config.dataDir,
  databaseUrl: config.databaseUrl,
  poolSize: config.databasePoolSize,
  reclaimIdleMemory: true,
  recycle: {
    onRecycle: ({ heldMs, wasmBytesBefore, floorBytes }) =>
      log.info(
        { heldMs: Math.round(heldMs), wasmMiB: Math.round(wasmBytesBefore / 2 ** 20), floorMiB: Math.round(floorBytes / 2 ** 20) },
        'embedded database reopened to give its grown memory back',
      ),
    onError: (e) => log.error({ err: e }, 'embedded database could not be reopened'),
  },
}).catch((e: unknown) => fail(`cannot open the database: ${(e as Error).message}`));
await database.migrate().catch((e: unknown) => fail(`database migration failed: ${(e as Error).message}`));
const sealing = await sealWebhookSecrets(database.db).catch((e: unknown) => fail(`sealing stored secrets failed: ${(e as Error).message}`));
if (sealing.sealed + sealing.rewrapped > 0)
  log.info({ sealed: sealing.sealed, rewrapped: sealing.rewrapped }, 'webhook secrets sealed under the current operator key');
for (const f of sealing.failed)
  log.error(
    { webhookId: f.webhookId, reason: f.reason },
    "a webhook's secret does not open with the configured operator keys: its deliveries fail until the key is configured",
  );
const tokens = await rewrapGithubTokens(database.db).catch((e: unknown) => fail(`re-wrapping GitHub tokens failed: ${(e as Error).message}`));
if (tokens.rewrapped > 0) log.info({ rewrapped: tokens.rewrapped }, 'GitHub tokens re-wrapped under the current operator key');
for (const f of tokens.failed)
  log.error({ companyId: f.companyId, reason: f.reason }, "a company's GitHub token does not open with the configured operator keys");
if (database.rowSecurity() === 'bypassed') {
  log.warn(
    'row-level security: bypassed (the database login is a superuser or BYPASSRLS and cannot create the role cradle_app); only the application separates companies: see docs/deployment.md',
  );
} else if (database.kind === 'postgres') log.info('row-level security: enforced');
if (!config.databaseUrl)
  operator = await startOperatorServer(config.dataDir, database.db, log, {
    vulndb: config.vulndb,
    graceDays: config.companyDeletionGraceDays,
    image: database.image,
  });

// With REDIS_URL the counters live in Redis so that every instance shares one limit per key; while
// Redis cannot answer, each instance falls back to its own in-memory log (docs/access.md). The Redis
// client is loaded only then: an instance without Redis does not keep its code (ADR 0027).
let lastFallbackLog = 0;
const rateLimiter: RateLimiter = config.redisUrl
  ? (await import('./kernel/redis-rate-limit.js')).createRedisRateLimiter(config.redisUrl, {
      onFallback: (err) => {
        if (Date.now() - lastFallbackLog < 10_000) return;
        lastFallbackLog = Date.now();
        log.error({ err: (err as Error).message }, 'Redis rate-limit store unavailable; limiting per instance until it is back');
      },
    })
  : createMemoryRateLimiter();
if (config.trustProxy === true) {
  // The left-most X-Forwarded-For entry is whatever the client wrote: per-address limits (forms,
  // bulk, sign-in, refused API requests) become per-header. A hop count or the proxies' ranges do not.
  log.warn("TRUST_PROXY=true takes the client-supplied left-most X-Forwarded-For address; set the hop count (e.g. 1) or the proxies' addresses instead");
}
if (securityTxtSigner) {
  const { fingerprint, expiresAt } = securityTxtSigner;
  log.info({ fingerprint, expiresAt }, 'security.txt is signed (OpenPGP cleartext signature)');
  if (expiresAt && expiresAt.getTime() - Date.now() < 30 * 86_400_000)
    log.warn({ fingerprint, expiresAt }, 'the security.txt signing key expires within 30 days: extend it, or security.txt goes out unsigned from then on');
}
const deps: Deps = { config, database, rateLimiter, securityTxtSigner };
// A stop signal that arrives while the rest starts (an orchestrator may send one as soon as the
// health probe answers) is held and acted on once the shutdown below can stop everything, instead
// of Node's default of ending the process on the spot.
let earlySignal: string | undefined;
const holdSignal = (signal: string) => (earlySignal ??= signal);
process.on('SIGTERM', holdSignal).on('SIGINT', holdSignal);
const app = await buildApp(deps, log);
try {
  await app.listen({ host: config.host, port: config.port });
} catch (e) {
  fail(`cannot listen on ${config.host}:${config.port}: ${(e as Error).message}`);
}
log.info({ url: siteUrl(config), database: database.kind, startupMs: Math.round(performance.now() - started) }, 'cradle is ready');
if (defaultUrlMissesPort(config, process.env)) {
  log.warn(
    { port: config.port, url: siteUrl(config) },
    `PUBLIC_URL is not set, so links name ${siteUrl(config)} while the server listens on port ${config.port}: set PUBLIC_URL`,
  );
}

// Every background job (src/jobs/registry.ts): queue workers woken from the database at commit, periodic scans.
const jobs = await startJobs({ db: database.db, config, log, listen: database.listen }, JOBS);

// Start-up's garbage and later bursts' grown heap given back whenever the process is idle (ADR 0020).
const reclaim = startMemoryReclaim({
  quiet: () => database.idle(),
  onReclaim: ({ ms, heapBefore, heapAfter }) =>
    log.debug({ ms: Math.round(ms), heapMiB: [heapBefore, heapAfter].map((b) => Math.round(b / 1048576)) }, 'idle memory reclaimed'),
});

const token = await issueSetupToken(database.db);
if (token) {
  // Printed for the operator's eyes on the console, not into the structured log.
  process.stdout.write(`\nCradle has no company yet. Open ${siteUrl(config)}/setup and enter this one-time set-up token:\n\n    ${token}\n\n`);
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    log.warn({ signal }, 'second signal: exiting at once');
    process.exit(1);
  }
  stopping = true;
  deps.shuttingDown = true;
  log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
  const timer = setTimeout(() => {
    log.error('graceful shutdown timed out; exiting');
    process.exit(1);
  }, config.shutdownTimeoutMs);
  timer.unref();
  try {
    reclaim.stop();
    await app.close();
    await jobs.stop();
    if (operator) await closeServer(operator);
    await deps.rateLimiter.close();
    await database.close();
    if (release) await release();
    log.info('stopped');
    process.exit(0);
  } catch (e) {
    log.error({ err: e }, 'error during shutdown');
    process.exit(1);
  }
}
process.off('SIGTERM', holdSignal).off('SIGINT', holdSignal);
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
if (earlySignal) void shutdown(earlySignal);
