/**
 * The CRA requirement catalog: versioned data, written in our own words and citing Regulation (EU)
 * 2024/2847 (no official machine-readable catalog exists). `evaluation` says how a verdict is reached:
 * - `evidence`: computed from what the service holds (SBOMs, findings, reports, portal settings);
 * - `attestation`: only a person can know; an administrator attests with a note and an expiry;
 * - `hybrid`: evidence where the service has it, otherwise an attestation.
 * Ids are stable forever; a changed requirement gets a new catalog version, not a changed id.
 */
export const CATALOG_VERSION = '2026.12.0';

export const GROUPS = {
  'annex-i-part-i': 'Annex I Part I: security properties of the product',
  'annex-i-part-ii': 'Annex I Part II: vulnerability handling',
  'article-13': 'Article 13: obligations of manufacturers',
  'article-14': 'Article 14: reporting obligations',
  'annex-ii': 'Annex II: information and instructions for the user',
} as const;
export type GroupId = keyof typeof GROUPS;

export type Requirement = {
  id: string;
  group: GroupId;
  title: string;
  reference: string;
  evaluation: 'evidence' | 'attestation' | 'hybrid';
  /** What the verdict rests on. */
  evidence: string;
  /** What closes the gap. */
  action: string;
};

const p1 = (id: string, ref: string, title: string): Requirement => ({
  id: `cra-ai-p1-${id}`,
  group: 'annex-i-part-i',
  title,
  reference: `Annex I, Part I, point ${ref}`,
  evaluation: 'attestation',
  evidence: 'an administrator attestation describing how the product meets it, with a link to the evidence (design document, test report)',
  action: 'Attest how the product meets this property, or justify why it does not apply (Art. 13(4)).',
});

export const REQUIREMENTS: readonly Requirement[] = [
  p1('1', '(1)', 'Cybersecurity appropriate to the risks, based on a documented risk assessment'),
  {
    id: 'cra-ai-p1-2a',
    group: 'annex-i-part-i',
    reference: 'Annex I, Part I, point (2)(a)',
    evaluation: 'evidence',
    title: 'No known exploitable vulnerabilities when made available',
    evidence:
      'no open critical or high scan findings, no known vulnerability (OSV, CISA KEV) in the latest SBOM left untriaged or exploitable, and no actively exploited report left unfixed',
    action:
      'Fix or mitigate the actively exploited reports, the known vulnerabilities of the latest SBOM (KEV first: upgrade, or record a decision of not affected with its justification) and the open critical and high findings.',
  },
  p1('2b', '(2)(b)', 'Secure by default configuration, with a reset to the original state'),
  p1('2c', '(2)(c)', 'Vulnerabilities can be addressed through security updates, automatic by default where applicable'),
  p1('2d', '(2)(d)', 'Protection from unauthorised access, with reporting of possible unauthorised access'),
  p1('2e', '(2)(e)', 'Confidentiality of stored, transmitted and processed data'),
  p1('2f', '(2)(f)', 'Integrity of data, commands, programs and configuration, with reporting of corruption'),
  p1('2g', '(2)(g)', 'Only the data needed for the intended purpose is processed'),
  p1('2h', '(2)(h)', 'Availability of essential functions, including resilience against denial of service'),
  p1('2i', '(2)(i)', 'Minimal negative impact on other devices and networks'),
  p1('2j', '(2)(j)', 'Limited attack surfaces, including external interfaces'),
  p1('2k', '(2)(k)', 'Exploitation mitigation mechanisms that reduce the impact of incidents'),
  p1('2l', '(2)(l)', 'Security logging of relevant internal activity, with a user opt-out'),
  p1('2m', '(2)(m)', 'Users can securely remove all data and settings and transfer data'),
  {
    id: 'cra-ai-p2-1',
    group: 'annex-i-part-ii',
    reference: 'Annex I, Part II, point (1)',
    evaluation: 'evidence',
    title: 'Components and vulnerabilities identified, with a machine-readable SBOM',
    evidence: 'an SBOM for the product pushed within the last 90 days',
    action: 'Push a current CycloneDX or SPDX SBOM from the build pipeline (POST /api/v1/sboms).',
  },
  {
    id: 'cra-ai-p2-2',
    group: 'annex-i-part-ii',
    reference: 'Annex I, Part II, point (2)',
    evaluation: 'evidence',
    title: 'Vulnerabilities addressed and remediated without delay',
    evidence: 'reports acknowledged (triaged) within 7 days and none left untriaged longer',
    action: 'Triage the reports that are waiting, and fix the accepted ones.',
  },
  {
    id: 'cra-ai-p2-3',
    group: 'annex-i-part-ii',
    reference: 'Annex I, Part II, point (3)',
    evaluation: 'evidence',
    title: 'Effective and regular security tests and reviews',
    evidence: 'a security scan (SARIF) pushed for the product within the last 30 days',
    action: 'Run a security scanner in CI and push its SARIF output (POST /api/v1/sarif).',
  },
  {
    id: 'cra-ai-p2-4',
    group: 'annex-i-part-ii',
    reference: 'Annex I, Part II, point (4)',
    evaluation: 'hybrid',
    title: 'Fixed vulnerabilities publicly disclosed once an update is available',
    evidence: 'a published advisory for each fixed report, or an attestation of the disclosure practice',
    action: 'Publish an advisory (CSAF) for each fixed vulnerability.',
  },
  {
    id: 'cra-ai-p2-5',
    group: 'annex-i-part-ii',
    reference: 'Annex I, Part II, point (5)',
    evaluation: 'evidence',
    title: 'A coordinated vulnerability disclosure policy in place and enforced',
    evidence: 'a disclosure policy (text or URL) published on the company portal',
    action: 'Publish the disclosure policy in the portal settings.',
  },
  {
    id: 'cra-ai-p2-6',
    group: 'annex-i-part-ii',
    reference: 'Annex I, Part II, point (6)',
    evaluation: 'evidence',
    title: 'Sharing of vulnerability information facilitated, with a contact address for reports',
    evidence: 'the portal report form and a valid security.txt naming a contact',
    action: 'Set the security contact e-mail in the portal settings; the portal and security.txt do the rest.',
  },
  {
    id: 'cra-ai-p2-7',
    group: 'annex-i-part-ii',
    reference: 'Annex I, Part II, point (7)',
    evaluation: 'attestation',
    title: 'Mechanisms to distribute updates securely',
    evidence: 'an administrator attestation of the update distribution mechanism (signing, integrity)',
    action: 'Attest how updates are distributed and protected.',
  },
  {
    id: 'cra-ai-p2-8',
    group: 'annex-i-part-ii',
    reference: 'Annex I, Part II, point (8)',
    evaluation: 'attestation',
    title: 'Security updates disseminated without delay, free of charge, with advisories',
    evidence: 'an administrator attestation of the update and advisory practice',
    action: 'Attest that security updates are free and announced with advisories.',
  },
  {
    id: 'cra-art13-8-support',
    group: 'article-13',
    reference: 'Article 13(8) and (19)',
    evaluation: 'evidence',
    title: 'A support period of at least five years (or justified), with its end date stated',
    evidence: "the product's declared support-period end, at least five years after it was placed on the market, or a justification",
    action: 'Declare the support period end for the product, and a justification if it is shorter than five years.',
  },
  {
    id: 'cra-art13-17-contact',
    group: 'article-13',
    reference: 'Article 13(17)',
    evaluation: 'evidence',
    title: 'A single point of contact that is not limited to automated tools',
    evidence: 'a security contact e-mail read by people, beside the web form',
    action: 'Set a security contact e-mail (a mailbox people read) in the portal settings.',
  },
  {
    id: 'cra-art13-13-docs',
    group: 'article-13',
    reference: 'Article 13(13), Annex VII',
    evaluation: 'attestation',
    title: 'Technical documentation and EU declaration of conformity kept',
    evidence: 'an administrator attestation with the location of the technical documentation',
    action: 'Attest where the technical documentation and declaration of conformity are kept.',
  },
  {
    id: 'cra-art13-5-components',
    group: 'article-13',
    reference: 'Article 13(5) and (6)',
    evaluation: 'hybrid',
    title: 'Due diligence on third-party components',
    evidence: 'SBOM components carrying package URLs or CPEs so they can be matched to advisories',
    action: 'Generate SBOMs that identify components by purl or CPE.',
  },
  {
    id: 'cra-art13-6-upstream-notified',
    group: 'article-13',
    reference: 'Article 13(6)',
    evaluation: 'evidence',
    title: 'Maintainers of affected third-party components told of the vulnerability',
    evidence:
      'open reports marked with the third-party component they lie in (componentPurl), and the coordination cases holding them that notified an upstream maintainer',
    action: "Open a coordination case from the report and notify the component's maintainer (participant role upstream_maintainer).",
  },
  {
    id: 'cra-art14-reporting',
    group: 'article-14',
    reference: 'Article 14(1)-(4)',
    evaluation: 'evidence',
    title: 'Actively exploited vulnerabilities and severe incidents reported on time',
    evidence: 'every due Article 14 stage of every report filed before its deadline',
    action: "File the overdue Article 14 stages in ENISA's Single Reporting Platform and record them.",
  },
  {
    id: 'cra-aii-2-contact',
    group: 'annex-ii',
    reference: 'Annex II, point (2)',
    evaluation: 'evidence',
    title: 'Users told where to report vulnerabilities and where the disclosure policy is',
    evidence: 'the public portal with its policy, and security.txt',
    action: 'Publish the disclosure policy and the security contact in the portal settings.',
  },
  {
    id: 'cra-aii-7-support-end',
    group: 'annex-ii',
    reference: 'Annex II, point (7)',
    evaluation: 'evidence',
    title: 'Users told the end date of the support period',
    evidence: "the product's declared support-period end",
    action: 'Declare the support period end for the product.',
  },
  {
    id: 'cra-aii-8-instructions',
    group: 'annex-ii',
    reference: 'Annex II, point (8)',
    evaluation: 'attestation',
    title: 'Instructions for secure use, updates and decommissioning',
    evidence: 'an administrator attestation with a link to the user instructions',
    action: 'Attest where the user instructions are published.',
  },
];

export const requirementById = new Map(REQUIREMENTS.map((r) => [r.id, r]));
