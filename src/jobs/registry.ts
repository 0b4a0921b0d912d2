import { retentionPass } from '../modules/retention/retention-worker.js';
import { startGithubDelivery } from '../modules/cases/github-deliver.js';
import { readBackGithubAdvisories } from '../modules/cases/github-readback.js';
import { remindSilentParticipants } from '../modules/cases/case-reminders.js';
import { purgeDueCompanies } from '../modules/companies/purge-company.js';
import { READ_SARIF_TASK } from '../modules/findings/push-sarif.js';
import { raiseDeadlineAlerts } from '../modules/article14/deadline-alerts.js';
import { raiseResponseAlerts } from '../modules/reports/response-clocks.js';
import { raiseKeyExpiryNotices } from '../modules/keys/key-expiry-notices.js';
import { READ_SBOM_TASK } from '../modules/sboms/push-sbom.js';
import { BUILT_IN_TRIAGE_TASK } from '../modules/triage/run-triage.js';
import { startTriageWorker } from '../modules/triage/triage-worker.js';
import { startSbomMatchWorker } from '../modules/known-vulns/sbom-match-worker.js';
import { startWebhookWorker } from '../modules/webhooks/webhook-worker.js';
import { MCP_ENVELOPE_TASK } from '../mcp/mcp-routes.js';
import { type Job, periodicJob, poolTask, queueJob } from './jobs.js';

const MINUTE = 60_000;
const POOL = {
  concurrency: 'one per company; cores - 1 workers (at least 2, at most 4)',
  budget: "30 s of work (its thread's CPU time), 120 s in all (src/kernel/job-budget.ts)",
};

/**
 * Every background job of Cradle, in one list (docs/architecture.md "Background jobs"): the queue
 * workers, the periodic scans and the offload pool's tasks, each with its schedule, concurrency,
 * budget and owner module. server.ts starts and stops them all (`startJobs`); a new periodic task is
 * one entry here.
 */
export const JOBS: readonly Job[] = [
  queueJob({
    name: 'mail.send',
    owner: 'mail',
    schedule: 'woken when mail is queued; polls every 5 s',
    concurrency: 'up to 200 claimed ahead of the pooled SMTP connections',
    budget: 'MAIL_TIMEOUT_SECONDS per message; leases outlast it',
    async start({ db, config, log, listen }) {
      // E-mail (docs/mail.md), loaded only when configured: the mail library is not needed otherwise.
      if (!config.mail) {
        log.info('SMTP_URL is not set: no e-mail is sent (the dashboard says so)');
        return undefined;
      }
      const [{ startMailWorker }, { mailLeaseMs, smtpTransport }] = await Promise.all([
        import('../modules/mail/mail-worker.js'),
        import('../modules/mail/mail-transport.js'),
      ]);
      const mail = config.mail;
      return startMailWorker(db, { config, mail, transport: smtpTransport(mail.smtpUrl, mail.timeoutMs), leaseMs: mailLeaseMs(mail.timeoutMs), log, listen });
    },
  }),
  queueJob({
    name: 'webhooks.deliver',
    owner: 'webhooks',
    schedule: 'woken when an event is queued or a delivery sent again; polls every 250 ms',
    concurrency: '32 attempts per process, 8 per endpoint and 8 per company across processes',
    budget: 'WEBHOOK_TIMEOUT_SECONDS per attempt; leases of twice that plus 5 s',
    start: ({ db, config, log, listen }) =>
      startWebhookWorker(db, {
        dispatch: { mail: !!config.mail },
        listen,
        allowPrivate: config.webhookAllowPrivateNetworks,
        totalTimeoutMs: config.webhookTimeoutMs,
        // An attempt of a process that died is taken over once its lease ends: longer than any live attempt.
        leaseMs: 2 * config.webhookTimeoutMs + 5_000,
        log,
      }),
  }),
  queueJob({
    name: 'triage.run',
    owner: 'triage',
    schedule: 'woken when a triage job is queued; polls every 1 s',
    concurrency: '8 jobs claimed per pass',
    budget: "the model's timeout; leases of twice that, at least 60 s",
    start: ({ db, config, log, listen }) => startTriageWorker(db, { llm: config.triageLlm, log, listen }),
  }),
  queueJob({
    name: 'known-vulns.match',
    owner: 'known-vulns',
    schedule: 'woken when a push queues an SBOM match (over 1,000 components); polls every 5 s',
    concurrency: '4 matches claimed per pass, run one after another',
    budget: 'leases of 10 minutes; a failed match is tried again with back-off (at most an hour), never dropped',
    start: ({ db, log, listen }) => startSbomMatchWorker(db, { log, listen }),
  }),
  periodicJob({
    name: 'article14.deadline-alerts',
    owner: 'article14',
    schedule: 'every minute',
    everyMs: () => MINUTE,
    concurrency: 'one pass per process; each alert raised once (unique in article14_alerts)',
    budget: 'two queries per pass, set-based',
    run: async ({ db }) => void (await raiseDeadlineAlerts(db)),
  }),
  periodicJob({
    name: 'reports.response-alerts',
    owner: 'reports',
    schedule: 'every minute',
    everyMs: () => MINUTE,
    concurrency: 'one pass per process; each overdue clock raised once (unique in response_alerts)',
    budget: 'two queries per pass, set-based',
    run: async ({ db }) => void (await raiseResponseAlerts(db)),
  }),
  periodicJob({
    name: 'keys.expiry-notices',
    owner: 'keys',
    schedule: 'every minute',
    everyMs: () => MINUTE,
    concurrency: 'one pass per process; each notice raised once',
    budget: 'set-based queries per pass',
    run: async ({ db }) => void (await raiseKeyExpiryNotices(db)),
  }),
  periodicJob({
    name: 'known-vulns.feed-sync',
    owner: 'known-vulns',
    schedule: 'every VULNDB_SYNC_MINUTES, when VULNDB_FEED_URLS is set',
    everyMs: (config) => config.vulndbSync?.intervalMs,
    concurrency: 'one feed at a time per process',
    budget: '30 min and VULNDB_FEED_MAX_BYTES per feed download',
    async run({ db, config, log }) {
      const sync = config.vulndbSync;
      if (!sync) return;
      const { feedSyncPass } = await import('../modules/known-vulns/feed-sync.js');
      await feedSyncPass(db, sync.urls, {
        maxBytes: sync.maxBytes,
        timeoutMs: 30 * MINUTE,
        allowHttp: config.vulndb.allowHttp,
        archiveLimits: config.vulndb.archive,
        log,
      });
    },
  }),
  queueJob({
    name: 'cases.github-deliver',
    owner: 'cases',
    schedule: 'woken when a notice is queued for GitHub; polls every 30 s (retries)',
    concurrency: '8 queued notices claimed per pass under a 2-minute lease (skip locked): never posted twice',
    budget: 'GitHub calls outside any transaction, 15 s each; at most 6 attempts per notice with backoff',
    start: ({ db, config, log, listen }) =>
      startGithubDelivery(db, { apiUrl: config.githubApiUrl, allowPrivate: config.webhookAllowPrivateNetworks, log, listen }),
  }),
  periodicJob({
    name: 'cases.github-read-back',
    owner: 'cases',
    schedule: 'every 15 minutes',
    everyMs: () => 15 * MINUTE,
    concurrency: 'one pass per process; a status moves only from the value read (compare and set)',
    budget: 'one GitHub call per open advisory, outside any transaction',
    run: async ({ db, config, log }) =>
      void (await readBackGithubAdvisories(db, { apiUrl: config.githubApiUrl, allowPrivate: config.webhookAllowPrivateNetworks, log })),
  }),
  periodicJob({
    name: 'cases.reminders',
    owner: 'cases',
    schedule: 'every hour',
    everyMs: () => 60 * MINUTE,
    concurrency: 'one pass per process; each reminder and suggestion marked by compare and set: sent once',
    budget: 'one query for the silent participants (at most 500 a pass), one transaction per reminder',
    run: async ({ db }) => void (await remindSilentParticipants(db)),
  }),
  periodicJob({
    name: 'companies.purge',
    owner: 'companies',
    schedule: 'every 10 minutes',
    everyMs: () => 10 * MINUTE,
    concurrency: 'one pass per process; a company is purged in one transaction',
    budget: 'one transaction per company whose grace period ended (docs/backup.md "Deleting a company")',
    async run({ db, log }) {
      const n = await purgeDueCompanies(db);
      if (n > 0) log.info({ companies: n }, 'purged companies whose deletion was due');
    },
  }),
  periodicJob({
    name: 'retention.daily',
    owner: 'retention',
    schedule: 'every hour; each company once a day',
    everyMs: () => 60 * MINUTE,
    concurrency: "one pass per process; each company's run is one transaction",
    budget: 'set-based statements per rule and company (docs/retention.md "The daily run")',
    run: ({ db, log }) => retentionPass(db, log),
  }),
  poolTask({ name: 'sboms.read', owner: 'sboms', schedule: 'on each SBOM push', task: READ_SBOM_TASK, ...POOL }),
  poolTask({ name: 'findings.read', owner: 'findings', schedule: 'on each SARIF push', task: READ_SARIF_TASK, ...POOL }),
  poolTask({
    name: 'triage.built-in',
    owner: 'triage',
    schedule: 'in each triage job (background: never refused for the queue bound)',
    task: BUILT_IN_TRIAGE_TASK,
    ...POOL,
  }),
  poolTask({ name: 'mcp.envelope', owner: 'mcp', schedule: 'on each MCP request body over the inline JSON limit', task: MCP_ENVELOPE_TASK, ...POOL }),
];
