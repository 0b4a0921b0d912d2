import { isIP } from 'node:net';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
    error: 'expected true or false',
  })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const isCidrOrIp = (s: string): boolean => {
  const [addr, bits, ...rest] = s.split('/');
  if (rest.length > 0 || addr === undefined) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return Number.isInteger(n) && n >= 0 && n <= (family === 4 ? 32 : 128);
};

/**
 * TRUST_PROXY: unset/false (trust nobody), true (trust every hop; only behind a proxy you control),
 * a hop count, or a comma-separated list of proxy addresses and CIDR ranges.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): boolean | number | string[] => {
    if (v === '' || v === 'false') return false;
    if (v === 'true') return true;
    if (/^\d+$/.test(v)) return Number(v);
    const list = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = list.find((s) => !isCidrOrIp(s) && s !== 'loopback' && s !== 'linklocal' && s !== 'uniquelocal');
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', message: `"${bad}" is not an address, CIDR range, hop count, true or false` });
      return z.NEVER;
    }
    return list;
  });

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('localhost'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
    .default('http://localhost:3000')
    .refine((u) => {
      const p = new URL(u);
      return (p.pathname === '/' || p.pathname === '') && !p.search && !p.hash && !p.username;
    }, 'must be a bare origin such as https://cradle.example.com (no path, query or credentials)'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL')
    .optional(),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(15),
  // GitHub Enterprise Server: https://ghe.example.com/api/v3 (docs/upstream.md "Settings").
  GITHUB_API_URL: z
    .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
    .default('https://api.github.com')
    .refine((u) => {
      const p = new URL(u);
      return !p.search && !p.hash && !p.username && !p.password;
    }, 'must be a URL without query, fragment or credentials, such as https://ghe.example.com/api/v3'),
  TRUST_PROXY: trustProxy.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  // Days between `cradle company delete` and the purge, in which `--undo` cancels it (docs/backup.md).
  COMPANY_DELETION_GRACE_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  // 100 per 60 s per key (docs/access.md "Rate limit"). Raising it is for load benchmarks only.
  API_RATE_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(100),
  API_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  // An MCP subscriptions/listen stream is closed after this; the client listens again (issue 24).
  MCP_STREAM_LIFETIME_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1800),
  // Requests to /api/* refused for want of a known key, per client address per minute (issue 24).
  API_UNAUTHENTICATED_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(120),
  // Optional OpenAI-compatible triage (docs/workflow.md); unset = the built-in, offline triage only.
  TRIAGE_LLM_URL: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).optional(),
  TRIAGE_LLM_MODEL: z.string().min(1).max(200).optional(),
  TRIAGE_LLM_API_KEY: z.string().min(1).optional(),
  TRIAGE_LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(20_000),
  // Largest SBOM or SARIF push (docs/evidence.md "Limits"); every other API body stays at 1 MiB.
  EVIDENCE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(50 * 1024 * 1024),
  // Evidence documents being received or read at once, all companies together (docs/evidence.md "Limits").
  EVIDENCE_INFLIGHT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024 * 1024)
    .default(128 * 1024 * 1024),
  // Outgoing e-mail (docs/mail.md); unset = nothing is sent and the dashboard says so.
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, 'expected an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example:587')
    .optional(),
  // A mailbox as SMTP takes it (RFC 5321 4.1.2): a local part and a host name, one label allowed
  // (cradle@localhost for a local mail sink). Named by what is wrong, not by what it already is.
  MAIL_FROM: z
    .string()
    .max(254)
    .regex(/^[^\s@<>()",;:]+@/, { error: 'expected an address alone, such as cradle@example.com: no display name, quotes or angle brackets' })
    .regex(/@(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*$/, {
      error: 'the part after @ must be a host name, such as example.com or localhost',
    })
    .optional(),
  MAIL_MAX_PER_RECIPIENT_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(20),
  // Longest silence of the SMTP server within one attempt; a crashed sender's mail is taken over after its lease.
  MAIL_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(30),
  // Vulnerability feeds the server synchronises (docs/known-vulnerabilities.md); unset = operator imports only.
  VULNDB_FEED_URLS: z
    .string()
    .transform((s) => s.split(/[\s,]+/).filter(Boolean))
    .pipe(z.array(z.url({ protocol: /^https?$/, error: 'expected http:// or https:// URLs separated by commas or spaces' })).max(50))
    .optional(),
  VULNDB_SYNC_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  // Feeds are fetched over https:// only, unless the operator allows plain http:// (a mirror on a trusted network, tests).
  VULNDB_ALLOW_HTTP: bool.default(false),
  // The live feeds `cradle vulndb sync` fetches (docs/known-vulnerabilities.md); set to a mirror's to use one.
  VULNDB_OSV_URL: z.url({ protocol: /^https?$/ }).default('https://osv-vulnerabilities.storage.googleapis.com/'),
  VULNDB_KEV_URL: z.url({ protocol: /^https?$/ }).default('https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json'),
  VULNDB_EPSS_URL: z.url({ protocol: /^https?$/ }).default('https://epss.empiricalsecurity.com/epss_scores-current.csv.gz'),
  // Bounds of one OSV archive (docs/threat-model.md, feed archives): records' total size, expansion ratio, time.
  VULNDB_ARCHIVE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .max(64 * 1024 ** 3)
    .default(4 * 1024 ** 3),
  VULNDB_ARCHIVE_MAX_RATIO: z.coerce.number().int().min(2).max(10_000).default(100),
  VULNDB_ARCHIVE_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1800),
  // Operator keys sealing stored secrets (ADR 0016): base64 of 32 bytes, the first seals, the rest open.
  SECRETS_KEY: z.string().optional(),
  SECRETS_KEY_FILE: z.string().min(1).optional(),
  VULNDB_FEED_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024 * 1024)
    .default(2 * 1024 * 1024 * 1024),
  // The OpenPGP key that signs every portal's security.txt (docs/intake.md); read and checked at start.
  SECURITY_TXT_SIGNING_KEY_FILE: z.string().min(1).optional(),
  SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE: z.string().min(1).optional(),
  // Prometheus metrics (docs/operations.md): off unless a token or a listen port of their own is set.
  METRICS_TOKEN: z.string().min(32, 'at least 32 characters (openssl rand -hex 32)').max(512).optional(),
  METRICS_HOST: z.string().min(1).optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  METRICS_COMPANY_LABELS: bool.default(false),
  // OpenTelemetry traces (docs/operations.md): off unless an OTLP/HTTP endpoint is set. The names
  // are OpenTelemetry's own, so a collector's usual environment works unchanged.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL (the collector, without /v1/traces)' }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL (used as is)' }).optional(),
  OTEL_SDK_DISABLED: bool.default(false),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default('cradle'),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(10).max(600_000).default(5000),
});

export type Config = {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  publicUrl: URL;
  /** Lower-case host name of PUBLIC_URL, without port: portals live at `{slug}.{siteHost}`. */
  siteHost: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  webhookAllowPrivateNetworks: boolean;
  /** Whole-attempt limit of one webhook delivery (connect, send, read the capped response). */
  webhookTimeoutMs: number;
  /** GitHub's REST API root (no trailing slash): api.github.com, or a GitHub Enterprise Server's `/api/v3`. */
  githubApiUrl: string;
  trustProxy: boolean | number | string[];
  logLevel: string;
  databasePoolSize: number;
  shutdownTimeoutMs: number;
  /** Days a company's deletion stays pending (suspended, undoable) before the purge. */
  companyDeletionGraceDays: number;
  /** Per-key request limit across REST and MCP: `limit` requests in any `windowMs`. */
  apiRateLimit: { limit: number; windowMs: number };
  /** How long an MCP subscription stream stays open before it is closed. */
  mcpStreamLifetimeMs: number;
  /** Refused (no known key) `/api/*` requests per client address per minute before it is held off. */
  apiUnauthenticatedLimit: number;
  /** The OpenAI-compatible chat-completions endpoint for AI triage, when both URL and model are set. */
  triageLlm: { url: string; model: string; apiKey: string | undefined; timeoutMs: number } | undefined;
  /** Largest accepted SBOM or SARIF document, in bytes (`POST /sboms`, `POST /sarif`). */
  evidenceMaxBytes: number;
  /** Bytes of evidence documents in flight in this instance before the next is refused with 429. */
  evidenceInflightMaxBytes: number;
  /** Outgoing e-mail, when SMTP_URL and MAIL_FROM are set. */
  mail: { smtpUrl: string; from: string; maxPerRecipientPerHour: number; timeoutMs: number } | undefined;
  /** Feed URLs the server synchronises on a schedule, when VULNDB_FEED_URLS is set. */
  vulndbSync: { urls: string[]; intervalMs: number; maxBytes: number } | undefined;
  /** How feeds are fetched and read, by the server and by `cradle vulndb sync|import`. */
  vulndb: VulndbSettings;
  /** Operator keys for sealed secrets: the key text itself or a file holding it (one at most). */
  secretsKey: { text: string } | { file: string } | undefined;
  /** Files of the key that signs security.txt, when SECURITY_TXT_SIGNING_KEY_FILE is set (loaded by server.ts). */
  securityTxtSigning: { keyFile: string; passphraseFile: string | undefined } | undefined;
  /** `/metrics`, when METRICS_TOKEN or METRICS_PORT is set: behind the token, on its own address, or both. */
  metrics: { token: string | undefined; listen: { host: string; port: number } | undefined; companyLabels: boolean } | undefined;
  /** Traces over OTLP/HTTP (JSON), when OTEL_EXPORTER_OTLP_ENDPOINT or _TRACES_ENDPOINT is set: where, as what, how often. */
  tracing: { url: string; serviceName: string; exportDelayMs: number } | undefined;
};

export type VulndbSettings = {
  /** Plain http:// feed URLs are allowed (VULNDB_ALLOW_HTTP); otherwise only https://. */
  allowHttp: boolean;
  maxBytes: number;
  live: { osvBase: string; kev: string; epss: string };
  archive: { maxTotalBytes: number; maxRatio: number; maxMs: number };
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once. Empty strings count as unset so `FOO=` in a .env file is harmless. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  const e = parsed.data;
  if (!!e.TRIAGE_LLM_URL !== !!e.TRIAGE_LLM_MODEL) {
    throw new ConfigError('invalid configuration: TRIAGE_LLM_URL and TRIAGE_LLM_MODEL are set together or not at all');
  }
  if (!!e.SMTP_URL !== !!e.MAIL_FROM) {
    throw new ConfigError('invalid configuration: SMTP_URL and MAIL_FROM are set together or not at all');
  }
  if (e.METRICS_COMPANY_LABELS && !e.METRICS_TOKEN && !e.METRICS_PORT) {
    throw new ConfigError('invalid configuration: METRICS_COMPANY_LABELS needs metrics on (METRICS_TOKEN or METRICS_PORT)');
  }
  if (e.METRICS_HOST && !e.METRICS_PORT) {
    throw new ConfigError('invalid configuration: METRICS_HOST needs METRICS_PORT (the address metrics listen on)');
  }
  if (e.SECRETS_KEY && e.SECRETS_KEY_FILE) {
    throw new ConfigError('invalid configuration: set SECRETS_KEY or SECRETS_KEY_FILE, not both');
  }
  if (e.SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE && !e.SECURITY_TXT_SIGNING_KEY_FILE) {
    throw new ConfigError('invalid configuration: SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE is set without SECURITY_TXT_SIGNING_KEY_FILE');
  }
  const feedUrls = [...(e.VULNDB_FEED_URLS ?? []), e.VULNDB_OSV_URL, e.VULNDB_KEV_URL, e.VULNDB_EPSS_URL];
  const plain = feedUrls.find((u) => new URL(u).protocol !== 'https:');
  if (plain && !e.VULNDB_ALLOW_HTTP) {
    throw new ConfigError(`invalid configuration: the feed URL ${new URL(plain).host} is not https:// (set VULNDB_ALLOW_HTTP=true to allow plain http://)`);
  }
  const publicUrl = new URL(e.PUBLIC_URL);
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    publicUrl,
    siteHost: publicUrl.hostname.toLowerCase(),
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    webhookAllowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
    githubApiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''),
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    companyDeletionGraceDays: e.COMPANY_DELETION_GRACE_DAYS,
    apiRateLimit: { limit: e.API_RATE_LIMIT, windowMs: e.API_RATE_WINDOW_SECONDS * 1000 },
    apiUnauthenticatedLimit: e.API_UNAUTHENTICATED_LIMIT,
    mcpStreamLifetimeMs: e.MCP_STREAM_LIFETIME_SECONDS * 1000,
    triageLlm:
      e.TRIAGE_LLM_URL && e.TRIAGE_LLM_MODEL
        ? { url: e.TRIAGE_LLM_URL, model: e.TRIAGE_LLM_MODEL, apiKey: e.TRIAGE_LLM_API_KEY, timeoutMs: e.TRIAGE_LLM_TIMEOUT_MS }
        : undefined,
    evidenceMaxBytes: e.EVIDENCE_MAX_BYTES,
    evidenceInflightMaxBytes: e.EVIDENCE_INFLIGHT_MAX_BYTES,
    mail:
      e.SMTP_URL && e.MAIL_FROM
        ? { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, maxPerRecipientPerHour: e.MAIL_MAX_PER_RECIPIENT_PER_HOUR, timeoutMs: e.MAIL_TIMEOUT_SECONDS * 1000 }
        : undefined,
    metrics:
      e.METRICS_TOKEN || e.METRICS_PORT
        ? {
            token: e.METRICS_TOKEN,
            listen: e.METRICS_PORT ? { host: e.METRICS_HOST ?? 'localhost', port: e.METRICS_PORT } : undefined,
            companyLabels: e.METRICS_COMPANY_LABELS,
          }
        : undefined,
    tracing: tracingConfig(e),
    vulndbSync: e.VULNDB_FEED_URLS?.length
      ? { urls: e.VULNDB_FEED_URLS, intervalMs: e.VULNDB_SYNC_MINUTES * 60_000, maxBytes: e.VULNDB_FEED_MAX_BYTES }
      : undefined,
    vulndb: {
      allowHttp: e.VULNDB_ALLOW_HTTP,
      maxBytes: e.VULNDB_FEED_MAX_BYTES,
      live: { osvBase: e.VULNDB_OSV_URL, kev: e.VULNDB_KEV_URL, epss: e.VULNDB_EPSS_URL },
      archive: { maxTotalBytes: e.VULNDB_ARCHIVE_MAX_BYTES, maxRatio: e.VULNDB_ARCHIVE_MAX_RATIO, maxMs: e.VULNDB_ARCHIVE_MAX_SECONDS * 1000 },
    },
    secretsKey: e.SECRETS_KEY ? { text: e.SECRETS_KEY } : e.SECRETS_KEY_FILE ? { file: e.SECRETS_KEY_FILE } : undefined,
    securityTxtSigning: e.SECURITY_TXT_SIGNING_KEY_FILE
      ? { keyFile: e.SECURITY_TXT_SIGNING_KEY_FILE, passphraseFile: e.SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE }
      : undefined,
  };
}

/** OTLP's rule: the signal's own endpoint as is, else the general one with `/v1/traces` appended. */
function tracingConfig(e: z.infer<typeof EnvSchema>): Config['tracing'] {
  if (e.OTEL_SDK_DISABLED) return undefined;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  return url ? { url, serviceName: e.OTEL_SERVICE_NAME, exportDelayMs: e.OTEL_BSP_SCHEDULE_DELAY } : undefined;
}

/** The public origin without a trailing slash, e.g. `http://localhost:3000`. */
export const siteUrl = (c: Config): string => c.publicUrl.origin;

/** `{portal_url}`: same scheme and port as the site, host `{slug}.{site host}`. */
export function portalUrl(c: Config, slug: string): string {
  const u = new URL(c.publicUrl.origin);
  u.hostname = `${slug}.${c.siteHost}`;
  return u.origin;
}

/**
 * True when PUBLIC_URL is unset and the server listens on another port than the default PUBLIC_URL
 * names (3000, README "Configuration"): links printed at start and mailed would miss this server,
 * so start warns.
 */
export function defaultUrlMissesPort(config: Config, env: Record<string, string | undefined>): boolean {
  return env.PUBLIC_URL === undefined && config.port !== 0 && String(config.port) !== (config.publicUrl.port || '80');
}
