import { uuidV5 } from '../../kernel/uuid5.js';
import { CATALOG_VERSION, requirementById } from './catalog.js';
import type { Assessment } from './evaluate.js';
import { OSCAL_VERSION } from './oscal-catalog.js';

export type ProductRef = { id: string; identifier: string; name: string };

/**
 * OSCAL assessment results: one result per product; one observation per assessed requirement
 * carrying the evidence in words; one finding per verdict targeting the catalog control's statement.
 * Not-applicable counts as satisfied with reason "other" and the justification in remarks; a
 * requirement not yet assessed is reviewed but has no finding. UUIDs are derived from the product,
 * requirement, verdict and evidence, so the same evidence always yields the same ids.
 */
export function oscalAssessmentResults(
  products: readonly ProductRef[],
  assessments: readonly Assessment[],
  now: Date,
  catalogHref: string,
): Record<string, unknown> {
  const results = products.map((p) => {
    const mine = assessments.filter((a) => a.productId === p.id);
    const assessed = mine.filter((a) => a.verdict !== 'not_assessed');
    const observations = assessed.map((a) => ({
      uuid: uuidV5(`observation:${p.id}:${a.requirementId}:${a.verdict}:${a.reason}`),
      title: `${a.requirementId}: ${a.verdict.replace('_', ' ')}`,
      description: a.reason,
      methods: [a.attestation ? 'INTERVIEW' : 'TEST'],
      collected: a.attestation?.attestedAt ?? now.toISOString(),
      ...(a.attestation?.evidenceUrl ? { links: [{ href: a.attestation.evidenceUrl, rel: 'evidence' }] } : {}),
    }));
    const findings = assessed.map((a, i) => ({
      uuid: uuidV5(`finding:${p.id}:${a.requirementId}:${a.verdict}:${a.reason}`),
      title: requirementById.get(a.requirementId)?.title ?? a.requirementId,
      description: a.action ? `${a.reason}. To close: ${a.action}` : a.reason,
      target: {
        type: 'statement-id',
        'target-id': `${a.requirementId}_smt`,
        status:
          a.verdict === 'gap'
            ? { state: 'not-satisfied', reason: 'fail' }
            : a.verdict === 'met'
              ? { state: 'satisfied', reason: 'pass' }
              : { state: 'satisfied', reason: 'other', remarks: `Not applicable: ${a.reason}` },
      },
      'related-observations': [{ 'observation-uuid': (observations[i] as { uuid: string }).uuid }],
    }));
    return {
      uuid: uuidV5(`result:${p.id}:${CATALOG_VERSION}`),
      title: `CRA assessment of ${p.name} (${p.identifier})`,
      description: `Automated evaluation of the Cyber Resilience Act requirements for ${p.name}, from the evidence Cradle holds and administrator attestations.`,
      start: now.toISOString(),
      'reviewed-controls': { 'control-selections': [{ 'include-controls': mine.map((a) => ({ 'control-id': a.requirementId })) }] },
      ...(observations.length ? { observations } : {}),
      ...(findings.length ? { findings } : {}),
    };
  });
  return {
    'assessment-results': {
      uuid: uuidV5(`assessment-results:${products.map((p) => p.id).join(',')}:${CATALOG_VERSION}`),
      metadata: {
        title: 'Cyber Resilience Act assessment results',
        'last-modified': now.toISOString(),
        version: CATALOG_VERSION,
        'oscal-version': OSCAL_VERSION,
      },
      'import-ap': { href: catalogHref, remarks: 'Cradle evaluates every control of its CRA catalog; the catalog is the assessment plan.' },
      results,
    },
  };
}
