import { z } from 'zod';
import { Paging } from '../../kernel/paging.js';

const Identifier = z.string().min(1).max(200);

export const KnownVulnState = z.enum(['open', 'resolved', 'all']);

/** CycloneDX 1.6 VEX vocabulary (`vulnerabilities[].analysis`). */
export const ANALYSIS_STATES = ['in_triage', 'exploitable', 'not_affected', 'false_positive', 'resolved'] as const;
export const JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_configuration',
  'requires_dependency',
  'requires_environment',
  'protected_by_compiler',
  'protected_at_runtime',
  'protected_at_perimeter',
  'protected_by_mitigating_control',
] as const;
export const RESPONSES = ['can_not_fix', 'will_not_fix', 'update', 'rollback', 'workaround_available'] as const;

const DecisionFields = {
  state: z.enum(ANALYSIS_STATES).meta({ description: 'CycloneDX VEX analysis state.' }),
  justification: z.enum(JUSTIFICATIONS).optional().meta({ description: 'Why it is not affected: required with `not_affected`, refused otherwise.' }),
  response: z.array(z.enum(RESPONSES)).max(5).optional().meta({ description: 'What the team does about it (CycloneDX `analysis.response`).' }),
  detail: z
    .string()
    .trim()
    .min(1, 'say why: the reason is kept with the decision')
    .max(4000)
    .meta({ description: 'The reason, kept in the history and exported as the VEX detail.' }),
};
const justified = <T extends { state: string; justification?: string | undefined }>(v: T, ctx: z.RefinementCtx) => {
  if (v.state === 'not_affected' && !v.justification) ctx.addIssue({ code: 'custom', path: ['justification'], message: 'not_affected needs a justification' });
  if (v.state !== 'not_affected' && v.justification)
    ctx.addIssue({ code: 'custom', path: ['justification'], message: 'a justification applies only to not_affected' });
};

export const DecideInput = z.object(DecisionFields).strict().superRefine(justified).meta({ id: 'KnownVulnerabilityDecision' });
export type DecideInput = z.input<typeof DecideInput>;

export const DecideAcrossInput = z
  .object({
    vulnerability: z.string().min(1).max(200).meta({ description: 'Any id of the flaw (CVE, GHSA, OSV id).', example: 'CVE-2021-44228' }),
    product: Identifier.optional().meta({ description: "Only this product's matches; omit to decide for every product at once." }),
    ...DecisionFields,
  })
  .strict()
  .superRefine(justified)
  .meta({ id: 'KnownVulnerabilityDecisionAcross' });
export type DecideAcrossInput = z.input<typeof DecideAcrossInput>;

export const Analysis = z
  .object({
    state: z.enum(ANALYSIS_STATES),
    justification: z.enum(JUSTIFICATIONS).nullable(),
    response: z.array(z.enum(RESPONSES)),
    detail: z.string(),
    decidedAt: z.iso.datetime(),
    decidedBy: z.string(),
  })
  .meta({ id: 'KnownVulnerabilityAnalysis' });

export const ListKnownVulnsFilter = z
  .object({
    product: Identifier.optional().meta({ description: "Only this product's matches (its identifier)." }),
    state: KnownVulnState.default('open').meta({ description: '`open` (in the latest SBOM), `resolved` (gone from it) or `all`.' }),
    kev: z.enum(['true', 'false']).optional().meta({ description: '`true`: only vulnerabilities in the CISA KEV catalog; `false`: only those not in it.' }),
    minEpss: z.coerce.number().min(0).max(1).optional().meta({ description: 'Only vulnerabilities whose EPSS score is at least this (0-1).' }),
    minCvss: z.coerce.number().min(0).max(10).optional().meta({ description: 'Only vulnerabilities whose highest CVSS base score is at least this.' }),
    vulnerability: z.string().min(1).max(200).optional().meta({ description: 'Only this vulnerability, by any of its ids (CVE, GHSA, OSV id).' }),
    analysis: z
      .enum(['untriaged', ...ANALYSIS_STATES])
      .optional()
      .meta({ description: 'Only matches with this decision (`untriaged`: none yet).' }),
  })
  .strict();
export type ListKnownVulnsFilter = z.input<typeof ListKnownVulnsFilter>;
export const ListKnownVulnsQuery = z.object({ ...ListKnownVulnsFilter.shape, ...Paging.shape }).strict();

export const KnownVuln = z
  .object({
    id: z.uuid(),
    productIdentifier: z.string(),
    vulnerability: z.string().meta({ description: 'The flaw, named by its CVE when it has one.', example: 'CVE-2023-43804' }),
    ids: z.array(z.string()).meta({
      description: 'Every id of the flaw: the advisory records and their aliases, merged.',
      example: ['CVE-2023-43804', 'GHSA-v845-jxx5-vc9f', 'PYSEC-2023-192'],
    }),
    component: z.object({ name: z.string(), version: z.string(), purl: z.string() }),
    fixedVersion: z.string().nullable().meta({
      description:
        'The version to upgrade to: the lowest fix any record of the flaw (alias group) names above the installed version that none of them marks affected, written as the ecosystem writes it (Go with its `v`); null when there is none.',
    }),
    summary: z.string().nullable(),
    cvss: z
      .object({
        score: z.number(),
        vector: z.string(),
        source: z.string().nullable().meta({
          description: "The advisory record (any of the flaw's alias group) whose vector gave the score; null for a match stored before sources were kept.",
        }),
      })
      .nullable(),
    kev: z
      .object({ dateAdded: z.string(), dueDate: z.string().nullable(), knownRansomwareCampaignUse: z.string() })
      .nullable()
      .meta({ description: 'The CISA KEV entry of one of its CVEs: known to be exploited.' }),
    epss: z.object({ score: z.number(), percentile: z.number(), date: z.string() }).nullable(),
    state: z.enum(['open', 'resolved']),
    analysis: Analysis.nullable().meta({
      description: "The team's decision; null while untriaged. It lasts while the product's SBOMs keep this component version.",
    }),
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
      description:
        'Components that could not be matched, by reason: no-purl, invalid-purl, no-version, unsupported-ecosystem, no-distribution, version-not-comparable.',
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

export const Decision = z
  .object({
    state: z.enum(ANALYSIS_STATES),
    justification: z.enum(JUSTIFICATIONS).nullable(),
    response: z.array(z.enum(RESPONSES)),
    detail: z.string(),
    actor: z.string(),
    decidedAt: z.iso.datetime(),
  })
  .meta({ id: 'KnownVulnerabilityDecisionRecord' });
export type Decision = z.infer<typeof Decision>;
export const KnownVulnDetail = KnownVuln.extend({ history: z.array(Decision).meta({ description: 'Every decision on this match, oldest first.' }) }).meta({
  id: 'KnownVulnerabilityDetail',
});
export type KnownVulnDetail = z.infer<typeof KnownVulnDetail>;
export const DecisionResult = z.object({ updated: z.number().int(), items: z.array(KnownVuln) }).meta({ id: 'KnownVulnerabilityDecisionResult' });

export const KnownVulnVexQuery = z
  .object({
    product: Identifier.meta({ description: 'The product (identifier).' }),
    format: z.enum(['cyclonedx', 'openvex']).default('cyclonedx').meta({ description: 'CycloneDX 1.6 VEX or OpenVEX 0.2.0.' }),
  })
  .strict();
export const VexDocument = z
  .record(z.string(), z.unknown())
  .meta({ id: 'KnownVulnerabilityVex', description: 'A CycloneDX 1.6 VEX BOM or an OpenVEX 0.2.0 document.' });
