import { and, eq, like, ne } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { type AdvisoryProductRow, advisories, companies } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { conflict } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import type { Company } from '../companies/companies.schemas.js';
import { listProducts } from '../products/list-products.js';
import { getReportRow, type ReportRow } from '../reports/get-report.js';
import { advisoryProductsFor, awarenessVulnerabilityOf } from '../known-vulns/advisory-products.js';
import { listSboms } from '../sboms/list-sboms.js';
import { type AdvisoryView, CreateAdvisoryInput } from './advisories.schemas.js';
import { toAdvisoryView } from './advisory-rows.js';
import { draftText } from './draft-text.js';

/** Report states an advisory may disclose (reports/lifecycle.ts): the fix exists. */
export const ADVISORY_REPORT_STATES = ['fixed', 'disclosed'] as const;

/**
 * `{SLUG}-{YEAR}-{NNNN}`, numbered per company and year. The company row is locked first, so two
 * drafts created at once take consecutive numbers instead of colliding on the unique key.
 */
async function nextTrackingId(tx: Executor, company: Company, now: Date): Promise<string> {
  await tx.select({ id: companies.id }).from(companies).where(eq(companies.id, company.id)).for('update');
  const prefix = `${company.slug.toUpperCase()}-${now.getUTCFullYear()}-`;
  const taken = await tx
    .select({ trackingId: advisories.trackingId })
    .from(advisories)
    .where(and(eq(advisories.companyId, company.id), like(advisories.trackingId, `${prefix}%`)));
  const max = Math.max(0, ...taken.map((r) => Number(r.trackingId.slice(prefix.length)) || 0));
  return `${prefix}${String(max + 1).padStart(4, '0')}`;
}

/** The registered product the report names (by name or identifier), if any. */
async function namedProduct(tx: Executor, company: Company, report: ReportRow) {
  const named = report.productName?.trim().toLowerCase();
  if (!named) return undefined;
  return (await listProducts(tx, company.id)).find((p) => p.name.toLowerCase() === named || p.identifier.toLowerCase() === named);
}

/**
 * Affected products from the report's registered product, at every version its SBOMs and its
 * firmware field know, each `known_affected` until the editor marks the fixed ones. An unregistered
 * or missing product leaves the list for the editor.
 */
async function affectedProducts(tx: Executor, company: Company, product: Awaited<ReturnType<typeof namedProduct>>): Promise<AdvisoryProductRow[]> {
  if (!product) return [];
  const sboms = await listSboms(tx, company.id, { product: product.identifier }, { limit: 1000 });
  const versions = [...new Set([...sboms.items.map((s) => s.subjectVersion), product.firmwareVersion].filter((v): v is string => Boolean(v?.trim())))];
  return versions.map((version) => ({
    productIdentifier: product.identifier,
    vendor: product.producer ?? company.name,
    name: product.name,
    version,
    status: 'known_affected',
    justification: null,
    impact: null,
  }));
}

/**
 * A draft advisory from a fixed (or disclosed) report, prefilled from its triage facts and the
 * company's products and SBOMs, never from the reporter's text (draft-text.ts). A report in another state: CONFLICT naming it. A report that
 * already has a live (non-withdrawn) advisory: CONFLICT naming that one.
 */
export async function createAdvisory(db: Db, ctx: Context, company: Company, distributionUrl: string, raw: unknown): Promise<AdvisoryView> {
  const input = parseInput(CreateAdvisoryInput, raw);
  return db.transaction(async (tx) => {
    const report = await getReportRow(tx, company.id, input.vulnerabilityId, true);
    if (!(ADVISORY_REPORT_STATES as readonly string[]).includes(report.status)) {
      throw conflict(`the report is ${report.status}; an advisory needs a report that is ${ADVISORY_REPORT_STATES.join(' or ')}`);
    }
    const [live] = await tx
      .select({ id: advisories.id })
      .from(advisories)
      .where(and(eq(advisories.companyId, company.id), eq(advisories.reportId, report.id), ne(advisories.status, 'withdrawn')));
    if (live) throw conflict(`the report already has advisory ${live.id}; edit or revise that one`);
    const now = new Date();
    // A report opened by a KEV awareness decision (issue 25): the decisions on that flaw across the
    // company's products give the product list, and its CVE names the advisory.
    const known = await awarenessVulnerabilityOf(tx, company.id, report.id);
    const decided = known ? await advisoryProductsFor(tx, company.id, known.vulnerability, company.name) : [];
    const product = await namedProduct(tx, company, report);
    const text = draftText({ report, productName: product?.name ?? null, company, cve: known?.cve ?? undefined });
    const row = {
      id: newId(),
      companyId: company.id,
      reportId: report.id,
      trackingId: await nextTrackingId(tx, company, now),
      status: 'draft' as const,
      ...text,
      cvssVector: report.cvssVector,
      cwe: report.cwe,
      products: decided.length > 0 ? decided : await affectedProducts(tx, company, product),
      ...(known?.cve ? { cve: known.cve } : {}),
      createdAt: now,
      updatedAt: now,
    };
    const [inserted] = await tx.insert(advisories).values(row).returning();
    if (!inserted) throw new Error('insert returned no row');
    await recordAudit(tx, ctx, {
      companyId: company.id,
      action: 'advisories.create',
      targetType: 'advisory',
      targetId: row.id,
      details: { trackingId: row.trackingId, reportId: report.id },
      at: now,
    });
    return toAdvisoryView(inserted, distributionUrl);
  });
}
