import { onFirstUse } from '../../kernel/on-first-use.js';
import { newPackageUrl } from '../../kernel/package-url.js';
import { scoreCvss } from '../reports/cvss.js';

/**
 * A product version's CSAF `product_identification_helper` (CSAF 2.0 section 3.1.3.3; recommended
 * test 6.2.16 asks every product to have one): its package URL, and its CPE where one is known.
 */
export type ProductIdentification = { purl: string; cpe?: string };

/** A package URL for a product no SBOM describes: `pkg:generic/{vendor}/{name}@{version}`. */
export const genericPurl = (vendor: string, name: string, version: string): string =>
  newPackageUrl('generic', vendor, name, version, undefined, undefined).toString();

/** Product status decisions of an advisory or VEX statement (CSAF `product_status` groups). */
export type ProductStatus = 'fixed' | 'known_affected' | 'known_not_affected' | 'under_investigation';

/**
 * One product version. `identification` becomes its `product_identification_helper` (purl, CPE);
 * without one, a generic purl from vendor, name and version is written (CSAF 2.0 test 6.2.16).
 */
export type AdvisoryProduct = { key: string; vendor: string; name: string; version: string; identification?: ProductIdentification };

export type AdvisoryVulnerability = {
  title: string;
  cve?: string | null;
  /** Our own id (the report's submissionId or an internal tracking id). */
  internalId: string;
  cwe?: { id: string; name: string } | null;
  cvssVector?: string | null;
  description: string;
  status: Partial<Record<ProductStatus, string[]>>;
  /** For fixed and known_affected products: what users do. */
  remediation?: { category: 'vendor_fix' | 'mitigation' | 'workaround' | 'none_available' | 'no_fix_planned'; details: string; url?: string | null } | null;
  /** For known_not_affected products: why (VEX impact statement). */
  notAffectedJustification?: string | null;
  acknowledgments?: { names: string[]; organization?: string | null }[];
  /** Who took part in coordinating it (CSAF 2.0 section 3.2.3.4): the parties of the report's cases. */
  involvements?: Involvement[];
  /** Further ids (`system_name` and `text`) beside our own. */
  ids?: { systemName: string; text: string }[];
  /** VEX justifications of known_not_affected products: a CSAF 2.0 flag label per product group. */
  flags?: { label: NotAffectedJustification; keys: string[] }[];
  /** Impact statements per product group (CSAF threats of category impact). */
  impacts?: { details: string; keys: string[] }[];
};

/** CSAF 2.0 `involvements` (section 3.2.3.4): a party, its status, when, and in words. */
export type Involvement = {
  party: 'coordinator' | 'discoverer' | 'other' | 'user' | 'vendor';
  status: 'completed' | 'contact_attempted' | 'disputed' | 'in_progress' | 'not_contacted' | 'open';
  date?: Date | null;
  summary?: string;
};

/** The flag labels CSAF 2.0 (section 3.2.3.5) allows as the reason a product is not affected. */
export const NOT_AFFECTED_JUSTIFICATIONS = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'vulnerable_code_not_in_execute_path',
  'inline_mitigations_already_exist',
] as const;
export type NotAffectedJustification = (typeof NOT_AFFECTED_JUSTIFICATIONS)[number];

export type Advisory = {
  trackingId: string;
  title: string;
  category: 'csaf_security_advisory' | 'csaf_vex';
  publisher: { name: string; namespace: string; contactDetails?: string | null };
  status: 'draft' | 'interim' | 'final';
  revisions: { number: string; date: Date; summary: string }[];
  summary: string;
  /** Further document notes after the summary (e.g. a withdrawal notice). */
  notes?: { category: 'general' | 'details' | 'legal_disclaimer'; title: string; text: string }[];
  lang?: string;
  /**
   * Where the released document is served (its canonical URL): written as the `document.references`
   * item of category `self` (CSAF 2.0 section 3.2.1.11, recommended test 6.2.11). A draft preview,
   * never served, has none.
   */
  selfUrl?: string;
  products: AdvisoryProduct[];
  vulnerabilities: AdvisoryVulnerability[];
};

/**
 * CSAF 2.0 recommended test 6.2.13 ("sorting"): the keys of every object in alphabetical order.
 * The BSI validator (csaf-validator-lib) compares each object's keys with the same keys sorted by
 * `Intl.Collator` (case-insensitive, `_` before letters) and checks array elements, not the order
 * of arrays; so does this. A fixed locale keeps the bytes the same whatever the server's locale.
 * The collator is made on first use: making it maps ICU's collation data into the process, which
 * an idle server would otherwise keep resident (ADR 0027).
 */
const keyOrder = onFirstUse(() => new Intl.Collator('en'));
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (typeof value !== 'object' || value === null) return value;
  const order = keyOrder();
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => order.compare(a, b));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeysDeep(v)]));
}

const productId = (i: number) => `CSAFPID-${String(i + 1).padStart(4, '0')}`;

/**
 * A CSAF 2.0 document (security advisory or VEX) from an advisory. TLP:CLEAR is written as WHITE:
 * CSAF 2.0 predates TLP 2.0 and its schema knows only the TLP 1.0 labels. CVSS 4.0 has no place in
 * CSAF 2.0; such a vector goes into a note instead of `scores`. Keys are written in canonical order
 * (`sortKeysDeep`).
 */
export function csafDocument(a: Advisory): Record<string, unknown> {
  return sortKeysDeep(unsortedDocument(a)) as Record<string, unknown>;
}

function unsortedDocument(a: Advisory): Record<string, unknown> {
  const ids = new Map(a.products.map((p, i) => [p.key, productId(i)]));
  const pid = (key: string) => {
    const id = ids.get(key);
    if (!id) throw new Error(`advisory names an unknown product ${key}`);
    return id;
  };
  const vendors = [...new Set(a.products.map((p) => p.vendor))];
  const productTree = {
    branches: vendors.map((vendor) => ({
      category: 'vendor',
      name: vendor,
      branches: [...new Set(a.products.filter((p) => p.vendor === vendor).map((p) => p.name))].map((name) => ({
        category: 'product_name',
        name,
        branches: a.products
          .filter((p) => p.vendor === vendor && p.name === name)
          .map((p) => ({
            category: 'product_version',
            name: p.version,
            product: {
              product_id: pid(p.key),
              name: `${vendor} ${name} ${p.version}`,
              product_identification_helper: p.identification ?? { purl: genericPurl(vendor, name, p.version) },
            },
          })),
      })),
    })),
  };
  const sorted = [...a.revisions].sort((x, y) => x.date.getTime() - y.date.getTime());
  const first = sorted[0];
  const last = sorted.at(-1);
  if (!first || !last) throw new Error('an advisory needs at least one revision');
  return {
    document: {
      category: a.category,
      csaf_version: '2.0',
      distribution: { tlp: { label: 'WHITE' } },
      lang: a.lang ?? 'en',
      notes: [{ category: 'summary', title: 'Summary', text: a.summary }, ...(a.notes ?? [])],
      publisher: {
        category: 'vendor',
        name: a.publisher.name,
        namespace: a.publisher.namespace,
        ...(a.publisher.contactDetails ? { contact_details: a.publisher.contactDetails } : {}),
      },
      ...(a.selfUrl ? { references: [{ category: 'self', summary: 'Canonical URL', url: a.selfUrl }] } : {}),
      title: a.title,
      tracking: {
        current_release_date: last.date.toISOString(),
        generator: { engine: { name: 'Cradle' } },
        id: a.trackingId,
        initial_release_date: first.date.toISOString(),
        revision_history: sorted.map((r) => ({ date: r.date.toISOString(), number: r.number, summary: r.summary })),
        status: a.status,
        version: last.number,
      },
    },
    product_tree: productTree,
    vulnerabilities: a.vulnerabilities.map((v) => vulnerability(v, pid)),
  };
}

function vulnerability(v: AdvisoryVulnerability, pid: (k: string) => string): Record<string, unknown> {
  const status = Object.fromEntries(
    Object.entries(v.status)
      .filter(([, keys]) => keys && keys.length > 0)
      .map(([k, keys]) => [k, (keys as string[]).map(pid)]),
  );
  // The remediation and the score apply to the products still affected: a fixed version needs no
  // fix (the vendor's fix is what made it fixed), and a fixed one scored with the unfixed vector is
  // what CSAF 2.0 test 6.2.19 warns about (its environmental score should be 0).
  const affected = (v.status.known_affected ?? []).map(pid);
  const scored = affected;
  // Products still under investigation have no remediation yet, and say so (CSAF 2.0 test 6.2.2).
  const investigating = (v.status.under_investigation ?? []).map(pid);
  const remediations = [
    ...(v.remediation && affected.length > 0
      ? [{ category: v.remediation.category, details: v.remediation.details, product_ids: affected, ...(v.remediation.url ? { url: v.remediation.url } : {}) }]
      : []),
    ...(investigating.length > 0
      ? [{ category: 'none_available', details: 'Under investigation: no remediation is available yet.', product_ids: investigating }]
      : []),
  ];
  const notAffected = (v.status.known_not_affected ?? []).map(pid);
  const score = v.cvssVector ? scoreCvss(v.cvssVector) : undefined;
  const threats = [
    ...(notAffected.length > 0 && v.notAffectedJustification ? [{ category: 'impact', details: v.notAffectedJustification, product_ids: notAffected }] : []),
    ...(v.impacts ?? []).filter((i) => i.keys.length > 0).map((i) => ({ category: 'impact', details: i.details, product_ids: i.keys.map(pid) })),
  ];
  const notes: { category: string; title?: string; text: string }[] = [{ category: 'description', title: 'Description', text: v.description }];
  // CVSS 4.0 has no place in CSAF 2.0; a 3.1 vector with no product left to score is kept as a note too.
  if (score && (score.version === '4.0' || scored.length === 0))
    notes.push({ category: 'other', title: `CVSS ${score.version}`, text: `${score.vector} (base score ${score.baseScore}, ${score.severity})` });
  return {
    title: v.title,
    ...(v.cve ? { cve: v.cve } : {}),
    ids: [{ system_name: 'Cradle', text: v.internalId }, ...(v.ids ?? []).map((i) => ({ system_name: i.systemName, text: i.text }))],
    ...(v.cwe ? { cwe: v.cwe } : {}),
    notes,
    product_status: status,
    ...(score?.version === '3.1' && scored.length > 0
      ? {
          scores: [
            {
              products: scored,
              cvss_v3: { version: '3.1', vectorString: score.vector, baseScore: score.baseScore, baseSeverity: score.severity.toUpperCase() },
            },
          ],
        }
      : {}),
    ...(remediations.length > 0 ? { remediations } : {}),
    ...(v.flags?.length ? { flags: v.flags.filter((f) => f.keys.length > 0).map((f) => ({ label: f.label, product_ids: f.keys.map(pid) })) } : {}),
    ...(threats.length > 0 ? { threats } : {}),
    ...(v.involvements?.length
      ? {
          involvements: v.involvements.map((i) => ({
            party: i.party,
            status: i.status,
            ...(i.date ? { date: i.date.toISOString() } : {}),
            ...(i.summary ? { summary: i.summary } : {}),
          })),
        }
      : {}),
    ...(v.acknowledgments?.length
      ? { acknowledgments: v.acknowledgments.map((x) => ({ names: x.names, ...(x.organization ? { organization: x.organization } : {}) })) }
      : {}),
  };
}
