import { arr, obj, str } from '../../kernel/json-access.js';
import { classify, edgeCollector, type NormalComponent, type NormalSbom } from './sboms.normalised.js';

// "A X_DEPENDENCY_OF B" means B depends on A; DEPENDS_ON reads the other way. CONTAINS and the
// like are packaging, not dependency, and stay out of the graph.
const DEPENDENCY_OF = new Set([
  'DEPENDENCY_OF',
  'BUILD_DEPENDENCY_OF',
  'DEV_DEPENDENCY_OF',
  'OPTIONAL_DEPENDENCY_OF',
  'PROVIDED_DEPENDENCY_OF',
  'TEST_DEPENDENCY_OF',
  'RUNTIME_DEPENDENCY_OF',
]);

/** Values that mean "no information" in SPDX and must not be shown as data. */
const noInfo = (v: unknown): string | null => {
  const s = str(v);
  return s === null || s === 'NOASSERTION' || s === 'NONE' ? null : s;
};

/** SPDX 2.3 JSON (schema-valid) -> normalised components and graph. */
export function normaliseSpdx(doc: unknown): NormalSbom {
  const d = obj(doc);
  const docId = str(d.SPDXID) ?? 'SPDXRef-DOCUMENT';
  const relationships = arr(d.relationships).map(obj);
  const described = new Set(arr(d.documentDescribes).filter((x): x is string => typeof x === 'string'));
  const graph = edgeCollector();
  for (const r of relationships) {
    const a = str(r.spdxElementId);
    const b = str(r.relatedSpdxElement);
    const type = str(r.relationshipType);
    if (!a || !b || !type) continue;
    if (type === 'DESCRIBES' && a === docId) described.add(b);
    else if (type === 'DESCRIBED_BY' && b === docId) described.add(a);
    else if (type === 'DEPENDS_ON') graph.add(a, b);
    else if (DEPENDENCY_OF.has(type)) graph.add(b, a);
  }
  // Only a single described package is taken as the product; with several, none is singled out.
  const rootId = described.size === 1 ? ([...described][0] as string) : null;
  let subject: NormalSbom['subject'] = null;
  const components: NormalComponent[] = [];
  for (const item of arr(d.packages)) {
    const p = obj(item);
    const id = str(p.SPDXID);
    if (rootId && id === rootId) {
      const { purl, cpe } = toComponent(p);
      subject = { ref: id, name: str(p.name), version: noInfo(p.versionInfo), purl, cpe };
      continue;
    }
    components.push(toComponent(p));
  }
  classify(components, graph.edges, rootId);
  return { serialNumber: str(d.documentNamespace), subject, components, edges: graph.edges };
}

function toComponent(p: Record<string, unknown>): NormalComponent {
  let purl: string | null = null;
  let cpe: string | null = null;
  for (const r of arr(p.externalRefs).map(obj)) {
    const type = str(r.referenceType);
    const locator = str(r.referenceLocator);
    if (!locator) continue;
    if (type === 'purl' && !purl) purl = locator;
    else if ((type === 'cpe23Type' || type === 'cpe22Type') && (!cpe || type === 'cpe23Type')) cpe = locator;
  }
  const licenses: string[] = [];
  for (const l of [noInfo(p.licenseDeclared), noInfo(p.licenseConcluded)]) if (l && !licenses.includes(l)) licenses.push(l);
  return {
    ref: str(p.SPDXID),
    type: str(p.primaryPackagePurpose)?.toLowerCase() ?? null,
    group: null,
    name: str(p.name) ?? '(unnamed)',
    version: noInfo(p.versionInfo),
    purl,
    cpe,
    licenses,
    hashes: arr(p.checksums).flatMap((c) => {
      const alg = str(obj(c).algorithm);
      const content = str(obj(c).checksumValue);
      return alg && content ? [{ alg, content: content.toLowerCase() }] : [];
    }),
    // "Organization: Acme (acme@example.com)" / "Person: Jane" -> the entity, without its kind.
    supplier: noInfo(p.supplier)?.replace(/^(Organization|Person|Tool):\s*/, '') ?? null,
    vcsUrl: sourceUrl(noInfo(p.downloadLocation)),
    websiteUrl: sourceUrl(noInfo(p.homepage)),
    relationship: 'unknown',
  };
}

/** A URL an SPDX field holds (`git+https://...@v1`, `https://...`), of sensible length; NOASSERTION and other words are not. */
function sourceUrl(v: string | null): string | null {
  return v && v.length <= 2048 && /^(https?:|git\+|git:|ssh:|git@)/.test(v) ? v : null;
}
