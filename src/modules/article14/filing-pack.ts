import type { z } from 'zod';
import type { Stage } from './article14-clock.js';
import type { PackField as PackFieldSchema } from './article14.schemas.js';

/** What a filing pack is built from: the report's fields and facts, and the manufacturer. */
export type PackSource = {
  manufacturer: string;
  securityEmail: string | null;
  basis: 'actively_exploited_vulnerability' | 'severe_incident';
  productName: string | null;
  description: string;
  impact: string | null;
  vulnerabilityType: string | null;
  cvssVector: string | null;
  severity: string | null;
  cwe: string | null;
  memberStates: string[];
  exploitationEvidence: string | null;
  awareAt: string | null;
  fixAvailableAt: string | null;
};

export type PackField = z.infer<typeof PackFieldSchema>;

const TODO = null;
const list = (xs: string[]) => (xs.length ? xs.join(', ') : null);

/**
 * The content each Article 14 stage requires (docs/workflow.md "Article 14 clocks and filing
 * packs"), pre-filled from the report where Cradle knows it and left empty (with a hint) where only
 * the company does. ENISA's Single Reporting Platform has no API: a person pastes this in, then
 * records the filing here.
 */
export function filingPack(stage: Stage, s: PackSource): PackField[] {
  const vuln = s.basis === 'actively_exploited_vulnerability';
  const common: PackField[] = [
    { label: 'Manufacturer', value: s.manufacturer, hint: 'as registered; contact for follow-up questions' },
    { label: 'Contact', value: s.securityEmail, hint: 'the single point of contact (Art. 13(17))' },
    { label: 'Product', value: s.productName, hint: 'name and affected versions' },
    { label: 'Member States where the product is available', value: list(s.memberStates), hint: 'required from the early warning on' },
  ];
  if (stage === 'early_warning') {
    return [
      ...common,
      vuln
        ? { label: 'Actively exploited vulnerability', value: s.exploitationEvidence, hint: 'the evidence of exploitation by a malicious actor' }
        : {
            label: 'Unlawful or malicious acts suspected',
            value: TODO,
            hint: 'say whether the incident is suspected to be caused by unlawful or malicious acts',
          },
      { label: 'Became aware at', value: s.awareAt, hint: 'the 24-hour clock runs from here' },
    ];
  }
  if (stage === 'notification') {
    return vuln
      ? [
          ...common,
          {
            label: 'General nature of the exploit and of the vulnerability',
            value: [s.vulnerabilityType, s.cwe, s.description].filter(Boolean).join(' | '),
            hint: "edit the researcher's description into a neutral summary",
          },
          { label: 'Corrective or mitigating measures taken', value: TODO, hint: 'what the manufacturer has done' },
          { label: 'Corrective or mitigating measures users can take', value: TODO, hint: 'workarounds, configuration changes' },
          { label: 'Sensitivity of the information', value: TODO, hint: 'how sensitive the notified information is, e.g. TLP' },
        ]
      : [
          ...common,
          { label: 'Nature of the incident', value: s.description, hint: 'what happened' },
          { label: 'Initial assessment', value: s.impact, hint: 'first assessment of the incident' },
          { label: 'Measures taken and measures for users', value: TODO, hint: 'corrective measures and what users can do' },
          { label: 'Sensitivity of the information', value: TODO, hint: 'how sensitive the notified information is' },
        ];
  }
  return vuln
    ? [
        ...common,
        {
          label: 'Description, severity and impact',
          value: [s.description, s.severity && `severity ${s.severity}`, s.cvssVector].filter(Boolean).join(' | '),
          hint: 'a full description including severity and impact',
        },
        { label: 'Information on the malicious actor', value: s.exploitationEvidence, hint: 'where available' },
        {
          label: 'Security update or other corrective measure',
          value: s.fixAvailableAt && `available since ${s.fixAvailableAt}`,
          hint: 'details of the update that fixes it',
        },
      ]
    : [
        ...common,
        {
          label: 'Detailed description, severity and impact',
          value: [s.description, s.impact].filter(Boolean).join(' | '),
          hint: 'full description of the incident',
        },
        { label: 'Type of threat or root cause', value: [s.vulnerabilityType, s.cwe].filter(Boolean).join(', ') || null, hint: 'what likely triggered it' },
        { label: 'Applied and ongoing mitigation measures', value: TODO, hint: 'what has been and is being done' },
      ];
}
