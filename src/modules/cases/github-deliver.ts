import { and, asc, eq, isNull, lt, lte, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { caseNotices, caseParticipants } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import { type Listen, WAKE_CHANNELS } from '../../db/notifications.js';
import { startPollLoop } from '../../db/poll-loop.js';
import { SecretBoxError } from '../../kernel/secret-box.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { createPrivateReport, GithubApiError, type RepositoryAdvisory } from '../upstream/github-pvr.js';
import { openGithubToken } from '../upstream/upstream-settings.js';
import { logCaseEvent } from './case-store.js';

export type GithubJobOptions = { apiUrl: string; allowPrivate: boolean; timeoutMs?: number; now?: () => Date; log?: { warn(o: object, m: string): void } };

/** Attempts before a notice that keeps meeting transient failures is marked failed. */
export const GITHUB_MAX_ATTEMPTS = 6;
const LEASE_MS = 2 * 60_000;
const BATCH = 8;
/** 30 s, 1, 2, 4, 8 min: the wait after the nth transient failure. */
export const githubBackoffMs = (attempts: number): number => 30_000 * 2 ** Math.max(0, attempts - 1);

type Claimed = typeof caseNotices.$inferSelect & { address: string | null };
type Outcome = { ok: RepositoryAdvisory } | { refused: string } | { transient: string };

/** Claims due queued notices under a lease, in a short transaction of its own (skip locked: instances never share one). */
async function claim(db: Db, now: Date): Promise<Claimed[]> {
  return asSystem(() =>
    db.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(caseNotices)
        .where(and(eq(caseNotices.state, 'queued'), lte(caseNotices.nextAttemptAt, now), or(isNull(caseNotices.leaseUntil), lt(caseNotices.leaseUntil, now))))
        .orderBy(asc(caseNotices.nextAttemptAt))
        .limit(BATCH)
        .for('update', { skipLocked: true });
      const out: Claimed[] = [];
      for (const n of due) {
        await tx
          .update(caseNotices)
          .set({ leaseUntil: new Date(now.getTime() + LEASE_MS) })
          .where(eq(caseNotices.id, n.id));
        const [p] = await tx
          .select({ address: caseParticipants.address })
          .from(caseParticipants)
          .where(and(eq(caseParticipants.companyId, n.companyId), eq(caseParticipants.id, n.participantId)));
        out.push({ ...n, address: p?.address ?? null });
      }
      return out;
    }),
  );
}

/** Posts one notice; no transaction is open while GitHub is asked. The token opens only into the request. */
async function post(db: Db, n: Claimed, o: GithubJobOptions): Promise<Outcome> {
  const [owner, repo] = (n.address ?? '').split('/');
  if (!owner || !repo) return { refused: 'the participant names no GitHub repository (owner/repo)' };
  let token: string | undefined;
  try {
    token = await asSystem(() => openGithubToken(db, n.companyId));
  } catch (e) {
    if (e instanceof SecretBoxError) return { refused: 'the company GitHub token cannot be opened with the configured keys: set it again (Settings, GitHub)' };
    throw e;
  }
  if (!token) return { refused: 'no GitHub token is set for this company: set one (Settings, GitHub) and prepare the notice again' };
  let body: unknown;
  try {
    body = JSON.parse(n.body);
  } catch {
    return { refused: 'the prepared body is not JSON: prepare the notice again' };
  }
  try {
    const advisory = await createPrivateReport({
      apiUrl: o.apiUrl,
      token,
      owner,
      repo,
      allowPrivate: o.allowPrivate,
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      body: body as never,
    });
    return { ok: advisory };
  } catch (e) {
    if (!(e instanceof GithubApiError)) throw e;
    if (e.status === null || e.status >= 500 || e.status === 429) return { transient: e.message };
    return { refused: e.message };
  }
}

/** Records one outcome in a transaction of its own, only while this instance still holds the notice. */
async function settle(db: Db, n: Claimed, outcome: Outcome, now: Date): Promise<void> {
  await asSystem(() =>
    db.transaction(async (tx) => {
      const [held] = await tx
        .select({ state: caseNotices.state })
        .from(caseNotices)
        .where(and(eq(caseNotices.id, n.id), eq(caseNotices.state, 'queued')))
        .for('update');
      if (!held) return;
      const base = { companyId: n.companyId, caseId: n.caseId, participantId: n.participantId, actor: 'system', at: now };
      if ('ok' in outcome) {
        const a = outcome.ok;
        await tx
          .update(caseNotices)
          .set({ state: 'sent', sentAt: now, failure: null, leaseUntil: null, attempts: n.attempts + 1 })
          .where(eq(caseNotices.id, n.id));
        await tx
          .update(caseParticipants)
          .set({ notifiedAt: now, status: a.involvement, advisoryId: a.ghsaId, advisoryUrl: a.htmlUrl, updatedAt: now })
          .where(and(eq(caseParticipants.companyId, n.companyId), eq(caseParticipants.id, n.participantId)));
        await logCaseEvent(tx, { ...base, kind: 'notice_sent', details: { noticeId: n.id, channel: 'github', ghsaId: a.ghsaId, status: a.involvement } });
        await enqueueEvent(
          tx,
          n.companyId,
          'case.notified',
          { caseId: n.caseId, participantId: n.participantId, noticeId: n.id, channel: 'github', ghsaId: a.ghsaId, notifiedAt: now.toISOString() },
          now,
        );
        return;
      }
      const attempts = n.attempts + 1;
      const final = 'refused' in outcome || attempts >= GITHUB_MAX_ATTEMPTS;
      const reason = 'refused' in outcome ? outcome.refused : `${outcome.transient} (attempt ${attempts} of ${GITHUB_MAX_ATTEMPTS})`;
      await tx
        .update(caseNotices)
        .set({
          state: final ? 'failed' : 'queued',
          failure: reason.slice(0, 500),
          attempts,
          leaseUntil: null,
          nextAttemptAt: final ? null : new Date(now.getTime() + githubBackoffMs(attempts)),
        })
        .where(eq(caseNotices.id, n.id));
      if (final) await logCaseEvent(tx, { ...base, kind: 'notice_failed', details: { noticeId: n.id, channel: 'github', attempts } });
    }),
  );
}

/**
 * One pass of `cases.github-deliver`: claims the due queued `github` notices, then for each checks
 * the repository's private vulnerability reporting and posts the prepared body, outside any
 * transaction (one company's slow GitHub call holds no other caller), and records the outcome.
 * Refusals (401, 403, 404, 422, no token) fail the notice with GitHub's reason; no answer, 5xx
 * or 429 retry with backoff up to GITHUB_MAX_ATTEMPTS. Returns how many notices were settled.
 */
export async function deliverGithubNotices(db: Db, o: GithubJobOptions): Promise<number> {
  const claimed = await claim(db, o.now?.() ?? new Date());
  for (const n of claimed) {
    const outcome = await post(db, n, o);
    if (!('ok' in outcome))
      o.log?.warn({ noticeId: n.id, companyId: n.companyId, outcome: 'refused' in outcome ? 'refused' : 'transient' }, 'GitHub notice not delivered');
    await settle(db, n, outcome, o.now?.() ?? new Date());
  }
  return claimed.length;
}

/**
 * The `cases.github-deliver` queue worker: a pass at start, at once when a transaction that queued a
 * notice commits (its wake channel, migration 0030), and every 30 s for the retries that come due
 * (the shortest backoff). Started from the job registry (src/jobs/registry.ts).
 */
export function startGithubDelivery(
  db: Db,
  o: GithubJobOptions & { listen?: Listen; pollMs?: number; log?: GithubJobOptions['log'] & { error(o: object, m: string): void } },
): { stop(): Promise<void> } {
  const loop = startPollLoop(
    async () => {
      while ((await deliverGithubNotices(db, o)) > 0);
    },
    {
      pollMs: o.pollMs ?? 30_000,
      onError: (err) => o.log?.error({ err }, 'GitHub notice delivery pass failed'),
      ...(o.listen ? { wake: { listen: o.listen, channel: WAKE_CHANNELS.github } } : {}),
    },
  );
  return { stop: loop.stop };
}
