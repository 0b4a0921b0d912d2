import { REQUIREMENTS, type Requirement, requirementById } from './catalog.js';
import { COMPANY_LEVEL_REQUIREMENTS, PRODUCTS_REGISTERED } from './company-level.js';
import type { Attestation, CompanyEvidence, ProductEvidence } from './evidence.js';

export type Verdict = 'met' | 'gap' | 'not_applicable' | 'not_assessed';

export type Assessment = {
  requirementId: string;
  /** null: a company-level verdict, given only while the company has no product (company-level.ts). */
  productId: string | null;
  verdict: Verdict;
  /** Why: the evidence behind the verdict, in words. */
  reason: string;
  /** What closes a gap (null unless the verdict is gap or not_assessed). */
  action: string | null;
  attestation: { author: string; attestedAt: string; expiresAt: string | null; note: string; evidenceUrl: string | null } | null;
};

const DAY = 86_400_000;
export const SBOM_MAX_AGE_DAYS = 90;
export const SCAN_MAX_AGE_DAYS = 30;
const FIVE_YEARS_MS = 5 * 365.25 * DAY;

const days = (from: Date, to: Date) => Math.floor((to.getTime() - from.getTime()) / DAY);

type Found = Pick<Assessment, 'verdict' | 'reason'> & { attestation?: Attestation };

/** The newest unexpired attestation of a requirement for this product (or for all products). */
function attested(c: CompanyEvidence, reqId: string, productId: string, now: Date): Attestation | undefined {
  return c.attestations
    .filter((a) => a.requirementId === reqId && (a.productId === null || a.productId === productId) && (!a.expiresAt || a.expiresAt > now))
    .sort((a, b) => b.attestedAt.getTime() - a.attestedAt.getTime())[0];
}

function fromAttestation(a: Attestation | undefined, what: string): Found {
  if (!a) return { verdict: 'not_assessed', reason: `no attestation yet: ${what}` };
  return a.verdict === 'met'
    ? { verdict: 'met', reason: `attested by ${a.author}: ${a.note}`, attestation: a }
    : { verdict: 'not_applicable', reason: `judged not applicable by ${a.author}: ${a.note}`, attestation: a };
}

/** The evidence rules about the company itself (no product needed); undefined for the others. */
function byCompanyEvidence(id: string, c: CompanyEvidence): Found | undefined {
  switch (id) {
    case 'cra-ai-p2-2':
      if (c.untriagedOverdue > 0) return { verdict: 'gap', reason: `${c.untriagedOverdue} report(s) waiting for triage longer than 7 days` };
      return { verdict: 'met', reason: c.untriagedTotal > 0 ? `${c.untriagedTotal} report(s) waiting, all within 7 days` : 'no report is waiting for triage' };
    case 'cra-ai-p2-5':
      return c.policyPublished
        ? { verdict: 'met', reason: 'a disclosure policy is published on the portal' }
        : { verdict: 'gap', reason: 'no disclosure policy is published' };
    case 'cra-ai-p2-6':
    case 'cra-aii-2-contact':
      return c.securityEmail && c.policyPublished
        ? { verdict: 'met', reason: `the portal form, security.txt and ${c.securityEmail}` }
        : { verdict: 'gap', reason: c.securityEmail ? 'no disclosure policy is published' : 'no security contact e-mail is set' };
    case 'cra-art13-17-contact':
      return c.securityEmail
        ? { verdict: 'met', reason: `${c.securityEmail} beside the web form` }
        : { verdict: 'gap', reason: 'only automated channels: no security contact e-mail is set' };
    case 'cra-art14-reporting':
      if (c.article14Overdue > 0) return { verdict: 'gap', reason: `${c.article14Overdue} Article 14 stage(s) overdue` };
      return { verdict: 'met', reason: c.article14FiledLate > 0 ? `no stage overdue (${c.article14FiledLate} filed late)` : 'no Article 14 stage overdue' };
    default:
      return undefined;
  }
}

/** Automatic evidence rules; undefined when the requirement is not evidence-based. */
function byEvidence(r: Requirement, c: CompanyEvidence, p: ProductEvidence, now: Date): Found | undefined {
  const company = byCompanyEvidence(r.id, c);
  if (company) return company;
  switch (r.id) {
    case 'cra-ai-p1-2a': {
      const { critical, high } = p.openFindings;
      const { kev, other } = p.knownVulns;
      if (p.exploitedUnfixed > 0) return { verdict: 'gap', reason: `${p.exploitedUnfixed} actively exploited report(s) not yet fixed` };
      if (kev > 0)
        return {
          verdict: 'gap',
          reason: `${kev} known exploited vulnerabilit${kev === 1 ? 'y' : 'ies'} (CISA KEV) in components of the latest SBOM, untriaged or exploitable`,
        };
      if (critical + high > 0) return { verdict: 'gap', reason: `${critical} critical and ${high} high open finding(s)` };
      if (other > 0)
        return { verdict: 'gap', reason: `${other} known vulnerabilit${other === 1 ? 'y' : 'ies'} in components of the latest SBOM, untriaged or exploitable` };
      if (!p.lastScanAt && !p.lastSbomAt) return { verdict: 'not_assessed', reason: 'no scan or SBOM yet: nothing to judge known vulnerabilities by' };
      return {
        verdict: 'met',
        reason: 'no open critical or high findings, no unaddressed known vulnerability in the latest SBOM and no unfixed actively exploited report',
      };
    }
    case 'cra-ai-p2-1':
      if (!p.lastSbomAt) return { verdict: 'gap', reason: 'no SBOM has been pushed for this product' };
      return days(p.lastSbomAt, now) > SBOM_MAX_AGE_DAYS
        ? { verdict: 'gap', reason: `the latest SBOM is ${days(p.lastSbomAt, now)} days old (more than ${SBOM_MAX_AGE_DAYS})` }
        : { verdict: 'met', reason: `SBOM pushed ${days(p.lastSbomAt, now)} day(s) ago` };
    case 'cra-ai-p2-3':
      if (!p.lastScanAt) return { verdict: 'gap', reason: 'no security scan has been pushed for this product' };
      return days(p.lastScanAt, now) > SCAN_MAX_AGE_DAYS
        ? { verdict: 'gap', reason: `the latest scan is ${days(p.lastScanAt, now)} days old (more than ${SCAN_MAX_AGE_DAYS})` }
        : { verdict: 'met', reason: `scanned ${days(p.lastScanAt, now)} day(s) ago` };
    case 'cra-ai-p2-4':
      return p.fixedWithoutAdvisory > 0 ? { verdict: 'gap', reason: `${p.fixedWithoutAdvisory} fixed report(s) without a published advisory` } : undefined;
    case 'cra-art13-8-support': {
      if (!p.supportEndsAt) return { verdict: 'gap', reason: 'no support period end is declared' };
      const start = p.placedOnMarketAt ?? now;
      const long = p.supportEndsAt.getTime() - start.getTime() >= FIVE_YEARS_MS;
      if (long) return { verdict: 'met', reason: `supported until ${p.supportEndsAt.toISOString().slice(0, 10)}` };
      return p.supportJustification
        ? { verdict: 'met', reason: `shorter than five years, justified: ${p.supportJustification}` }
        : { verdict: 'gap', reason: `support ends ${p.supportEndsAt.toISOString().slice(0, 10)}, less than five years, without a justification` };
    }
    case 'cra-aii-7-support-end':
      return p.supportEndsAt
        ? { verdict: 'met', reason: `end date ${p.supportEndsAt.toISOString().slice(0, 10)} declared` }
        : { verdict: 'gap', reason: 'no support period end is declared' };
    case 'cra-art13-5-components':
      if (p.sbomIdentifiedShare === null) return undefined;
      return p.sbomIdentifiedShare >= 0.9
        ? { verdict: 'met', reason: `${Math.round(p.sbomIdentifiedShare * 100)} % of components carry a purl or CPE` }
        : { verdict: 'gap', reason: `only ${Math.round(p.sbomIdentifiedShare * 100)} % of components carry a purl or CPE` };
    case 'cra-art13-6-upstream-notified': {
      const { thirdParty, unnotified } = p.upstream;
      if (unnotified > 0) return { verdict: 'gap', reason: `${unnotified} open report(s) in a third-party component without a notified upstream maintainer` };
      return {
        verdict: 'met',
        reason:
          thirdParty > 0
            ? `the maintainer was notified for each of ${thirdParty} open report(s) in a third-party component`
            : 'no open report concerns a third-party component',
      };
    }
    default:
      return undefined;
  }
}

/**
 * Verdicts for every requirement and product. An attestation decides attestation requirements and
 * fills in for hybrid ones without evidence; a "not applicable" attestation also overrides evidence
 * (with its justification, Art. 13(4)). Pure: same snapshot, same result.
 */
export function evaluate(c: CompanyEvidence, now: Date): Assessment[] {
  if (c.products.length === 0) return companyAssessments(c);
  return c.products.flatMap((p) =>
    REQUIREMENTS.map((r): Assessment => {
      const a = attested(c, r.id, p.id, now);
      let f: Found;
      if (a?.verdict === 'not_applicable') f = fromAttestation(a, r.evidence);
      else if (r.evaluation === 'attestation') f = fromAttestation(a, r.evidence);
      else f = byEvidence(r, c, p, now) ?? fromAttestation(a, r.evidence);
      const open = f.verdict === 'gap' || f.verdict === 'not_assessed';
      return {
        requirementId: r.id,
        productId: p.id,
        verdict: f.verdict,
        reason: f.reason,
        action: open ? r.action : null,
        attestation: f.attestation
          ? {
              author: f.attestation.author,
              attestedAt: f.attestation.attestedAt.toISOString(),
              expiresAt: f.attestation.expiresAt?.toISOString() ?? null,
              note: f.attestation.note,
              evidenceUrl: f.attestation.evidenceUrl,
            }
          : null,
      };
    }),
  );
}

/** With no product: the setup gap, and the company-level requirements judged once (productId null). */
function companyAssessments(c: CompanyEvidence): Assessment[] {
  const setup: Assessment = {
    requirementId: PRODUCTS_REGISTERED.id,
    productId: null,
    verdict: 'gap',
    reason: 'no product is registered, so no product requirement can be judged yet',
    action: PRODUCTS_REGISTERED.action,
    attestation: null,
  };
  return [
    setup,
    ...COMPANY_LEVEL_REQUIREMENTS.map((id): Assessment => {
      const f = byCompanyEvidence(id, c) as Found;
      const open = f.verdict === 'gap' || f.verdict === 'not_assessed';
      return {
        requirementId: id,
        productId: null,
        verdict: f.verdict,
        reason: f.reason,
        action: open ? (requirementById.get(id)?.action ?? null) : null,
        attestation: null,
      };
    }),
  ];
}

export type Summary = { met: number; gap: number; not_applicable: number; not_assessed: number; score: number };

/** Counts and a 0-100 score: met over everything that applies (not-applicable ones left out). */
export function summarise(list: readonly Assessment[]): Summary {
  const s = { met: 0, gap: 0, not_applicable: 0, not_assessed: 0 };
  for (const a of list) s[a.verdict]++;
  const applicable = s.met + s.gap + s.not_assessed;
  return { ...s, score: applicable === 0 ? 100 : Math.round((s.met / applicable) * 100) };
}
