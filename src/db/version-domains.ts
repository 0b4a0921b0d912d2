/**
 * What invalidates what: the one list of version domains (docs/adr/0017-version-domains.md).
 *
 * A domain is a set of tables (and, for `companies`, columns) that database triggers watch. Every
 * committed transaction that changes a watched row raises the domain's version: per company for a
 * `company` domain (`company_data_versions`, raised once per transaction and company at its commit),
 * once for the whole database for the `global` one (`key_state_version`, raised in the changing
 * statement). An in-process cache names one domain; it answers from memory only while the version it
 * read for the request is the one its value was loaded at (src/db/company-read-cache.ts), and its loader may
 * read only the tables (and columns) its domain watches.
 *
 * Three tests hold this list true:
 * - test/db/version-domains.test.ts compares it with the triggers the database actually has (names,
 *   tables, events, watched columns) and with the `company_data_versions` domain check;
 * - test/db/cache-loaders.test.ts runs every cache's loader with statement logging and fails when a
 *   statement reads a table, or a `companies` column, outside the cache's domain;
 * - each cache's own test changes its data by hand in SQL and sees the change.
 *
 * Adding a table to a domain, or a domain, takes a migration that creates its triggers in the forms
 * of migration 0021 (`cradle_data_changed` for a table with `company_id`, `cradle_company_row_changed`
 * for `companies`); the catalog test names what is missing or extra.
 */

/** What an UPDATE must change to raise the version: any column, one of these, or any but these. */
export type UpdateWatch = 'any' | { columns: readonly string[] } | { except: readonly string[] };

/** One watched table: which writes raise the domain's version (delete includes truncate). */
export type TableWatch = { insert: boolean; update: UpdateWatch; delete: boolean };

export type VersionDomain = {
  /** `company`: one version per company; `global`: one version for the whole database. */
  scope: 'company' | 'global';
  /** Who reads through this domain (for the reader of this file; the loader test checks the tables). */
  readers: string;
  watches: Readonly<Record<string, TableWatch>>;
};

/** Every row of the table: insert, update, delete, truncate (statement triggers with transition tables). */
const ALL_ROWS: TableWatch = { insert: true, update: 'any', delete: true };

/** The evidence tables compliance evaluates, each watched whole (src/modules/compliance/gather-evidence.ts). */
const EVIDENCE = [
  'products',
  'product_cra_facts',
  'sboms',
  'sbom_components',
  'sarif_scans',
  'findings',
  'finding_transitions',
  'vuln_matches',
  'reports',
  'article14_filings',
  'attestations',
  'advisories',
  'advisory_documents',
  'case_reports',
  'case_participants',
] as const;

export const VERSION_DOMAINS = {
  /**
   * What API-key authentication reads (src/modules/keys/key-cache.ts). A new key raises nothing:
   * only keys that exist are cached. The last-use fields and the expiry notice are Cradle's own
   * bookkeeping, written once a minute per key; they must not empty every instance's cache.
   */
  keys: {
    scope: 'global',
    readers: 'API key cache (every authenticated REST and MCP request)',
    watches: {
      api_keys: { insert: false, update: { except: ['last_used_at', 'last_used_ip', 'expiry_notice_for'] }, delete: true },
      companies: { insert: false, update: { columns: ['id', 'plan', 'deletion_due_at'] }, delete: true },
    },
  },
  /** A company's own row, every column (src/modules/companies/portal-company-cache.ts). */
  company: {
    scope: 'company',
    readers: 'portal company cache (every portal page and report form)',
    watches: { companies: { insert: true, update: 'any', delete: true } },
  },
  /** The product catalogue alone: an SBOM, scan or report does not reload it (src/modules/products/list-products.ts). */
  products: {
    scope: 'company',
    readers: 'product list (GET /products, list_products)',
    watches: { products: ALL_ROWS },
  },
  /** The reports alone: an SBOM, scan, finding or product change does not reload an export page (src/modules/reports/export-reports.ts). */
  reports: {
    scope: 'company',
    readers: 'report export pages (GET /vulnerabilities/export, export_vulnerabilities)',
    watches: { reports: ALL_ROWS },
  },
  /** Everything the compliance evaluation and the public acknowledgments read. */
  compliance: {
    scope: 'company',
    readers: 'compliance facts (src/modules/compliance/facts-cache.ts), public credits (src/modules/advisories/public-credits.ts)',
    watches: {
      ...Object.fromEntries(EVIDENCE.map((t) => [t, ALL_ROWS])),
      companies: { insert: false, update: { columns: ['plan', 'security_email', 'policy_text', 'policy_url'] }, delete: false },
    },
  },
} as const satisfies Record<string, VersionDomain>;

export type DomainName = keyof typeof VERSION_DOMAINS;
/** The domains kept per company, in `company_data_versions`. */
export type CompanyDomain = { [K in DomainName]: (typeof VERSION_DOMAINS)[K]['scope'] extends 'company' ? K : never }[DomainName];

export const COMPANY_DOMAINS = (Object.keys(VERSION_DOMAINS) as DomainName[]).filter((d) => VERSION_DOMAINS[d].scope === 'company') as CompanyDomain[];

/** The tables a domain watches. */
export function watchedTables(domain: DomainName): string[] {
  return Object.keys(VERSION_DOMAINS[domain].watches);
}

/**
 * The columns of `table` a loader of `domain` may read: the watched ones and `id` (a row's id never
 * changes), or every column but the unwatched ones. Undefined: the domain does not watch the table.
 */
export function readableColumns(domain: DomainName, table: string): { only: Set<string> } | { except: Set<string> } | undefined {
  const watch = (VERSION_DOMAINS[domain].watches as Readonly<Record<string, TableWatch>>)[table];
  if (!watch) return undefined;
  if (watch.update === 'any') return { except: new Set() };
  if ('columns' in watch.update) return { only: new Set(['id', ...watch.update.columns]) };
  return { except: new Set(watch.update.except) };
}
