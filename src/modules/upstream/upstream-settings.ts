import { and, eq, inArray, isNotNull, notLike } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { upstreamSettings } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { currentSealPrefix, openSecret, rewrapSecret, SecretBoxError, sealSecret } from '../../kernel/secret-box.js';
import { lockFor } from '../../db/advisory-lock.js';
import { asSystem } from '../../db/tenant-scope.js';
import { toFieldIssues } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { canonicalPrefix, MAX_PREFIXES } from './purl-prefix.js';

export const UpstreamSettings = z
  .object({
    maintainedPurlPrefixes: z.array(z.string()).describe('Package URLs this company maintains, as stored (canonical form)'),
    githubToken: z
      .object({ set: z.boolean(), setAt: z.iso.datetime().nullable() })
      .describe('Whether a GitHub token is set, and when (the token itself is never shown)'),
    githubApiUrl: z.string().describe('The GitHub API this instance talks to (GITHUB_API_URL)'),
    caseReminderDays: z
      .number()
      .int()
      .describe(
        'Days a notified case participant has to acknowledge before it is reminded; after twice as many the case suggests a coordinator (docs/coordination.md "Reminders and escalation")',
      ),
  })
  .meta({ id: 'UpstreamSettings' });
export type UpstreamSettings = z.infer<typeof UpstreamSettings>;

export const MaintainedPackagesInput = z
  .object({
    prefixes: z
      .array(z.string().trim().min(1).max(512))
      .max(MAX_PREFIXES)
      .describe(
        'Package URLs without version (`pkg:npm/%40acme/widget`: that package) or ending in `/` (`pkg:maven/com.acme/`: every package of that namespace). Replaces the list; [] clears it.',
      ),
  })
  .strict()
  .meta({ id: 'MaintainedPackagesInput' });

export const GithubTokenInput = z
  .object({
    githubToken: z
      .string()
      .min(20, 'a GitHub token is at least 20 characters')
      .max(255)
      .regex(/^[\x21-\x7e]+$/, 'a GitHub token has no spaces or other characters (ghp_..., github_pat_...)')
      .describe('A GitHub token able to report vulnerabilities (fine-grained: no repository permission is needed to report on public repositories)'),
  })
  .strict()
  .meta({ id: 'GithubTokenInput' });

/** docs/coordination.md "Reminders and escalation": the period when the company set none. */
export const DEFAULT_CASE_REMINDER_DAYS = 7;

export const CaseRemindersInput = z
  .object({ days: z.number().int().min(1, 'at least 1 day').max(90, 'at most 90 days').describe('Days a notified participant has to acknowledge') })
  .strict()
  .meta({ id: 'CaseRemindersInput' });

/** What binds the sealed token to its company: a value copied to another company's row does not open there. */
const aadOf = (companyId: string): string => `github-token:${companyId}`;

const row = async (db: Executor, companyId: string) => (await db.select().from(upstreamSettings).where(eq(upstreamSettings.companyId, companyId)))[0];

/** The company's upstream settings; the token only as set or not. */
export async function getUpstreamSettings(db: Db, companyId: string, githubApiUrl: string): Promise<UpstreamSettings> {
  const r = await row(db, companyId);
  return {
    maintainedPurlPrefixes: r?.maintainedPurlPrefixes ?? [],
    githubToken: { set: !!r?.githubToken, setAt: r?.githubToken && r.githubTokenSetAt ? r.githubTokenSetAt.toISOString() : null },
    githubApiUrl,
    caseReminderDays: r?.caseReminderDays ?? DEFAULT_CASE_REMINDER_DAYS,
  };
}

/** The reminder period of each named company (the reminder job's one read of the settings). */
export async function caseReminderDaysOf(db: Executor, companyIds: readonly string[]): Promise<Map<string, number>> {
  const set = companyIds.length
    ? await db
        .select({ companyId: upstreamSettings.companyId, days: upstreamSettings.caseReminderDays })
        .from(upstreamSettings)
        .where(inArray(upstreamSettings.companyId, [...companyIds]))
    : [];
  const out = new Map(companyIds.map((id) => [id, DEFAULT_CASE_REMINDER_DAYS]));
  for (const r of set) if (r.days !== null) out.set(r.companyId, r.days);
  return out;
}

/** Sets the days a notified case participant has to acknowledge before the reminder. */
export async function setCaseReminderDays(
  db: Db,
  ctx: Context,
  companyId: string,
  raw: unknown,
  githubApiUrl: string,
  now = new Date(),
): Promise<UpstreamSettings> {
  const parsed = CaseRemindersInput.safeParse(raw);
  if (!parsed.success) throw invalid(parsed.error);
  const { days } = parsed.data;
  await upsert(db, ctx, companyId, { caseReminderDays: days }, { action: 'upstream.case_reminders', details: { days } }, now);
  return getUpstreamSettings(db, companyId, githubApiUrl);
}

function invalid(error: z.ZodError | { path: string; message: string }[]): AppError {
  const issues = Array.isArray(error) ? error : toFieldIssues(error);
  const first = issues[0];
  return new AppError(ErrorCode.VALIDATION, first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'invalid input', { issues });
}

async function upsert(
  db: Db,
  ctx: Context,
  companyId: string,
  set: Partial<typeof upstreamSettings.$inferInsert>,
  audit: { action: string; details: Record<string, unknown> },
  now: Date,
) {
  await db.transaction(async (tx) => {
    await tx
      .insert(upstreamSettings)
      .values({ companyId, ...set, updatedAt: now })
      .onConflictDoUpdate({ target: upstreamSettings.companyId, set: { ...set, updatedAt: now } });
    await recordAudit(tx, ctx, { companyId, action: audit.action, targetType: 'company', targetId: companyId, details: audit.details, at: now });
  });
}

/**
 * Replaces the package URL prefixes the company declares it maintains. Each must be a package URL
 * (checked by packageurl-js) without version, qualifiers or subpath, or a namespace ending in `/`;
 * all problems are reported at once and nothing is stored unless all pass.
 */
/** What the upstream settings verbs take: the company, its input, and the GitHub API address its answer reports against. */
export type UpstreamSettingsOptions = { companyId: string; input?: unknown; githubApiUrl: string; now?: Date };

export async function setMaintainedPackages(db: Db, ctx: Context, o: UpstreamSettingsOptions): Promise<UpstreamSettings> {
  const { companyId, input: raw, githubApiUrl, now = new Date() } = o;
  const parsed = MaintainedPackagesInput.safeParse(raw);
  if (!parsed.success) throw invalid(parsed.error);
  const issues: { path: string; message: string }[] = [];
  const prefixes: string[] = [];
  parsed.data.prefixes.forEach((p, i) => {
    const r = canonicalPrefix(p);
    if (!r.ok) issues.push({ path: `prefixes.${i}`, message: `${p.slice(0, 80)}: ${r.message}` });
    else if (!prefixes.includes(r.prefix)) prefixes.push(r.prefix);
  });
  if (issues.length > 0) throw invalid(issues);
  await upsert(db, ctx, companyId, { maintainedPurlPrefixes: prefixes }, { action: 'upstream.maintained_packages', details: { count: prefixes.length } }, now);
  return getUpstreamSettings(db, companyId, githubApiUrl);
}

/** Sets or replaces the company's GitHub token, sealed under the operator key; the audit row says only that it was set. */
export async function setGithubToken(db: Db, ctx: Context, o: UpstreamSettingsOptions): Promise<UpstreamSettings> {
  const { companyId, input: raw, githubApiUrl, now = new Date() } = o;
  const parsed = GithubTokenInput.safeParse(raw);
  if (!parsed.success) throw invalid(parsed.error);
  const replaced = !!(await row(db, companyId))?.githubToken;
  const sealed = sealSecret(parsed.data.githubToken, aadOf(companyId));
  await upsert(db, ctx, companyId, { githubToken: sealed, githubTokenSetAt: now }, { action: 'upstream.github_token_set', details: { replaced } }, now);
  return getUpstreamSettings(db, companyId, githubApiUrl);
}

/** Removes the company's GitHub token (a no-op, still audited, when none is set). */
export async function removeGithubToken(db: Db, ctx: Context, o: Omit<UpstreamSettingsOptions, 'input'>): Promise<UpstreamSettings> {
  const { companyId, githubApiUrl, now = new Date() } = o;
  const had = !!(await row(db, companyId))?.githubToken;
  await upsert(db, ctx, companyId, { githubToken: null, githubTokenSetAt: null }, { action: 'upstream.github_token_removed', details: { had } }, now);
  return getUpstreamSettings(db, companyId, githubApiUrl);
}

/** The company's GitHub token for a request to GitHub, or undefined; throws `SecretBoxError` when it does not open. */
export async function openGithubToken(db: Executor, companyId: string): Promise<string | undefined> {
  const sealed = (await row(db, companyId))?.githubToken;
  return sealed ? openSecret(sealed, aadOf(companyId)) : undefined;
}

/**
 * The start-up step beside the webhook secrets' (server.ts): re-wraps every GitHub token sealed under
 * an older operator key under the current one, in one transaction, serialised across instances, so
 * that the old key can be dropped after a rotation (ADR 0016). A token that opens under no
 * configured key is left as it is and reported by company.
 */
export async function rewrapGithubTokens(db: Db): Promise<{ rewrapped: number; failed: { companyId: string; reason: string }[] }> {
  const prefix = currentSealPrefix();
  return asSystem(() =>
    db.transaction(async (tx) => {
      await lockFor(tx, 'secrets', 'github-tokens');
      const rows = await tx
        .select({ companyId: upstreamSettings.companyId, githubToken: upstreamSettings.githubToken })
        .from(upstreamSettings)
        .where(and(isNotNull(upstreamSettings.githubToken), notLike(upstreamSettings.githubToken, `${prefix}%`)));
      const report = { rewrapped: 0, failed: [] as { companyId: string; reason: string }[] };
      for (const r of rows) {
        try {
          const githubToken = rewrapSecret(r.githubToken as string, aadOf(r.companyId));
          await tx.update(upstreamSettings).set({ githubToken }).where(eq(upstreamSettings.companyId, r.companyId));
          report.rewrapped++;
        } catch (e) {
          if (!(e instanceof SecretBoxError)) throw e;
          report.failed.push({ companyId: r.companyId, reason: e.message });
        }
      }
      return report;
    }),
  );
}
