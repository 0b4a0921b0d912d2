import { fixedWithoutAdvisory } from '../advisories/advisory-evidence.js';
import { and, count, desc, eq, inArray, isNull, max, or, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { article14Filings, attestations, companies, findings, productCraFacts, products, reports, sarifScans, sbomComponents, sboms } from '../../db/schema/index.js';
import { type Article14Facts, article14Status, type Stage } from '../article14/article14-clock.js';
import { CLOSED_STATES } from '../triage/lifecycle.js';
import { findingCountCache, sbomShareCache, type SeverityCounts } from './evidence-cache.js';
import type { Attestation, CompanyEvidence, ProductEvidence } from './evidence.js';

/** Reports waiting for triage longer than this are a gap (catalog: Annex I Part II (2)). */
export const ACK_TARGET_DAYS = 7;
const DAY = 86_400_000;
/** A report in one of these states needs no more handling for (2)(a). */
const HANDLED = ['fixed', 'disclosed', ...CLOSED_STATES];

/** An Article 14 stage that still has to be filed, for the deadline view. */
export type OpenStage = { reportId: string; stage: Stage; dueAt: Date };

/** What gatherEvidence returns: the evaluator's input plus the facts the deadline view needs. */
export type EvidenceSnapshot = {
  evidence: CompanyEvidence;
  plan: 'free' | 'reporting' | 'enterprise';
  openStages: OpenStage[];
  takenAt: Date;
};

const key = (s: string) => s.trim().toLowerCase();

/**
 * The evidence snapshot of one company (optionally one product), from the database, in a fixed
 * number of set-based queries whatever the number of products, reports or findings, all inside one
 * read-only repeatable-read transaction so the snapshot is consistent. Every query is scoped by
 * company. Reports name their product by text (`productName`, as the portal's dropdown offers the
 * product names); a report counts for a product whose name or identifier matches, case-insensitive.
 */
export async function gatherEvidence(db: Db, companyId: string, productId?: string, now = new Date()): Promise<EvidenceSnapshot> {
  return db.transaction((tx) => gather(tx, companyId, productId, now), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

async function gather(tx: Executor, companyId: string, productId: string | undefined, now: Date): Promise<EvidenceSnapshot> {
  const byProduct = <T extends SQL | undefined>(col: Parameters<typeof eq>[0], extra?: T) =>
    and(productId ? eq(col, productId) : undefined, extra);

  const [company] = await tx
    .select({ plan: companies.plan, securityEmail: companies.securityEmail, policyText: companies.policyText, policyUrl: companies.policyUrl })
    .from(companies)
    .where(eq(companies.id, companyId));
  if (!company) throw new Error(`company ${companyId} vanished during evaluation`);

  const productRows = await tx
    .select({
      id: products.id, identifier: products.identifier, name: products.name,
      category: productCraFacts.category, placedOnMarketAt: productCraFacts.placedOnMarketAt,
      supportEndsAt: productCraFacts.supportEndsAt, supportJustification: productCraFacts.supportJustification,
    })
    .from(products)
    .leftJoin(productCraFacts, eq(productCraFacts.productId, products.id))
    .where(and(eq(products.companyId, companyId), byProduct(products.id)))
    .orderBy(products.name, products.identifier);

  // The latest SBOM per product (highest version), then the share of its components identified
  // by purl or CPE (one grouped scan of those SBOMs' component rows).
  const latest = await tx
    .selectDistinctOn([sboms.productId], { productId: sboms.productId, id: sboms.id, createdAt: sboms.createdAt })
    .from(sboms)
    .where(and(eq(sboms.companyId, companyId), byProduct(sboms.productId)))
    .orderBy(sboms.productId, desc(sboms.version));
  // Read the cache into a local map first: this snapshot must not depend on what the bounded cache
  // keeps while the query below runs.
  const shareOf = new Map(latest.map((l) => [l.id, sbomShareCache.get(l.id)]));
  const unknownShares = latest.filter((l) => shareOf.get(l.id) === undefined).map((l) => l.id);
  const shares = unknownShares.length
    ? await tx
        .select({ sbomId: sbomComponents.sbomId, total: count(), identified: sql<number>`count(*) filter (where ${sbomComponents.purl} is not null or ${sbomComponents.cpe} is not null)`.mapWith(Number) })
        .from(sbomComponents)
        .where(and(eq(sbomComponents.companyId, companyId), inArray(sbomComponents.sbomId, unknownShares)))
        .groupBy(sbomComponents.sbomId)
    : [];
  for (const sh of shares) shareOf.set(sh.sbomId, sh.total === 0 ? null : sh.identified / sh.total);
  for (const id of unknownShares) sbomShareCache.set(id, shareOf.get(id) ?? null);

  const scans = await tx
    .select({ productId: sarifScans.productId, at: max(sarifScans.createdAt), n: count() })
    .from(sarifScans)
    .where(and(eq(sarifScans.companyId, companyId), byProduct(sarifScans.productId)))
    .groupBy(sarifScans.productId);
  // Findings exist only through scans; recount only the products whose scans changed.
  const scanKey = new Map(scans.map((x) => [x.productId, `${x.n}:${x.at?.getTime() ?? 0}`]));
  const cached = new Map(scans.map((x) => [x.productId, findingCountCache.get(x.productId)]));
  const stale = scans.filter((x) => cached.get(x.productId)?.scans !== scanKey.get(x.productId)).map((x) => x.productId);
  const open = stale.length
    ? await tx
        .select({ productId: findings.productId, severity: findings.severity, n: count() })
        .from(findings)
        .where(and(eq(findings.companyId, companyId), eq(findings.state, 'open'), inArray(findings.productId, stale)))
        .groupBy(findings.productId, findings.severity)
    : [];
  const countsOf = new Map<string, SeverityCounts>();
  for (const x of scans) countsOf.set(x.productId, { ...(cached.get(x.productId)?.counts ?? { critical: 0, high: 0, medium: 0, low: 0 }) });
  for (const id of stale) countsOf.set(id, { critical: 0, high: 0, medium: 0, low: 0 });
  for (const f of open) {
    const c = countsOf.get(f.productId);
    if (c && f.severity in c) c[f.severity as keyof SeverityCounts] += f.n;
  }
  for (const id of stale) findingCountCache.set(id, { scans: scanKey.get(id) as string, counts: countsOf.get(id) as SeverityCounts });

  // Reports: per named product, the actively exploited ones still unhandled; company-wide, the
  // ones waiting for triage. One grouped scan of the company's reports.
  const overdueBefore = new Date(now.getTime() - ACK_TARGET_DAYS * DAY);
  const handled = sql.join(HANDLED.map((s) => sql`${s}`), sql`, `);
  const reportGroups = await tx
    .select({
      productName: reports.productName,
      exploitedUnhandled: sql<number>`count(*) filter (where ${reports.activelyExploited} and ${reports.fixAvailableAt} is null and ${reports.status} not in (${handled}))`.mapWith(Number),
      untriaged: sql<number>`count(*) filter (where ${reports.status} = 'new')`.mapWith(Number),
      untriagedOverdue: sql<number>`count(*) filter (where ${reports.status} = 'new' and ${reports.createdAt} < ${overdueBefore})`.mapWith(Number),
      // The Article 14 candidates ride along in the same scan (few rows; dates come back as text).
      notifiable: sql<NotifiableJson[] | null>`json_agg(json_build_object('id', ${reports.id}, 'activelyExploited', ${reports.activelyExploited}, 'severeIncident', ${reports.severeIncident}, 'awareAt', ${reports.awareAt}, 'fixAvailableAt', ${reports.fixAvailableAt})) filter (where ${reports.activelyExploited} or ${reports.severeIncident})`,
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
        .where(and(eq(article14Filings.companyId, companyId), inArray(article14Filings.reportId, notifiable.map((r) => r.id))))
    : [];

  // Annex I Part II (4): fixed or disclosed reports with no published advisory, per named product.
  const noAdvisory = await fixedWithoutAdvisory(tx, companyId);

  const attested = await tx
    .select()
    .from(attestations)
    .where(and(eq(attestations.companyId, companyId), isNull(attestations.withdrawnAt), productId ? or(isNull(attestations.productId), eq(attestations.productId, productId)) : undefined));

  const latestOf = new Map(latest.map((l) => [l.productId, l]));
  const scanOf = new Map(scans.map((s) => [s.productId, s.at]));
  const reportsByName = new Map<string, number>();
  let untriagedTotal = 0;
  let untriagedOverdue = 0;
  for (const g of reportGroups) {
    untriagedTotal += g.untriaged;
    untriagedOverdue += g.untriagedOverdue;
    if (g.productName) reportsByName.set(key(g.productName), (reportsByName.get(key(g.productName)) ?? 0) + g.exploitedUnhandled);
  }

  const productEvidence = productRows.map((p): ProductEvidence => {
    const sbom = latestOf.get(p.id);
    const openFindings = { ...(countsOf.get(p.id) ?? { critical: 0, high: 0, medium: 0, low: 0 }) };
    const exploited = (reportsByName.get(key(p.name)) ?? 0) + (key(p.identifier) !== key(p.name) ? (reportsByName.get(key(p.identifier)) ?? 0) : 0);
    return {
      id: p.id, identifier: p.identifier, name: p.name,
      category: p.category ?? 'default', placedOnMarketAt: p.placedOnMarketAt, supportEndsAt: p.supportEndsAt, supportJustification: p.supportJustification,
      lastSbomAt: sbom?.createdAt ?? null,
      sbomIdentifiedShare: sbom ? (shareOf.get(sbom.id) ?? null) : null,
      lastScanAt: scanOf.get(p.id) ?? null,
      openFindings,
      exploitedUnfixed: exploited,
      // A gap while any fixed report lacks its advisory; otherwise Part II (4) rests on an attestation.
      fixedWithoutAdvisory: (noAdvisory.get(key(p.name)) ?? 0) + (key(p.identifier) !== key(p.name) ? (noAdvisory.get(key(p.identifier)) ?? 0) : 0),
    };
  });

  const { overdue, filedLate, openStages } = article14Summary(notifiable, filings, now);
  return {
    plan: company.plan,
    takenAt: now,
    openStages,
    evidence: {
      policyPublished: Boolean(company.policyText?.trim() || company.policyUrl?.trim()),
      securityEmail: company.securityEmail,
      untriagedOverdue,
      untriagedTotal,
      article14Overdue: overdue,
      article14FiledLate: filedLate,
      attestations: attested.map(
        (a): Attestation => ({
          requirementId: a.requirementId, productId: a.productId, verdict: a.verdict, note: a.justification,
          evidenceUrl: a.evidenceUrl, author: a.author, attestedAt: a.attestedAt, expiresAt: a.expiresAt,
        }),
      ),
      products: productEvidence,
    },
  };
}

type NotifiableRow = Omit<Article14Facts, 'filings'> & { id: string };
type NotifiableJson = { id: string; activelyExploited: boolean | null; severeIncident: boolean | null; awareAt: string | null; fixAvailableAt: string | null };

function article14Summary(rows: NotifiableRow[], filings: { reportId: string; stage: string; filedAt: Date }[], now: Date) {
  let overdue = 0;
  let filedLate = 0;
  const openStages: OpenStage[] = [];
  const filed = new Map<string, Article14Facts['filings']>();
  for (const f of filings) filed.set(f.reportId, { ...filed.get(f.reportId), [f.stage]: { filedAt: f.filedAt } });
  for (const r of rows) {
    const status = article14Status({ ...r, filings: filed.get(r.id) ?? {} }, now);
    for (const s of status.stages) {
      if (s.state === 'overdue') overdue++;
      if (s.state === 'filed_late') filedLate++;
      if (s.dueAt && (s.state === 'open' || s.state === 'due_soon' || s.state === 'overdue')) openStages.push({ reportId: r.id, stage: s.stage, dueAt: new Date(s.dueAt) });
    }
  }
  return { overdue, filedLate, openStages };
}
