import { type Column, getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable, PgView } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import * as s from '../../db/schema/index.js';

/**
 * What `GET {base_url}/export` carries: one section per company-scoped table, every column except
 * the ones named in `omit` (with the reason). The export reads tables directly, unlike every other
 * verb: it must reach every record of the company, and test/modules/export/company-export.test.ts fails
 * when a company-scoped table is neither a section here nor in EXPORT_EXCLUDED.
 */
export type Section = {
  /** The JSON property of the section (camelCase). */
  name: string;
  table: PgTable;
  /** Keyset paging order: a unique key of the table, so pages neither skip nor repeat rows. */
  keys: Column[];
  /** Columns left out (property name -> why). */
  omit?: Record<string, string>;
  /** Rows per query; small for tables that carry whole documents. */
  pageSize?: number;
  /** Rows left out beyond the company filter: a push's staged components until its SBOM is stored (sboms.stage.ts). */
  only?: SQL;
  /** A view with the table's columns that the rows are read through: the findings as their stored scans left them (ADR 0025). */
  readThrough?: PgView;
  description: string;
};

/** The rows of an SBOM that is stored, not those a push is still writing (or left behind when the process stopped). */
const ofStoredSbom = (sbomId: Column) => sql`exists (select 1 from ${s.sboms} where ${s.sboms.id} = ${sbomId})`;

const SECRET = 'a secret: the export never carries credentials or their digests';

export const COMPANY_OMIT: Record<string, string> = {};

export const EXPORT_SECTIONS: readonly Section[] = [
  {
    name: 'admins',
    table: s.users,
    keys: [s.users.id],
    omit: {
      passwordHash: SECRET,
      totpSecret: SECRET,
      totpPendingSecret: SECRET,
      totpLastStep: 'the last accepted second-factor time step, kept to refuse a replayed code',
    },
    description: 'Dashboard members (role, whether a second factor is on since when).',
  },
  {
    name: 'invitations',
    table: s.invitations,
    keys: [s.invitations.id],
    omit: { tokenDigest: SECRET },
    description: 'Invitations to join the team: address, role, who invited, when sent, accepted or revoked; never the link.',
  },
  {
    name: 'apiKeys',
    table: s.apiKeys,
    keys: [s.apiKeys.id],
    omit: { keyDigest: SECRET },
    description: 'API key metadata (name, scopes, allowlist, expiry, last use); never the value or its digest.',
  },
  { name: 'products', table: s.products, keys: [s.products.id], description: 'Registered products.' },
  {
    name: 'reports',
    table: s.reports,
    keys: [s.reports.id],
    omit: { statusTokenDigest: SECRET, researcherMailToken: SECRET },
    description: 'Vulnerability reports with their triage facts (`id` is the submissionId).',
  },
  { name: 'reportHistory', table: s.reportEvents, keys: [s.reportEvents.id], description: 'Every status change and triage fact change of a report.' },
  { name: 'article14Filings', table: s.article14Filings, keys: [s.article14Filings.id], description: 'Recorded Article 14 filings.' },
  { name: 'triageJobs', table: s.triageJobs, keys: [s.triageJobs.id], description: 'AI triage jobs.' },
  {
    name: 'webhooks',
    table: s.webhooks,
    keys: [s.webhooks.id],
    omit: { secret: SECRET, previousSecret: SECRET },
    description: 'Webhook endpoints, without their signing secrets.',
  },
  {
    name: 'upstreamSettings',
    table: s.upstreamSettings,
    keys: [s.upstreamSettings.companyId],
    omit: { githubToken: SECRET },
    description: 'Upstream settings: the package URL prefixes the company maintains and when its GitHub token was set (never the token).',
  },
  { name: 'events', table: s.outboxEvents, keys: [s.outboxEvents.id], description: 'Events emitted to webhooks, with their payloads.' },
  { name: 'webhookDeliveries', table: s.webhookDeliveries, keys: [s.webhookDeliveries.id], description: 'One event to one endpoint.' },
  { name: 'webhookAttempts', table: s.webhookAttempts, keys: [s.webhookAttempts.id], description: 'Every delivery attempt, with the capped response.' },
  { name: 'sboms', table: s.sboms, keys: [s.sboms.id], description: 'SBOM versions (metadata).' },
  {
    name: 'sbomDocuments',
    table: s.sbomDocuments,
    keys: [s.sbomDocuments.sbomId],
    pageSize: 20,
    description: 'The SBOM documents as pushed: `content` is base64 of the gzip-compressed bytes.',
  },
  {
    name: 'sbomDiffs',
    table: s.sbomDiffs,
    keys: [s.sbomDiffs.sbomId],
    pageSize: 20,
    description: 'The component diff of each SBOM against the version before it, as computed at push time.',
  },
  {
    name: 'sbomComponents',
    table: s.sbomComponents,
    keys: [s.sbomComponents.sbomId, s.sbomComponents.ordinal],
    only: ofStoredSbom(s.sbomComponents.sbomId),
    description: 'Normalised components of each SBOM.',
  },
  {
    name: 'sbomDependencies',
    table: s.sbomDependencies,
    keys: [s.sbomDependencies.sbomId, s.sbomDependencies.fromRef, s.sbomDependencies.toRef],
    only: ofStoredSbom(s.sbomDependencies.sbomId),
    description: 'Dependency graph edges of each SBOM.',
  },
  {
    name: 'sarifScans',
    table: s.sarifScans,
    keys: [s.sarifScans.id],
    pageSize: 20,
    description: 'Pushed SARIF logs: `document` is base64 of the gzip-compressed log.',
  },
  { name: 'findings', table: s.findings, readThrough: s.publishedFindings, keys: [s.findings.id], description: 'Scan findings.' },
  {
    name: 'triageSuggestions',
    table: s.triageSuggestions,
    keys: [s.triageSuggestions.id],
    description: 'Triage suggestions made for reports, and the decisions on them.',
  },
  { name: 'reportMessages', table: s.reportMessages, keys: [s.reportMessages.id], description: 'Messages between the company and researchers about a report.' },
  { name: 'reportNotes', table: s.reportNotes, keys: [s.reportNotes.id], description: "The team's notes on reports (never shown to researchers)." },
  {
    name: 'responseAlerts',
    table: s.responseAlerts,
    keys: [s.responseAlerts.id],
    description: 'Overdue response clocks announced (acknowledgement, assessment).',
  },
  {
    name: 'savedFilters',
    table: s.savedFilters,
    keys: [s.savedFilters.id],
    description: "Members' and API keys' saved inbox filters (name and criteria).",
  },
  { name: 'article14Alerts', table: s.article14Alerts, keys: [s.article14Alerts.id], description: 'Article 14 deadline alerts sent (approaching, overdue).' },
  { name: 'attestations', table: s.attestations, keys: [s.attestations.id], description: 'Compliance attestations, including withdrawn ones.' },
  {
    name: 'productCraFacts',
    table: s.productCraFacts,
    keys: [s.productCraFacts.productId],
    description: 'CRA facts per product (category, market placement, support period).',
  },
  {
    name: 'advisories',
    table: s.advisories,
    keys: [s.advisories.id],
    description: 'Security advisories (working copies, with VEX decisions and revision history).',
  },
  {
    name: 'advisoryDocuments',
    table: s.advisoryDocuments,
    keys: [s.advisoryDocuments.advisoryId, s.advisoryDocuments.kind, s.advisoryDocuments.version],
    pageSize: 50,
    description: 'Every released CSAF and VEX document, as the exact text served, with its hashes.',
  },
  {
    name: 'mailMessages',
    table: s.mailMessages,
    keys: [s.mailMessages.id],
    omit: { data: "a queued mail's template values, which may hold an invitation's link until it is sent" },
    description: 'E-mail queued and sent for the company (kind, recipient, state); what a mail said is kept only until it is sent.',
  },
  {
    name: 'mailPreferences',
    table: s.mailPreferences,
    keys: [s.mailPreferences.userId, s.mailPreferences.kind],
    description: "Each team member's e-mail choices.",
  },
  {
    name: 'knownVulnerabilities',
    table: s.vulnMatches,
    keys: [s.vulnMatches.id],
    description: "Known vulnerabilities matched in the components of each product's latest SBOM, open and resolved.",
  },
  {
    name: 'knownVulnerabilityDecisions',
    table: s.vulnDecisions,
    keys: [s.vulnDecisions.id],
    description: 'Every decision (VEX analysis) recorded on a known vulnerability, with its reason and who made it.',
  },
  {
    name: 'kevAwarenessDecisions',
    table: s.kevAwareness,
    keys: [s.kevAwareness.id],
    description: 'Awareness decisions (CRA Article 14) on vulnerabilities in CISA KEV found in products, with the report a confirmation opened.',
  },
  {
    name: 'sbomMatchJobs',
    table: s.sbomMatchJobs,
    keys: [s.sbomMatchJobs.sbomId],
    description: 'SBOM versions whose known-vulnerability match is still queued (pushed with more than 1,000 components).',
  },
  {
    name: 'sbomMatchRuns',
    table: s.sbomMatchRuns,
    keys: [s.sbomMatchRuns.sbomId],
    description: 'When each SBOM was matched against the advisory store, and which components could not be matched.',
  },
  {
    name: 'retentionPolicy',
    table: s.retentionPolicies,
    keys: [s.retentionPolicies.companyId],
    omit: { pseudonymSalt: 'the key of the researcher pseudonyms: with it, a guessed address could be tested against a pseudonym' },
    description: 'The retention policy: days after which each rule applies, and its last run (docs/retention.md).',
  },
  {
    name: 'legalHolds',
    table: s.legalHolds,
    keys: [s.legalHolds.id],
    description: 'Legal holds on reports, products or the whole company: reason, who placed and released them, when.',
  },
  {
    name: 'erasureRequests',
    table: s.erasureRequests,
    keys: [s.erasureRequests.id],
    description: "Researchers' erasure requests: the report, channel, pseudonym given and state; never the requester's address or browser string.",
  },
  { name: 'cases', table: s.cases, keys: [s.cases.id], description: 'Coordination cases (CRA Article 13(6)) with their embargo.' },
  {
    name: 'caseReports',
    table: s.caseReports,
    keys: [s.caseReports.caseId, s.caseReports.reportId],
    description: 'Which reports each coordination case holds.',
  },
  {
    name: 'caseParticipants',
    table: s.caseParticipants,
    keys: [s.caseParticipants.id],
    omit: { linkTokenDigest: "the digest of a participant's private link (a credential)" },
    description: 'The participants of each case: role, channel, status and dates, embargo answer.',
  },
  {
    name: 'caseNotices',
    table: s.caseNotices,
    keys: [s.caseNotices.id],
    description: 'Notices prepared for and sent to case participants, as shown before sending.',
  },
  { name: 'caseMessages', table: s.caseMessages, keys: [s.caseMessages.id], description: 'The thread shared with each case participant.' },
  {
    name: 'caseFixes',
    table: s.caseFixes,
    keys: [s.caseFixes.id],
    description: 'Fixes shared with the upstream of each case (patches, descriptions, OSV drafts).',
  },
  {
    name: 'caseAttachments',
    table: s.caseAttachments,
    keys: [s.caseAttachments.id],
    pageSize: 20,
    description: 'The files sent with case messages: `content` is base64 of the bytes.',
  },
  { name: 'caseEvents', table: s.caseEvents, keys: [s.caseEvents.id], description: 'The append-only log of each case.' },
  { name: 'auditLog', table: s.auditLog, keys: [s.auditLog.id], description: 'The audit log, oldest first.' },
];

/** Company-scoped tables deliberately not exported, with the reason. */
export const EXPORT_EXCLUDED: Record<string, string> = {
  sessions: 'dashboard sign-in sessions: token digests (credentials) that expire within hours, not records of the company',
  recovery_codes: 'digests of one-time second-factor recovery codes (credentials)',
  pending_sign_ins: 'sign-ins waiting for their second factor for at most 5 minutes: token digests (credentials)',
  company_data_versions: "counters of how often the company's data changed, kept for this instance's caches (ADR 0012), not records of the company",
  company_data_pending: 'rows that live only inside one transaction, never committed (ADR 0012)',
  sbom_stages: 'SBOM versions a push is still writing, for the seconds until it stores them: not yet records of the company',
  sarif_stages: 'the SARIF push each product is storing, for the seconds it takes: not a record of the company',
  finding_transitions:
    'fixes and reopenings of a SARIF push, exported as part of the findings once its scan is stored (the findings section reads them through)',
};

/** The exported columns of a table: property name -> column. */
export function exportedColumns(table: PgTable, omit: Record<string, string> = {}): Record<string, PgColumn> {
  return Object.fromEntries(Object.entries(getTableColumns(table) as Record<string, PgColumn>).filter(([k]) => !(k in omit)));
}

/** A column's value as JSON: times in ISO 8601, bytes in base64. */
export const jsonValue = (v: unknown): unknown => (v instanceof Date ? v.toISOString() : Buffer.isBuffer(v) ? v.toString('base64') : v);

function columnSchema(c: Column): z.ZodType {
  const base: z.ZodType =
    c.dataType === 'date'
      ? z.iso.datetime()
      : c.dataType === 'number'
        ? z.number()
        : c.dataType === 'boolean'
          ? z.boolean()
          : c.dataType === 'array'
            ? z.array(z.string())
            : c.dataType === 'json'
              ? z.unknown()
              : c.dataType === 'custom'
                ? z.string().meta({ description: 'base64' })
                : z.string();
  return c.notNull ? base : base.nullable();
}

/** The JSON schema of one exported row, from the table's columns (so it cannot drift from them). */
export function rowSchema(table: PgTable, omit: Record<string, string> | undefined, id: string): z.ZodObject {
  const shape = Object.fromEntries(Object.entries(exportedColumns(table, omit)).map(([k, c]) => [k, columnSchema(c)]));
  return z.object(shape).meta({ id, description: `A row of \`${getTableName(table)}\`.` });
}

const pascal = (name: string) => `${name[0]?.toUpperCase()}${name.slice(1)}`;

/** `GET {base_url}/export` body. */
export const CompanyExport = z
  .object({
    format: z.literal('cradle-company-export/1'),
    exportedAt: z.iso.datetime(),
    company: rowSchema(s.companies, COMPANY_OMIT, 'ExportCompany'),
    ...Object.fromEntries(
      EXPORT_SECTIONS.map((sec) => [sec.name, z.array(rowSchema(sec.table, sec.omit, `Export${pascal(sec.name)}Row`)).meta({ description: sec.description })]),
    ),
  })
  .meta({
    id: 'CompanyExport',
    description: 'Every record of the company. Field names are the stored columns in camelCase; times ISO 8601 UTC; bytes base64.',
  });
