import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { bytea } from './bytea.js';
import { products } from './products.js';

/** One pushed SBOM: each push is a new version of the product's SBOM, with its diff counts. */
export const sboms = pgTable(
  'sboms',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    /** 1, 2, 3 ... per product, assigned under a per-product lock. */
    version: integer('version').notNull(),
    format: text('format', { enum: ['cyclonedx', 'spdx'] }).notNull(),
    specVersion: text('spec_version').notNull(),
    /** CycloneDX `serialNumber` or SPDX `documentNamespace`. */
    serialNumber: text('serial_number'),
    /** The product as the document names it (CycloneDX metadata.component, SPDX described package). */
    subjectName: text('subject_name'),
    subjectVersion: text('subject_version'),
    componentCount: integer('component_count').notNull(),
    dependencyCount: integer('dependency_count').notNull(),
    previousId: uuid('previous_id'),
    added: integer('added').notNull(),
    removed: integer('removed').notNull(),
    changed: integer('changed').notNull(),
    sha256: text('sha256').notNull(),
    byteSize: integer('byte_size').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [uniqueIndex('sboms_product_version_key').on(t.productId, t.version), index('sboms_company_created_idx').on(t.companyId, t.createdAt)],
);

/** The original document as pushed, gzip-compressed; apart so metadata reads never load it. */
export const sbomDocuments = pgTable('sbom_documents', {
  sbomId: uuid('sbom_id')
    .primaryKey()
    .references(() => sboms.id, { onDelete: 'cascade' }),
  companyId: uuid('company_id').notNull(),
  encoding: text('encoding', { enum: ['gzip'] }).notNull(),
  content: bytea('content').notNull(),
});

export type ComponentHash = { alg: string; content: string };

/**
 * The normalised component list of one SBOM, in document order (`ordinal` 0..n-1). `sbom_id` has no
 * foreign key since migration 0033: a push writes these rows before its SBOM row exists (staged,
 * `sbomStages` below); a trigger on `sboms` removes them with their SBOM as the cascade did.
 */
export const sbomComponents = pgTable(
  'sbom_components',
  {
    sbomId: uuid('sbom_id').notNull(),
    ordinal: integer('ordinal').notNull(),
    companyId: uuid('company_id').notNull(),
    /** CycloneDX bom-ref or SPDX SPDXID: the node name in the dependency graph. */
    ref: text('ref'),
    type: text('type'),
    group: text('group'),
    name: text('name').notNull(),
    version: text('version'),
    purl: text('purl'),
    cpe: text('cpe'),
    licenses: text('licenses')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    hashes: jsonb('hashes').$type<ComponentHash[]>().notNull().default([]),
    supplier: text('supplier'),
    /** The source repository the SBOM names (CycloneDX `vcs` reference, SPDX `downloadLocation`): where its maintainers are looked for. */
    vcsUrl: text('vcs_url'),
    /** The project's site the SBOM names (CycloneDX `website` reference, SPDX `homepage`). */
    websiteUrl: text('website_url'),
    /** From the dependency graph: reached from the product directly, only through others, or unknown. */
    relationship: text('relationship', { enum: ['direct', 'transitive', 'unknown'] }).notNull(),
    /** The package the known-vulnerability matcher knows it as (src/modules/vulndb/ecosystems.ts), or null. */
    packageKey: text('package_key'),
  },
  (t) => [
    primaryKey({ columns: [t.sbomId, t.ordinal] }),
    index('sbom_components_company_purl_idx').on(t.companyId, t.purl),
    // Feed updates find the components of changed packages across every company.
    index('sbom_components_package_idx').on(t.packageKey),
  ],
);

/**
 * Dependency graph edges of one SBOM, by ref ("from depends on to"), deduplicated by the
 * normaliser. Only indexed by SBOM: a unique key over two long text refs doubled the insert cost
 * of a 10,000-component graph (measured) and guarded nothing the code does not already ensure.
 */
export const sbomDependencies = pgTable(
  'sbom_dependencies',
  {
    /** No foreign key, as `sbomComponents.sbomId`. */
    sbomId: uuid('sbom_id').notNull(),
    companyId: uuid('company_id').notNull(),
    fromRef: text('from_ref').notNull(),
    toRef: text('to_ref').notNull(),
  },
  (t) => [index('sbom_dependencies_sbom_idx').on(t.sbomId)],
);

/**
 * SBOM ids whose components and graph a push is writing ahead of its transaction (issue 33,
 * src/modules/sboms/sboms.stage.ts): the push's transaction inserts the `sboms` row and removes
 * this one; a push that fails removes its rows, and one that never ended (the process stopped)
 * is swept by the company's next push once the entry is an hour old.
 */
export const sbomStages = pgTable(
  'sbom_stages',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('sbom_stages_company_created_idx').on(t.companyId, t.createdAt)],
);

/**
 * The component diff of an SBOM against the version before it, computed once in the push's
 * transaction and served as stored (issue 24: recomputing it on every read let a read-only key
 * spend seconds of the event loop). First versions have none: their diff is their components.
 */
export const sbomDiffs = pgTable('sbom_diffs', {
  sbomId: uuid('sbom_id')
    .primaryKey()
    .references(() => sboms.id, { onDelete: 'cascade' }),
  companyId: companyIdColumn(),
  diff: jsonb('diff').$type<{ added: unknown[]; removed: unknown[]; changed: unknown[] }>().notNull(),
});
