import { fixedWithoutAdvisory } from '../advisories/advisory-evidence.js';
import { and, count, desc, eq, inArray, isNull, max, or, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import {
  article14Filings,
  attestations,
  companies,
  publishedFindings,
  productCraFacts,
  products,
  reports,
  sarifScans,
  sbomComponents,
  sboms,
  vulnMatches,
} from '../../db/schema/index.js';
import { CLOSED_STATES } from '../reports/lifecycle.js';
import { upstreamNotices } from './upstream-evidence.js';
import type { Attestation, ProductEvidence } from './evidence.js';
import { type EvidenceFacts, type EvidenceSnapshot, snapshotAt } from './evidence-snapshot.js';

type SeverityCounts = ProductEvidence['openFindings'];

/** A report in one of these states needs no more handling for Annex I Part II (2)(a). */
const HANDLED = ['fixed', 'disclosed', ...CLOSED_STATES];
/** A known vulnerability is addressed once the team judged it not affected, a false positive or resolved. */
const UNADDRESSED = or(isNull(vulnMatches.analysisState), inArray(vulnMatches.analysisState, ['in_triage', 'exploitable']));

const key = (s: string) => s.trim().toLowerCase();

/**
 * The evidence snapshot of one company (optionally one product) at `now`, read afresh from the
 * database (the compliance reads go through the cache in facts-cache.ts instead).
 */
export async function gatherEvidence(db: Db, companyId: string, productId?: string, now = new Date()): Promise<EvidenceSnapshot> {
  return snapshotAt(await gatherFactsConsistently(db, companyId, productId), now);
}

/** One consistent view of the database for all of a gathering's queries. */
const READ_SNAPSHOT = { isolationLevel: 'repeatable read', accessMode: 'read only' } as const;

/**
 * `gatherFacts` in its own read-only repeatable-read transaction: the facts of one moment. Its
 * queries each aggregate the company's whole set of a kind (every finding, component, report), so
 * a nested loop is never their plan; the planner picks one when its statistics lag a bulk write
 * (a 100,000-finding push before autovacuum's ANALYZE: the findings' scan join then ran 200 x
 * 100,000 comparisons, 1.0-1.7 s), and row-level security's filter, which it cannot estimate,
 * shrinks every estimate further. Hash and merge joins are taken instead, for this transaction only.
 */
export function gatherFactsConsistently(db: Db, companyId: string, productId: string | undefined): Promise<EvidenceFacts> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_nestloop = off`);
    return gatherFacts(tx, companyId, productId);
  }, READ_SNAPSHOT);
}

/**
 * The evidence facts of one company (optionally one product), in a fixed number of set-based
 * queries whatever the number of products, reports or findings; run it inside one repeatable-read
 * transaction (`gatherFactsConsistently`) so the facts are consistent. Every query is scoped by company.
 * Reports name their product by text (`productName`, as the portal's dropdown offers the product
 * names); a report counts for a product whose name or identifier matches, case-insensitive.
 */
export async function gatherFacts(tx: Executor, companyId: string, productId: string | undefined): Promise<EvidenceFacts> {
  const byProduct = <T extends SQL | undefined>(col: Parameters<typeof eq>[0], extra?: T) => and(productId ? eq(col, productId) : undefined, extra);

  const [company] = await tx
    .select({ plan: companies.plan, securityEmail: companies.securityEmail, policyText: companies.policyText, policyUrl: companies.policyUrl })
    .from(companies)
    .where(eq(companies.id, companyId));
  if (!company) throw new Error(`company ${companyId} vanished during evaluation`);

  const productRows = await tx
    .select({
      id: products.id,
      identifier: products.identifier,
      name: products.name,
      category: productCraFacts.category,
      placedOnMarketAt: productCraFacts.placedOnMarketAt,
      supportEndsAt: productCraFacts.supportEndsAt,
      supportJustification: productCraFacts.supportJustification,
    })
    .from(products)
    .leftJoin(productCraFacts, eq(productCraFacts.productId, products.id))
    // Archived products are out of the company's picture; asked for by name, one still shows its record.
    .where(and(eq(products.companyId, companyId), byProduct(products.id, productId ? undefined : isNull(products.archivedAt))))
    .orderBy(products.name, products.identifier);

  // The latest SBOM per product (highest version), then the share of its components identified
  // by purl or CPE (one grouped scan of those SBOMs' component rows).
  const latest = await tx
    .selectDistinctOn([sboms.productId], { productId: sboms.productId, id: sboms.id, createdAt: sboms.createdAt })
    .from(sboms)
    .where(and(eq(sboms.companyId, companyId), byProduct(sboms.productId)))
    .orderBy(sboms.productId, desc(sboms.version));
  const shares = latest.length
    ? await tx
        .select({
          sbomId: sbomComponents.sbomId,
          total: count(),
          identified: sql<number>`count(*) filter (where ${sbomComponents.purl} is not null or ${sbomComponents.cpe} is not null)`.mapWith(Number),
        })
        .from(sbomComponents)
        .where(
          and(
            eq(sbomComponents.companyId, companyId),
            inArray(
              sbomComponents.sbomId,
              latest.map((l) => l.id),
            ),
          ),
        )
        .groupBy(sbomComponents.sbomId)
    : [];
  const shareOf = new Map(shares.map((sh) => [sh.sbomId, sh.total === 0 ? null : sh.identified / sh.total]));

  const scans = await tx
    .select({ productId: sarifScans.productId, at: max(sarifScans.createdAt) })
    .from(sarifScans)
    .where(and(eq(sarifScans.companyId, companyId), byProduct(sarifScans.productId)))
    .groupBy(sarifScans.productId);
  const open = await tx
    .select({ productId: publishedFindings.productId, severity: publishedFindings.severity, n: count() })
    .from(publishedFindings)
    .where(and(eq(publishedFindings.companyId, companyId), eq(publishedFindings.state, 'open'), byProduct(publishedFindings.productId)))
    .groupBy(publishedFindings.productId, publishedFindings.severity);
  const countsOf = new Map<string, SeverityCounts>();
  for (const f of open) {
    let c = countsOf.get(f.productId);
    if (!c) countsOf.set(f.productId, (c = { critical: 0, high: 0, medium: 0, low: 0 }));
    if (f.severity in c) c[f.severity as keyof SeverityCounts] += f.n;
  }

  // Known vulnerabilities of the latest SBOMs (src/modules/known-vulns/) still unaddressed.
  const known = await tx
    .select({ productId: vulnMatches.productId, kev: sql<number>`count(*) filter (where ${vulnMatches.inKev})`.mapWith(Number), all: count() })
    .from(vulnMatches)
    .where(and(eq(vulnMatches.companyId, companyId), isNull(vulnMatches.resolvedAt), UNADDRESSED, byProduct(vulnMatches.productId)))
    .groupBy(vulnMatches.productId);
  const knownOf = new Map(known.map((k) => [k.productId, { kev: k.kev, other: k.all - k.kev }]));

  // Reports: per named product, the actively exploited ones still unhandled; company-wide, when
  // each one waiting for triage arrived. One grouped scan of the company's reports.
  const handled = sql.join(
    HANDLED.map((s) => sql`${s}`),
    sql`, `,
  );
  const reportGroups = await tx
    .select({
      productName: reports.productName,
      exploitedUnhandled:
        sql<number>`count(*) filter (where ${reports.activelyExploited} and ${reports.fixAvailableAt} is null and ${reports.status} not in (${handled}))`.mapWith(
          Number,
        ),
      // Epoch milliseconds, ascending: a compact array, whatever the number of reports waiting.
      untriagedSince: sql<
        number[] | null
      >`array_agg((extract(epoch from ${reports.createdAt}) * 1000)::float8 order by ${reports.createdAt}) filter (where ${reports.status} = 'new')`,
      // The Article 14 candidates ride along in the same scan (few rows; dates come back as text).
      notifiable: sql<
        NotifiableJson[] | null
      >`json_agg(json_build_object('id', ${reports.id}, 'activelyExploited', ${reports.activelyExploited}, 'severeIncident', ${reports.severeIncident}, 'awareAt', ${reports.awareAt}, 'fixAvailableAt', ${reports.fixAvailableAt})) filter (where ${reports.activelyExploited} or ${reports.severeIncident})`,
    })
    .from(reports)
    .where(eq(reports.companyId, companyId))
    .groupBy(reports.productName);

  // Article 14 clocks of the reports it applies to, with their filings.
  const date = (v: string | null) => (v === null ? null : new Date(v));
  const notifiable = reportGroups.flatMap((g) => (g.notifiable ?? []).map((r) => ({ ...r, awareAt: date(r.awareAt), fixAvailableAt: date(r.fixAvailableAt) })));
  const filings = notifiable.length
    ? await tx
        .select({ reportId: article14Filings.reportId, stage: article14Filings.stage, filedAt: article14Filings.filedAt })
        .from(article14Filings)
        .where(
          and(
            eq(article14Filings.companyId, companyId),
            inArray(
              article14Filings.reportId,
              notifiable.map((r) => r.id),
            ),
          ),
        )
    : [];

  // Annex I Part II (4): fixed or disclosed reports with no published advisory, per named product.
  const noAdvisory = await fixedWithoutAdvisory(tx, companyId);
  // Article 13(6): open reports in a third-party component, and those no case told its maintainer of.
  const upstream = await upstreamNotices(tx, companyId);

  const attested = await tx
    .select()
    .from(attestations)
    .where(
      and(
        eq(attestations.companyId, companyId),
        isNull(attestations.withdrawnAt),
        productId ? or(isNull(attestations.productId), eq(attestations.productId, productId)) : undefined,
      ),
    );

  const latestOf = new Map(latest.map((l) => [l.productId, l]));
  const scanOf = new Map(scans.map((s) => [s.productId, s.at]));
  const reportsByName = new Map<string, number>();
  const waiting: number[] = [];
  for (const g of reportGroups) {
    if (g.untriagedSince) for (const t of g.untriagedSince) waiting.push(Number(t));
    if (g.productName) reportsByName.set(key(g.productName), (reportsByName.get(key(g.productName)) ?? 0) + g.exploitedUnhandled);
  }

  const productEvidence = productRows.map((p): ProductEvidence => {
    const sbom = latestOf.get(p.id);
    const openFindings = { ...(countsOf.get(p.id) ?? { critical: 0, high: 0, medium: 0, low: 0 }) };
    const exploited = (reportsByName.get(key(p.name)) ?? 0) + (key(p.identifier) !== key(p.name) ? (reportsByName.get(key(p.identifier)) ?? 0) : 0);
    return {
      id: p.id,
      identifier: p.identifier,
      name: p.name,
      category: p.category ?? 'default',
      placedOnMarketAt: p.placedOnMarketAt,
      supportEndsAt: p.supportEndsAt,
      supportJustification: p.supportJustification,
      lastSbomAt: sbom?.createdAt ?? null,
      sbomIdentifiedShare: sbom ? (shareOf.get(sbom.id) ?? null) : null,
      lastScanAt: scanOf.get(p.id) ?? null,
      openFindings,
      exploitedUnfixed: exploited,
      knownVulns: knownOf.get(p.id) ?? { kev: 0, other: 0 },
      // A gap while any fixed report lacks its advisory; otherwise Part II (4) rests on an attestation.
      fixedWithoutAdvisory: (noAdvisory.get(key(p.name)) ?? 0) + (key(p.identifier) !== key(p.name) ? (noAdvisory.get(key(p.identifier)) ?? 0) : 0),
      upstream: [key(p.name), ...(key(p.identifier) !== key(p.name) ? [key(p.identifier)] : [])].reduce(
        (sum, k) => ({ thirdParty: sum.thirdParty + (upstream.get(k)?.thirdParty ?? 0), unnotified: sum.unnotified + (upstream.get(k)?.unnotified ?? 0) }),
        { thirdParty: 0, unnotified: 0 },
      ),
    };
  });

  return {
    plan: company.plan,
    policyPublished: Boolean(company.policyText?.trim() || company.policyUrl?.trim()),
    securityEmail: company.securityEmail,
    products: productEvidence,
    untriagedSince: Float64Array.from(waiting).sort(),
    notifiable,
    filings,
    attestations: attested.map((a): Attestation => ({
      requirementId: a.requirementId,
      productId: a.productId,
      verdict: a.verdict,
      note: a.justification,
      evidenceUrl: a.evidenceUrl,
      author: a.author,
      attestedAt: a.attestedAt,
      expiresAt: a.expiresAt,
    })),
  };
}

type NotifiableJson = { id: string; activelyExploited: boolean | null; severeIncident: boolean | null; awareAt: string | null; fixAvailableAt: string | null };
