/** Everything the evaluator needs about one company, gathered once (a snapshot), so evaluation stays pure. */
export type Attestation = {
  requirementId: string;
  /** Applies to one product, or to every product when null. */
  productId: string | null;
  verdict: 'met' | 'not_applicable';
  note: string;
  evidenceUrl: string | null;
  author: string;
  attestedAt: Date;
  expiresAt: Date | null;
};

export type ProductEvidence = {
  id: string;
  identifier: string;
  name: string;
  category: 'default' | 'important_i' | 'important_ii' | 'critical';
  placedOnMarketAt: Date | null;
  supportEndsAt: Date | null;
  supportJustification: string | null;
  lastSbomAt: Date | null;
  /** Share (0..1) of the latest SBOM's components identified by purl or CPE; null without an SBOM. */
  sbomIdentifiedShare: number | null;
  lastScanAt: Date | null;
  openFindings: { critical: number; high: number; medium: number; low: number };
  /** Reports naming this product that are actively exploited and not yet fixed. */
  exploitedUnfixed: number;
  /**
   * Known vulnerabilities in the latest SBOM's components still unaddressed (untriaged, in triage
   * or exploitable), those in CISA KEV apart.
   */
  knownVulns: { kev: number; other: number };
  /** Fixed reports of this product without a published advisory. */
  fixedWithoutAdvisory: number;
  /** Article 13(6): open reports naming this product in a third-party component, and those whose maintainer no case notified. */
  upstream: { thirdParty: number; unnotified: number };
};

export type CompanyEvidence = {
  policyPublished: boolean;
  securityEmail: string | null;
  /** Reports waiting for triage longer than the acknowledgement target. */
  untriagedOverdue: number;
  untriagedTotal: number;
  /** Article 14 stages past due and not filed, across all reports. */
  article14Overdue: number;
  article14FiledLate: number;
  attestations: Attestation[];
  products: ProductEvidence[];
};
