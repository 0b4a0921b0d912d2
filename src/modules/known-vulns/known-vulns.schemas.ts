import { z } from 'zod';
import { Paging } from '../../kernel/paging.js';

const Identifier = z.string().min(1).max(200);

export const KnownVulnState = z.enum(['open', 'resolved', 'all']);

export const ListKnownVulnsFilter = z
  .object({
    product: Identifier.optional().meta({ description: "Only this product's matches (its identifier)." }),
    state: KnownVulnState.default('open').meta({ description: '`open` (in the latest SBOM), `resolved` (gone from it) or `all`.' }),
    kev: z.enum(['true', 'false']).optional().meta({ description: '`true`: only vulnerabilities in the CISA KEV catalog; `false`: only those not in it.' }),
    minEpss: z.coerce.number().min(0).max(1).optional().meta({ description: 'Only vulnerabilities whose EPSS score is at least this (0-1).' }),
    minCvss: z.coerce.number().min(0).max(10).optional().meta({ description: 'Only vulnerabilities whose highest CVSS base score is at least this.' }),
    vulnerability: z.string().min(1).max(200).optional().meta({ description: 'Only this vulnerability, by any of its ids (CVE, GHSA, OSV id).' }),
  })
  .strict();
export type ListKnownVulnsFilter = z.input<typeof ListKnownVulnsFilter>;
export const ListKnownVulnsQuery = z.object({ ...ListKnownVulnsFilter.shape, ...Paging.shape }).strict();

export const KnownVuln = z
  .object({
    id: z.uuid(),
    productIdentifier: z.string(),
    vulnerability: z.string().meta({ description: 'The flaw, named by its CVE when it has one.', example: 'CVE-2023-43804' }),
    ids: z.array(z.string()).meta({ description: 'Every id of the flaw: the advisory records and their aliases, merged.', example: ['CVE-2023-43804', 'GHSA-v845-jxx5-vc9f', 'PYSEC-2023-192'] }),
    component: z.object({ name: z.string(), version: z.string(), purl: z.string() }),
    fixedVersion: z.string().nullable().meta({ description: 'The version to upgrade to (the highest fix any record of the flaw names for this version line); null when none is known.' }),
    summary: z.string().nullable(),
    cvss: z.object({ score: z.number(), vector: z.string() }).nullable(),
    kev: z
      .object({ dateAdded: z.string(), dueDate: z.string().nullable(), knownRansomwareCampaignUse: z.string() })
      .nullable()
      .meta({ description: 'The CISA KEV entry of one of its CVEs: known to be exploited.' }),
    epss: z.object({ score: z.number(), percentile: z.number(), date: z.string() }).nullable(),
    state: z.enum(['open', 'resolved']),
    firstSeenAt: z.iso.datetime(),
    lastSeenAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'KnownVulnerability' });
export type KnownVuln = z.infer<typeof KnownVuln>;

export const MatchCoverage = z
  .object({
    sbomId: z.uuid(),
    matchedAt: z.iso.datetime(),
    components: z.number().int(),
    matchable: z.number().int().meta({ description: 'Components with a package URL of an ecosystem Cradle matches.' }),
    unmatched: z.record(z.string(), z.number().int()).meta({
      description: 'Components that could not be matched, by reason: no-purl, invalid-purl, no-version, unsupported-ecosystem, no-distribution, version-not-comparable.',
    }),
  })
  .meta({ id: 'MatchCoverage' });

export const KnownVulnPage = z
  .object({
    items: z.array(KnownVuln),
    nextOffset: z.number().int().nullable().meta({ description: 'Pass as `offset` for the next page; null on the last page.' }),
    coverage: MatchCoverage.nullable().meta({ description: "With `product`: how much of the product's latest SBOM could be matched." }),
  })
  .meta({ id: 'KnownVulnerabilityPage' });
export type KnownVulnPage = z.infer<typeof KnownVulnPage>;
