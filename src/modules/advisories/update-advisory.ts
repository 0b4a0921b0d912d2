import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { type AdvisoryAcknowledgment, type AdvisoryProductRow, advisories } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { conflict, type FieldIssue, validation } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import type { Company } from '../companies/companies.schemas.js';
import { listProducts } from '../products/list-products.js';
import { scoreCvss } from '../reports/cvss.js';
import { type AdvisoryProduct, type AdvisoryView, UpdateAdvisoryInput } from './advisories.schemas.js';
import { getAdvisoryRow, toAdvisoryView } from './advisory-rows.js';

type ProductInput = z.infer<typeof AdvisoryProduct>;

/** Product decisions with vendor and name filled from the registered product; each problem named by path. */
async function resolveProducts(tx: Executor, company: Company, list: ProductInput[]): Promise<AdvisoryProductRow[]> {
  const registered = new Map((await listProducts(tx, company.id)).map((p) => [p.identifier, p]));
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const rows = list.map((p, i): AdvisoryProductRow => {
    const at = `products.${i}`;
    const reg = p.productIdentifier ? registered.get(p.productIdentifier) : undefined;
    if (p.productIdentifier && !reg) issues.push({ path: `${at}.productIdentifier`, message: 'no registered product has this identifier' });
    const vendor = p.vendor ?? reg?.producer ?? company.name;
    const name = p.name ?? reg?.name;
    if (!name) issues.push({ path: `${at}.name`, message: 'name is required without a productIdentifier' });
    if (p.status === 'not_affected' && !p.justification) issues.push({ path: `${at}.justification`, message: 'a not_affected decision needs a justification' });
    if (p.status !== 'not_affected' && p.justification)
      issues.push({ path: `${at}.justification`, message: 'a justification belongs to not_affected decisions only' });
    const key = `${vendor}\u0000${name}\u0000${p.version}`;
    if (seen.has(key)) issues.push({ path: `${at}.version`, message: 'this product version is listed twice' });
    seen.add(key);
    return {
      productIdentifier: p.productIdentifier ?? null,
      vendor,
      name: name ?? '',
      version: p.version,
      status: p.status,
      justification: p.justification ?? null,
      impact: p.impact || null,
    };
  });
  if (issues.length) throw validation(issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues);
  return rows;
}

/**
 * Edits an advisory's working copy. A draft changes in place; a published advisory's edits wait
 * for the next revision (its served document never changes under it); a withdrawn one is final.
 */
export async function updateAdvisory(db: Db, ctx: Context, company: Company, distributionUrl: string, id: string, raw: unknown): Promise<AdvisoryView> {
  const input = parseInput(UpdateAdvisoryInput, raw);
  if (Object.keys(input).length === 0) throw validation('nothing to update: give at least one field');
  // Refuses a malformed vector with a VALIDATION naming cvssVector; the normalised form is stored.
  if (input.cvssVector) input.cvssVector = scoreCvss(input.cvssVector).vector;
  return db.transaction(async (tx) => {
    const cur = await getAdvisoryRow(tx, company.id, id, true);
    if (cur.status === 'withdrawn') throw conflict('the advisory is withdrawn and cannot change');
    const now = new Date();
    const { products, acknowledgments, remediation, ...plain } = input;
    const consented = new Map(cur.acknowledgments.map((a) => [a.name, a.consentRecordedAt]));
    const set = {
      ...plain,
      ...(products !== undefined ? { products: await resolveProducts(tx, company, products) } : {}),
      ...(remediation !== undefined ? { remediation: remediation ? { ...remediation, url: remediation.url ?? null } : null } : {}),
      ...(acknowledgments !== undefined
        ? {
            acknowledgments: acknowledgments.map((a): AdvisoryAcknowledgment => ({
              name: a.name,
              organization: a.organization ?? null,
              consentRecordedAt: consented.get(a.name) ?? now.toISOString(),
            })),
          }
        : {}),
    };
    const [row] = await tx
      .update(advisories)
      .set({ ...set, updatedAt: now })
      .where(and(eq(advisories.companyId, company.id), eq(advisories.id, id)))
      .returning();
    if (!row) throw new Error('update returned no row');
    await recordAudit(tx, ctx, {
      companyId: company.id,
      action: 'advisories.update',
      targetType: 'advisory',
      targetId: id,
      details: { trackingId: cur.trackingId, status: cur.status, changed: Object.keys(set) },
      at: now,
    });
    return toAdvisoryView(row, distributionUrl);
  });
}
