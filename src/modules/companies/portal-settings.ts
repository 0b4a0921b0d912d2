import { eq } from 'drizzle-orm';
import { type Config, portalUrl } from '../../config.js';
import type { Db } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode, type FieldIssue, notFound } from '../../kernel/errors.js';
import { toFieldIssues } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getCompanyById } from './get-company.js';
import { checkPublicKey, describeStoredKey, type PublicKeyFacts } from './openpgp-public-key.js';
import { findHtml } from './policy-markdown.js';
import { type PortalSettings, PortalSettingsInput } from './portal-settings.schemas.js';

type CompanyRow = typeof companies.$inferSelect;

function toView(c: CompanyRow, config: Config, key: PublicKeyFacts | undefined): PortalSettings {
  const portal = portalUrl(config, c.slug);
  return {
    policyText: c.policyText,
    policyUrl: c.policyUrl,
    safeHarbour: c.safeHarbour,
    languages: c.languages,
    securityEmail: c.securityEmail,
    preferredReportFormat: c.preferredReportFormat,
    pgpPublicKey: c.pgpPublicKey,
    pgpKey: key ?? null,
    responseTimes: { acknowledgeDays: c.responseAcknowledgeDays, assessDays: c.responseAssessDays, resolveDays: c.responseResolveDays },
    acknowledgmentsText: c.acknowledgmentsText,
    portalUrl: portal,
    securityTxtUrl: `${portal}/.well-known/security.txt`,
    pgpKeyUrl: c.pgpPublicKey ? `${portal}/pgp-key.txt` : null,
    acknowledgmentsUrl: `${portal}/acknowledgments`,
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** The company's portal and disclosure-policy settings, with the published key's facts. */
export async function getPortalSettings(db: Db, config: Config, companyId: string): Promise<PortalSettings> {
  const c = await getCompanyById(db, companyId);
  return toView(c, config, c.pgpPublicKey ? await describeStoredKey(c.pgpPublicKey) : undefined);
}

/**
 * Every check of the input, all issues at once (a form marks each field): the schema, raw HTML in
 * the Markdown texts, and the OpenPGP key parsed and judged by the library. Nothing is written
 * unless all pass.
 */
async function checkInput(raw: unknown, now: Date): Promise<{ input: PortalSettingsInput; key?: { armored: string; facts: PublicKeyFacts } }> {
  const parsed = PortalSettingsInput.safeParse(raw);
  const issues: FieldIssue[] = parsed.success ? [] : toFieldIssues(parsed.error);
  const input = parsed.success ? parsed.data : undefined;
  // The texts and the key are judged even when another field failed, so every problem shows at once.
  const given = (k: string): string | undefined => {
    const v = (raw as Record<string, unknown> | null | undefined)?.[k];
    return typeof v === 'string' && v.trim() !== '' && !issues.some((i) => i.path === k) ? v : undefined;
  };
  for (const field of ['policyText', 'safeHarbour', 'acknowledgmentsText'] as const) {
    const text = given(field);
    const tag = text ? findHtml(text) : undefined;
    if (tag) issues.push({ path: field, message: `HTML is not allowed here; write Markdown instead (found ${tag.slice(0, 60)})` });
  }
  let key: { armored: string; facts: PublicKeyFacts } | undefined;
  const armored = given('pgpPublicKey');
  if (armored) {
    const r = await checkPublicKey(armored, now);
    if (r.ok) key = { armored: r.armored, facts: r.facts };
    else issues.push({ path: 'pgpPublicKey', message: r.message });
  }
  if (!input || issues.length > 0) {
    const first = issues[0];
    throw new AppError(ErrorCode.VALIDATION, first ? (first.path ? `${first.path}: ${first.message}` : first.message) : 'invalid input', { issues });
  }
  return { input, ...(key ? { key } : {}) };
}

/**
 * Changes the portal and disclosure-policy settings: omitted fields keep their value, null clears.
 * One transaction with its audit row (which names the changed settings and the key's fingerprint,
 * never the texts); the portal company cache is dropped after the commit, so the portal and
 * security.txt show the change at once in this process (another instance within 5 seconds).
 */
export async function updatePortalSettings(db: Db, config: Config, ctx: Context, companyId: string, raw: unknown, now = new Date()): Promise<PortalSettings> {
  const { input, key } = await checkInput(raw, now);
  const set: Partial<CompanyRow> = {};
  if (input.policyText !== undefined) set.policyText = input.policyText;
  if (input.policyUrl !== undefined) set.policyUrl = input.policyUrl;
  if (input.safeHarbour !== undefined) set.safeHarbour = input.safeHarbour;
  if (input.languages !== undefined) set.languages = [...new Set(input.languages)];
  if (input.securityEmail !== undefined) set.securityEmail = input.securityEmail;
  if (input.preferredReportFormat !== undefined) set.preferredReportFormat = input.preferredReportFormat;
  if (input.pgpPublicKey !== undefined) set.pgpPublicKey = key?.armored ?? null;
  if (input.acknowledgmentsText !== undefined) set.acknowledgmentsText = input.acknowledgmentsText;
  const t = input.responseTimes;
  if (t?.acknowledgeDays !== undefined) set.responseAcknowledgeDays = t.acknowledgeDays;
  if (t?.assessDays !== undefined) set.responseAssessDays = t.assessDays;
  if (t?.resolveDays !== undefined) set.responseResolveDays = t.resolveDays;
  const row = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(companies)
      .set({ ...set, updatedAt: now })
      .where(eq(companies.id, companyId))
      .returning();
    if (!updated) throw notFound('company');
    await recordAudit(tx, ctx, {
      companyId,
      action: 'companies.portal_settings',
      targetType: 'company',
      targetId: companyId,
      details: { changed: Object.keys(set), ...(input.pgpPublicKey !== undefined ? { pgpFingerprint: key?.facts.fingerprint ?? null } : {}) },
      at: now,
    });
    return updated;
  });
  return toView(row, config, key?.facts ?? (row.pgpPublicKey ? await describeStoredKey(row.pgpPublicKey, now) : undefined));
}
