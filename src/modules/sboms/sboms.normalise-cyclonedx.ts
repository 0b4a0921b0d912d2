import { arr, obj, str } from '../../kernel/json-access.js';
import { classify, edgeCollector, type NormalComponent, type NormalSbom } from './sboms.normalised.js';

/** CycloneDX 1.4-1.7 (schema-valid) -> normalised components and graph. */
export function normaliseCycloneDx(doc: unknown): NormalSbom {
  const bom = obj(doc);
  const metadata = obj(bom.metadata);
  const root = metadata.component === undefined ? null : obj(metadata.component);
  const components: NormalComponent[] = [];
  // Nested components (assemblies) are components too; the subject's own sub-components as well.
  const walk = (list: unknown): void => {
    for (const item of arr(list)) {
      const c = obj(item);
      components.push(toComponent(c));
      walk(c.components);
    }
  };
  if (root) walk(root.components);
  walk(bom.components);

  const graph = edgeCollector();
  for (const d of arr(bom.dependencies)) {
    const dep = obj(d);
    const from = str(dep.ref);
    if (!from) continue;
    for (const to of arr(dep.dependsOn)) if (typeof to === 'string') graph.add(from, to);
  }
  const rootRef = root ? str(root['bom-ref']) : null;
  classify(components, graph.edges, rootRef);
  return {
    serialNumber: str(bom.serialNumber),
    subject: root ? { ref: rootRef, name: str(root.name), version: str(root.version), purl: str(root.purl), cpe: str(root.cpe) } : null,
    components,
    edges: graph.edges,
  };
}

function toComponent(c: Record<string, unknown>): NormalComponent {
  return {
    ref: str(c['bom-ref']),
    type: str(c.type),
    group: str(c.group),
    // The schema requires a name; the fallback keeps a NOT NULL column safe for odd producers.
    name: str(c.name) ?? '(unnamed)',
    version: str(c.version),
    purl: str(c.purl),
    cpe: str(c.cpe),
    licenses: licenses(c.licenses),
    hashes: arr(c.hashes).flatMap((h) => {
      const alg = str(obj(h).alg);
      const content = str(obj(h).content);
      return alg && content ? [{ alg, content: content.toLowerCase() }] : [];
    }),
    supplier: str(obj(c.supplier).name) ?? str(obj(c.manufacturer).name) ?? str(c.publisher),
    vcsUrl: reference(c, 'vcs'),
    websiteUrl: reference(c, 'website'),
    relationship: 'unknown',
  };
}

/** The first `externalReferences` URL of a type, when it is an http(s) or git URL of sensible length. */
function reference(c: Record<string, unknown>, type: string): string | null {
  for (const r of arr(c.externalReferences)) {
    const url = str(obj(r).url);
    if (str(obj(r).type) === type && url && url.length <= 2048 && /^(https?:|git\+|git:|ssh:|git@)/.test(url)) return url;
  }
  return null;
}

/**
 * `licenses` holds `{license: {id|name}}` objects or `{expression}` (1.7 allows mixing both).
 * De-duplicated through a set in first-seen order (an array scan per licence made 60,000 licences
 * on one component stall the server for 1.8 s; issue 24).
 */
function licenses(list: unknown): string[] {
  const out = new Set<string>();
  for (const item of arr(list)) {
    const l = obj(item);
    const value = str(l.expression) ?? str(obj(l.license).id) ?? str(obj(l.license).name);
    if (value) out.add(value);
  }
  return [...out];
}
