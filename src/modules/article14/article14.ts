import { and, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { article14Filings } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { AppError, ErrorCode, validation } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { recordAudit } from '../audit/record-audit.js';
import { getCompanyById } from '../companies/get-company.js';
import { getReportRow, type ReportRow, toReportView } from '../reports/get-report.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { type Article14Facts, type Article14Status, article14Status, STAGES, type Stage } from './article14-clock.js';
import { type Article14View as Article14ViewSchema, RecordFilingInput } from './article14.schemas.js';
import { parseInput } from '../../kernel/validate.js';
import { filingPack } from './filing-pack.js';
import type { z } from 'zod';

async function factsOf(db: Executor, r: ReportRow): Promise<Article14Facts> {
  const filings = await db.select().from(article14Filings).where(eq(article14Filings.reportId, r.id));
  return {
    activelyExploited: r.activelyExploited,
    severeIncident: r.severeIncident,
    awareAt: r.awareAt,
    fixAvailableAt: r.fixAvailableAt,
    filings: Object.fromEntries(filings.map((f) => [f.stage, { filedAt: f.filedAt, filedBy: f.filedBy, reference: f.reference }])),
  };
}

export type Article14View = z.infer<typeof Article14ViewSchema>;

/** `GET {base_url}/vulnerabilities/{id}/article14`: the clocks, and each stage's filing pack. */
export async function getArticle14(db: Executor, companyId: string, id: string, now = new Date()): Promise<Article14View> {
  const r = await getReportRow(db, companyId, id);
  const status = article14Status(await factsOf(db, r), now);
  if (!status.basis) return { ...status, stages: [] };
  const c = await getCompanyById(db, companyId);
  const v = toReportView(r);
  const source = { ...v, manufacturer: c.name, securityEmail: c.securityEmail, basis: status.basis };
  return { ...status, stages: status.stages.map((st) => ({ ...st, pack: filingPack(st.stage, source) })) };
}

/**
 * Records that a stage was filed in ENISA's Single Reporting Platform (which has no API: a person
 * files, Cradle records). `raw` is parsed with RecordFilingInput (the schema OpenAPI publishes).
 * Refused when Article 14 does not apply or the stage is already recorded.
 */
export async function recordFiling(
  db: Db,
  ctx: Context,
  companyId: string,
  id: string,
  stage: string,
  raw: unknown,
  now = new Date(),
): Promise<Article14Status> {
  if (!(STAGES as readonly string[]).includes(stage))
    throw new AppError(ErrorCode.NOT_FOUND, `no Article 14 stage "${stage}"; stages are ${STAGES.join(', ')}`);
  const input = parseInput(RecordFilingInput, raw);
  const filedAt = input.filedAt === undefined ? now : new Date(input.filedAt);
  if (filedAt.getTime() > now.getTime() + 60_000)
    throw validation('filedAt: a filing cannot be in the future', [{ path: 'filedAt', message: 'cannot be in the future' }]);
  return db.transaction(async (tx) => {
    const r = await getReportRow(tx, companyId, id, true);
    const before = article14Status(await factsOf(tx, r), now);
    if (!before.applies) throw new AppError(ErrorCode.CONFLICT, `Article 14 does not apply to this report: ${before.reason}`);
    const [existing] = await tx
      .select({ id: article14Filings.id })
      .from(article14Filings)
      .where(and(eq(article14Filings.reportId, id), eq(article14Filings.stage, stage)));
    if (existing) throw new AppError(ErrorCode.CONFLICT, `the ${stage.replace('_', ' ')} of this report is already recorded`);
    const filedBy = actorName(ctx);
    await tx.insert(article14Filings).values({
      id: newId(),
      companyId,
      reportId: id,
      stage,
      filedAt,
      filedBy,
      reference: input.reference ?? null,
      recordedAt: now,
    });
    await recordAudit(tx, ctx, {
      companyId,
      action: 'article14.file',
      targetType: 'report',
      targetId: id,
      details: { stage, filedAt: filedAt.toISOString(), reference: input.reference ?? null },
      at: now,
    });
    await enqueueEvent(tx, companyId, 'article14.stage_filed', { submissionId: id, stage, filedAt: filedAt.toISOString() }, now);
    return article14Status(await factsOf(tx, r), now);
  });
}

export type { Stage };
