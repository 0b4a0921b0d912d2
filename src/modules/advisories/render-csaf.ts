import type { AdvisoryRevision } from '../../db/schema/index.js';
import type { Company } from '../companies/companies.schemas.js';
import type { AdvisoryRow } from './advisory-rows.js';
import {
  type Advisory,
  type AdvisoryVulnerability,
  csafDocument,
  type Involvement,
  type NotAffectedJustification,
  type ProductIdentification,
  type ProductStatus,
} from './csaf.js';

export type DocumentKind = 'csaf' | 'vex';

/** The VEX twin of an advisory has its own tracking id, so both can sit in one distribution. */
export const trackingIdOf = (trackingId: string, kind: DocumentKind): string => (kind === 'vex' ? `${trackingId}-VEX` : trackingId);

const CSAF_STATUS: Record<AdvisoryRow['products'][number]['status'], ProductStatus> = {
  known_affected: 'known_affected',
  fixed: 'fixed',
  not_affected: 'known_not_affected',
  under_investigation: 'under_investigation',
};

/**
 * The CSAF document of an advisory's working copy. `revisions` is the history to write: the
 * stored one plus the release being made, or a single "0" revision for a draft preview (CSAF
 * 2.0 test 6.1.17: version 0 is a draft). A withdrawn advisory carries a `general` note saying so.
 * `selfUrl`, given for a release, is where the portal serves the document (its `self` reference).
 * `identification` holds each product's purl and CPE (`identifyProducts`), in the row's order.
 */
export function renderCsaf(
  row: AdvisoryRow,
  company: Company,
  namespace: string,
  kind: DocumentKind,
  revisions: AdvisoryRevision[],
  status: 'draft' | 'final',
  extra: { selfUrl?: string; identification?: readonly ProductIdentification[]; involvements?: Involvement[] } = {},
): Record<string, unknown> {
  const { selfUrl, identification, involvements } = extra;
  const keyOf = (i: number) => `p${i}`;
  const groups: Partial<Record<ProductStatus, string[]>> = {};
  const flags = new Map<NotAffectedJustification, string[]>();
  const impacts: { details: string; keys: string[] }[] = [];
  row.products.forEach((p, i) => {
    (groups[CSAF_STATUS[p.status]] ??= []).push(keyOf(i));
    if (p.status === 'not_affected' && p.justification) {
      const list = flags.get(p.justification as NotAffectedJustification) ?? [];
      flags.set(p.justification as NotAffectedJustification, [...list, keyOf(i)]);
    }
    if (p.impact) impacts.push({ details: p.impact, keys: [keyOf(i)] });
  });
  const vulnerability: AdvisoryVulnerability = {
    title: row.title,
    cve: row.cve,
    internalId: row.reportId,
    ids: row.ids,
    cwe: row.cwe ? { id: row.cwe, name: row.cweName ?? row.cwe } : null,
    cvssVector: row.cvssVector,
    description: row.description,
    status: groups,
    remediation: row.remediation,
    flags: [...flags].map(([label, keys]) => ({ label, keys })),
    impacts,
    ...(involvements?.length ? { involvements } : {}),
    acknowledgments: row.acknowledgments.length ? [{ names: row.acknowledgments.map((a) => (a.organization ? `${a.name} (${a.organization})` : a.name)) }] : [],
  };
  const withdrawal = row.status === 'withdrawn' ? revisions.at(-1)?.summary : undefined;
  const advisory: Advisory = {
    trackingId: trackingIdOf(row.trackingId, kind),
    title: kind === 'vex' ? `VEX: ${row.title}` : row.title,
    category: kind === 'vex' ? 'csaf_vex' : 'csaf_security_advisory',
    publisher: { name: company.name, namespace, contactDetails: company.securityEmail },
    status,
    revisions: revisions.map((r) => ({ number: r.number, date: new Date(r.date), summary: r.summary })),
    summary: row.summary,
    ...(withdrawal ? { notes: [{ category: 'general' as const, title: 'Withdrawn', text: withdrawal }] } : {}),
    ...(selfUrl ? { selfUrl } : {}),
    products: row.products.map((p, i) => ({
      key: keyOf(i),
      vendor: p.vendor,
      name: p.name,
      version: p.version,
      ...(identification?.[i] ? { identification: identification[i] } : {}),
    })),
    vulnerabilities: [vulnerability],
  };
  return csafDocument(advisory);
}

/** A draft preview: the working copy as version 0, dated at its last edit. */
export const draftRevisions = (row: AdvisoryRow): AdvisoryRevision[] => [{ number: '0', date: row.updatedAt.toISOString(), summary: 'Draft, not released' }];
