import { CATALOG_VERSION, GROUPS, REQUIREMENTS, requirementById } from './catalog.js';
import type { z } from 'zod';
import type { Assessments, ComplianceGaps, ComplianceStatus, Mappings, NextDeadlineBody, NextTaskBody } from './compliance.schemas.js';
import { type Assessment, evaluate, summarise } from './evaluate.js';
import type { ProductEvidence } from './evidence.js';
import type { EvidenceSnapshot } from './evidence-snapshot.js';
import { type Deadline, nextTask, upcomingDeadlines } from './next.js';
import { actionPath, PRODUCTS_REGISTERED } from './company-level.js';

const describe = (id: string) => requirementById.get(id) ?? (id === PRODUCTS_REGISTERED.id ? PRODUCTS_REGISTERED : undefined);

/**
 * The compliance reads, as pure functions of one evidence snapshot: the HTTP operations, the MCP
 * tools and the dashboard all render these, so they cannot disagree.
 */
export type Evaluated = { snapshot: EvidenceSnapshot; assessments: Assessment[] };

export const evaluateSnapshot = (snapshot: EvidenceSnapshot): Evaluated => ({ snapshot, assessments: evaluate(snapshot.evidence, snapshot.takenAt) });

/** Art. 32: which conformity assessment procedures a category allows. */
export const CONFORMITY_ROUTE: Record<ProductEvidence['category'], string> = {
  default: 'internal control (module A, Art. 32(1)): self-assessment by the manufacturer',
  important_i:
    'module A only with harmonised standards, common specifications or a European certification applied in full; otherwise EU-type examination (modules B+C) or full quality assurance (module H) (Art. 32(2))',
  important_ii: 'EU-type examination (modules B+C), full quality assurance (module H), or a European cybersecurity certification (Art. 32(3))',
  critical:
    'a European cybersecurity certification at assurance level substantial or higher where one is required (Art. 8(1)); otherwise as important class II (Art. 32(4))',
};

/** Where each evidence-based verdict comes from, for the mappings endpoint. */
const SOURCES: Record<string, string[]> = {
  'cra-ai-p1-2a': ['findings (open, by severity)', 'reports (actively exploited, not fixed, no fix available)', 'sboms', 'sarif scans'],
  'cra-ai-p2-1': ['sboms (latest per product and its age)'],
  'cra-ai-p2-2': ['reports (status new, and for how long)'],
  'cra-ai-p2-3': ['sarif scans (latest per product and its age)'],
  'cra-ai-p2-4': ['advisories (published, per fixed report)', 'attestations'],
  'cra-ai-p2-5': ['portal settings (disclosure policy text or URL)'],
  'cra-ai-p2-6': ['portal settings (security contact e-mail, disclosure policy)', 'security.txt'],
  'cra-art13-8-support': ['product CRA facts (placed on market, support end, justification)'],
  'cra-art13-17-contact': ['portal settings (security contact e-mail)'],
  'cra-art13-5-components': ['sboms (components with purl or CPE in the latest SBOM)', 'attestations'],
  'cra-art14-reporting': ['reports (actively exploited, severe incident, awareness and fix times)', 'article 14 filings'],
  'cra-aii-2-contact': ['portal settings (security contact e-mail, disclosure policy)', 'security.txt'],
  'cra-aii-7-support-end': ['product CRA facts (support end)'],
};

const iso = (d: Date) => d.toISOString();
const ref = (p: ProductEvidence) => ({ id: p.id, identifier: p.identifier, name: p.name });
function byProduct(e: Evaluated): (id: string) => Assessment[] {
  const groups = new Map<string, Assessment[]>();
  for (const a of e.assessments) {
    if (a.productId === null) continue;
    const g = groups.get(a.productId);
    if (g) g.push(a);
    else groups.set(a.productId, [a]);
  }
  return (id) => groups.get(id) ?? [];
}

export function statusView(e: Evaluated): z.infer<typeof ComplianceStatus> {
  const forProduct = byProduct(e);
  return {
    catalogVersion: CATALOG_VERSION,
    evaluatedAt: iso(e.snapshot.takenAt),
    overall: summarise(e.assessments),
    products: e.snapshot.evidence.products.map((p) => ({
      ...ref(p),
      category: p.category,
      conformityRoute: CONFORMITY_ROUTE[p.category],
      supportEndsAt: p.supportEndsAt ? iso(p.supportEndsAt) : null,
      summary: summarise(forProduct(p.id)),
    })),
  };
}

/**
 * Open requirement-product pairs: gaps first, then the not yet assessed, each in catalog order.
 * With no product, the company-level gaps (product null), the missing products first.
 */
export function gapsView(e: Evaluated): z.infer<typeof ComplianceGaps> {
  const products = new Map(e.snapshot.evidence.products.map((p) => [p.id, p]));
  const order = new Map(REQUIREMENTS.map((r, i) => [r.id, i]));
  const open = e.assessments.filter((a) => a.verdict === 'gap' || a.verdict === 'not_assessed');
  open.sort((a, b) => Number(a.verdict !== 'gap') - Number(b.verdict !== 'gap') || (order.get(a.requirementId) ?? -1) - (order.get(b.requirementId) ?? -1));
  return {
    catalogVersion: CATALOG_VERSION,
    evaluatedAt: iso(e.snapshot.takenAt),
    gaps: open.map((a) => {
      const r = describe(a.requirementId);
      const product = a.productId === null ? undefined : products.get(a.productId);
      return {
        requirementId: a.requirementId,
        title: r?.title ?? a.requirementId,
        reference: r?.reference ?? '',
        product: product ? ref(product) : null,
        verdict: a.verdict as 'gap' | 'not_assessed',
        reason: a.reason,
        action: a.action ?? r?.action ?? '',
        actionPath: actionPath(a.requirementId, product?.identifier ?? null),
      };
    }),
  };
}

export function nextTaskView(e: Evaluated): z.infer<typeof NextTaskBody> {
  const t = nextTask(e.assessments);
  const products = new Map(e.snapshot.evidence.products.map((p) => [p.id, p]));
  if (!t) return { evaluatedAt: iso(e.snapshot.takenAt), task: null };
  const { productIds, ...rest } = t;
  const list = productIds.flatMap((id) => {
    const p = products.get(id);
    return p ? [ref(p)] : [];
  });
  return { evaluatedAt: iso(e.snapshot.takenAt), task: { ...rest, products: list, actionPath: actionPath(t.requirementId, list[0]?.identifier ?? null) } };
}

/** Candidate deadlines of a snapshot (security.txt is renewed on every request, so it never lapses). */
export function deadlinesOf(s: EvidenceSnapshot): Deadline[] {
  const names = new Map(s.evidence.products.map((p) => [p.id, p.name]));
  return [
    ...s.openStages.map((o): Deadline => ({
      kind: 'article14_stage',
      at: o.dueAt,
      reportId: o.reportId,
      what: `Article 14 ${o.stage.replace('_', ' ')} of report ${o.reportId}`,
    })),
    ...s.evidence.products.flatMap((p): Deadline[] =>
      p.supportEndsAt ? [{ kind: 'support_period_end', at: p.supportEndsAt, productId: p.id, what: `support period of ${p.name} ends` }] : [],
    ),
    ...s.evidence.attestations.flatMap((a): Deadline[] =>
      a.expiresAt
        ? [
            {
              kind: 'attestation_expiry',
              at: a.expiresAt,
              requirementId: a.requirementId,
              ...(a.productId ? { productId: a.productId } : {}),
              what: `attestation of ${a.requirementId}${a.productId ? ` for ${names.get(a.productId) ?? a.productId}` : ''} expires`,
            },
          ]
        : [],
    ),
  ];
}

export function nextDeadlineView(s: EvidenceSnapshot): z.infer<typeof NextDeadlineBody> {
  const all = upcomingDeadlines(deadlinesOf(s), s.takenAt).map((d) => ({ ...d, at: iso(d.at) }));
  return { evaluatedAt: iso(s.takenAt), deadline: all[0] ?? null, upcoming: all.slice(1, 11) };
}

export function mappingsView(): z.infer<typeof Mappings> {
  return {
    catalogVersion: CATALOG_VERSION,
    groups: { ...GROUPS },
    requirements: REQUIREMENTS.map((r) => ({
      id: r.id,
      group: r.group,
      title: r.title,
      reference: r.reference,
      evaluation: r.evaluation,
      evidence: r.evidence,
      sources: [...(SOURCES[r.id] ?? []), ...(r.evaluation === 'attestation' ? ['attestations'] : [])],
      action: r.action,
    })),
  };
}

export function assessmentsView(e: Evaluated): z.infer<typeof Assessments> {
  const forProduct = byProduct(e);
  return {
    catalogVersion: CATALOG_VERSION,
    evaluatedAt: iso(e.snapshot.takenAt),
    products: e.snapshot.evidence.products.map((p) => {
      const mine = forProduct(p.id);
      return {
        ...ref(p),
        category: p.category,
        conformityRoute: CONFORMITY_ROUTE[p.category],
        summary: summarise(mine),
        assessments: mine.map(({ productId: _p, ...a }) => {
          const r = requirementById.get(a.requirementId);
          return { ...a, title: r?.title ?? a.requirementId, reference: r?.reference ?? '' };
        }),
      };
    }),
  };
}
