import { boolean, date, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { products } from './products.js';
import { sboms } from './sboms.js';

// The advisory store (issue 25): public data shared by every company, written only by Cradle's own
// import code (row-level security lets the application read it and only system code write it).

export type OsvSeverity = { type: string; score: string };
export type OsvReference = { type: string; url: string };

/** One OSV record, as last imported. */
export const vulndbRecords = pgTable(
  'vulndb_records',
  {
    id: text('id').primaryKey(),
    /** The feed it came from (`osv:PyPI`, ...). */
    source: text('source').notNull(),
    modified: instant('modified').notNull(),
    published: instant('published'),
    withdrawn: instant('withdrawn'),
    aliases: text('aliases').array().notNull(),
    summary: text('summary'),
    details: text('details'),
    severity: jsonb('severity').$type<OsvSeverity[]>().notNull(),
    references: jsonb('references').$type<OsvReference[]>().notNull(),
    cwes: text('cwes').array().notNull(),
    /** SHA-256 of the record's bytes: a re-import applies only records whose content changed. */
    sha256: text('sha256').notNull(),
  },
  // The records of a flaw's alias group, looked up by any of its ids (severity from any of them).
  // No pending list (fastupdate off): PGlite never vacuums, so every entry of every import stayed
  // in it and each lookup scanned them all (8 ms a lookup at 20,000 records; ADR 0029).
  (t) => [index('vulndb_records_aliases_idx').using('gin', t.aliases).with({ fastupdate: false })],
);

/** One `affected[]` entry of a record, keyed by the package it names (src/modules/vulndb/ecosystems.ts). */
export const vulndbAffected = pgTable(
  'vulndb_affected',
  {
    recordId: text('record_id')
      .notNull()
      .references(() => vulndbRecords.id, { onDelete: 'cascade' }),
    ordinal: integer('ordinal').notNull(),
    packageKey: text('package_key').notNull(),
    /** purl type: selects the version order. */
    type: text('type').notNull(),
    /** Distribution release the entry is limited to (Debian), or null. */
    release: text('release'),
    ranges: jsonb('ranges').$type<{ type: string; events: Record<string, string>[] }[]>().notNull(),
    versions: text('versions').array().notNull(),
    /**
     * The record's aliases, written with its entries (a record's entries are rewritten whenever it
     * is): matching reads a package's entries from this table alone. Joined to the records for them,
     * each lookup read the whole records table (ADR 0029 addendum). Null on an entry the release
     * before migration 0040 wrote during a rolling upgrade: the record's are read then.
     */
    aliases: text('aliases').array(),
  },
  (t) => [primaryKey({ columns: [t.recordId, t.ordinal] }), index('vulndb_affected_package_idx').on(t.packageKey)],
);

/** The CISA Known Exploited Vulnerabilities catalog, by CVE. */
export const vulndbKev = pgTable('vulndb_kev', {
  cveId: text('cve_id').primaryKey(),
  vendorProject: text('vendor_project').notNull(),
  product: text('product').notNull(),
  name: text('name').notNull(),
  dateAdded: date('date_added').notNull(),
  dueDate: date('due_date'),
  requiredAction: text('required_action').notNull(),
  knownRansomware: text('known_ransomware').notNull(),
});

/** FIRST EPSS scores, by CVE. */
export const vulndbEpss = pgTable('vulndb_epss', {
  cveId: text('cve_id').primaryKey(),
  score: doublePrecision('score').notNull(),
  percentile: doublePrecision('percentile').notNull(),
  scoreDate: date('score_date').notNull(),
});

/** What was last imported from each feed: conditional requests and idempotent re-imports. */
export const vulndbSources = pgTable('vulndb_sources', {
  source: text('source').primaryKey(),
  etag: text('etag'),
  lastModified: text('last_modified'),
  /** Null until a first import succeeded (a feed that has only failed so far). */
  sha256: text('sha256'),
  records: integer('records').notNull(),
  importedAt: instant('imported_at'),
  /** The last attempt of a synchronised feed (`url:` sources), and its error when it failed. */
  checkedAt: instant('checked_at'),
  lastError: text('last_error'),
});

/**
 * A known vulnerability in a component of a product's latest SBOM: one row per flaw (all its
 * aliases in `vulnIds`) and component version. Living: `resolvedAt` is set when a newer SBOM no
 * longer contains the vulnerable version, cleared if it comes back.
 */
export const vulnMatches = pgTable(
  'vuln_matches',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    /** The flaw's name: its CVE when it has one, else the lowest of its ids. */
    vulnKey: text('vuln_key').notNull(),
    vulnIds: text('vuln_ids').array().notNull(),
    recordIds: text('record_ids').array().notNull(),
    packageKey: text('package_key').notNull(),
    componentName: text('component_name').notNull(),
    componentVersion: text('component_version').notNull(),
    componentPurl: text('component_purl').notNull(),
    fixedVersion: text('fixed_version'),
    summary: text('summary'),
    cvssScore: doublePrecision('cvss_score'),
    cvssVector: text('cvss_vector'),
    /** The record of the flaw's alias group the CVSS vector comes from. */
    cvssSource: text('cvss_source'),
    /** One of its CVEs is in the CISA KEV catalog: kept with the row (set at match time and by KEV imports) so compliance reads it from here. */
    inKev: boolean('in_kev').notNull().default(false),
    /** The latest SBOM version it was seen in. */
    sbomId: uuid('sbom_id').references(() => sboms.id, { onDelete: 'set null' }),
    firstSeenAt: instant('first_seen_at').notNull(),
    lastSeenAt: instant('last_seen_at').notNull(),
    resolvedAt: instant('resolved_at'),
    /**
     * The team's decision (CycloneDX VEX analysis), null while untriaged. Kept on the row, so it
     * lasts as long as the match: later SBOM versions with the same component version keep it.
     */
    analysisState: text('analysis_state', { enum: ['in_triage', 'exploitable', 'not_affected', 'false_positive', 'resolved'] }),
    analysisJustification: text('analysis_justification'),
    analysisResponse: text('analysis_response').array(),
    analysisDetail: text('analysis_detail'),
    decidedAt: instant('decided_at'),
    decidedBy: text('decided_by'),
  },
  (t) => [
    uniqueIndex('vuln_matches_identity_key').on(t.productId, t.vulnKey, t.packageKey, t.componentVersion),
    index('vuln_matches_company_vuln_idx').on(t.companyId, t.vulnKey),
  ],
);

/** Per SBOM: when it was matched and what could not be (components shown, never dropped). */
export const sbomMatchRuns = pgTable('sbom_match_runs', {
  sbomId: uuid('sbom_id')
    .primaryKey()
    .references(() => sboms.id, { onDelete: 'cascade' }),
  companyId: companyIdColumn(),
  matchedAt: instant('matched_at').notNull(),
  components: integer('components').notNull(),
  matchable: integer('matchable').notNull(),
  /** Unmatchable components by reason (`no-purl`, `unsupported-ecosystem`, ...). */
  unmatched: jsonb('unmatched').$type<Record<string, number>>().notNull(),
});

/**
 * An SBOM version whose known-vulnerability match runs after its push answered (issue 33,
 * docs/evidence.md "Matching after the answer"): queued in the push's transaction, claimed by the
 * `known-vulns.match` job with a lease, deleted in the transaction that records the match.
 */
export const sbomMatchJobs = pgTable(
  'sbom_match_jobs',
  {
    sbomId: uuid('sbom_id')
      .primaryKey()
      .references(() => sboms.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** Lease of a running match, or the earliest next attempt after a failure; null = due now. */
    lockedUntil: instant('locked_until'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('sbom_match_jobs_company_idx').on(t.companyId), index('sbom_match_jobs_due_idx').on(t.lockedUntil, t.createdAt)],
);

/** Every decision recorded on a match, oldest first: the history the dashboard shows. */
export const vulnDecisions = pgTable(
  'vuln_decisions',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    matchId: uuid('match_id')
      .notNull()
      .references(() => vulnMatches.id, { onDelete: 'cascade' }),
    state: text('state').notNull(),
    justification: text('justification'),
    response: text('response').array(),
    detail: text('detail').notNull(),
    actor: text('actor').notNull(),
    decidedAt: instant('decided_at').notNull(),
  },
  (t) => [index('vuln_decisions_match_idx').on(t.matchId, t.decidedAt)],
);

/**
 * An awareness decision (CRA Article 14): a flaw in CISA KEV found in a component of a product on
 * the market. The team confirms (the awareness time is recorded and an Article 14 case opens as a
 * report, clocks running) or dismisses it with a reason. Nothing is reported to anyone by Cradle.
 */
export const kevAwareness = pgTable(
  'kev_awareness',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    vulnKey: text('vuln_key').notNull(),
    cveIds: text('cve_ids').array().notNull(),
    openedAt: instant('opened_at').notNull(),
    state: text('state', { enum: ['pending', 'confirmed', 'dismissed'] }).notNull(),
    decidedAt: instant('decided_at'),
    decidedBy: text('decided_by'),
    reason: text('reason'),
    /** The report (Article 14 case) a confirmation opened. */
    reportId: uuid('report_id'),
  },
  (t) => [uniqueIndex('kev_awareness_product_vuln_key').on(t.productId, t.vulnKey), index('kev_awareness_company_state_idx').on(t.companyId, t.state)],
);
