import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { productCraFacts, products } from '../../db/schema/index.js';

/** CRA Article 13(13): technical documentation is kept ten years after market placement, or for the support period if longer. */
export const CRA_FLOOR_YEARS = 10;

export type ProductFloor = {
  identifier: string;
  name: string;
  placedOnMarketAt: string | null;
  supportEndsAt: string | null;
  /** The later of placement + ten years and the end of support; null while placement is not recorded (kept until it is). */
  keptUntil: string | null;
};

const plusYears = (d: Date, years: number): Date => {
  const x = new Date(d);
  x.setUTCFullYear(x.getUTCFullYear() + years);
  return x;
};

/** The later of the two dates Article 13(13) names; null when the product has no placement date yet. */
export function floorDate(placedOnMarketAt: Date | null, supportEndsAt: Date | null): Date | null {
  if (!placedOnMarketAt) return null;
  const tenYears = plusYears(placedOnMarketAt, CRA_FLOOR_YEARS);
  return supportEndsAt && supportEndsAt > tenYears ? supportEndsAt : tenYears;
}

/**
 * Each product's CRA floor (docs/retention.md "The CRA floor"): until when its SBOM versions,
 * assessments, attestations, advisories and Article 14 facts and filings are kept at least. No
 * retention rule deletes any of these at all; the date says how long that promise runs. An archived
 * product keeps its floor (its documentation outlives its sale); `activeOnly` leaves it out where a
 * page shows only the products on sale (the compliance overview).
 */
export async function craFloors(db: Executor, companyId: string, o: { activeOnly?: boolean } = {}): Promise<ProductFloor[]> {
  const rows = await db
    .select({ identifier: products.identifier, name: products.name, placed: productCraFacts.placedOnMarketAt, support: productCraFacts.supportEndsAt })
    .from(products)
    .leftJoin(productCraFacts, and(eq(productCraFacts.productId, products.id), eq(productCraFacts.companyId, products.companyId)))
    .where(and(eq(products.companyId, companyId), o.activeOnly ? isNull(products.archivedAt) : undefined))
    .orderBy(asc(products.name));
  return rows.map((r) => ({
    identifier: r.identifier,
    name: r.name,
    placedOnMarketAt: r.placed?.toISOString() ?? null,
    supportEndsAt: r.support?.toISOString() ?? null,
    keptUntil: floorDate(r.placed ?? null, r.support ?? null)?.toISOString() ?? null,
  }));
}
