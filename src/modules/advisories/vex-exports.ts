import { uuidV5 } from '../../kernel/uuid5.js';

/**
 * OpenVEX 0.2.0 and CycloneDX 1.6 VEX views of a CSAF document's decisions. Both are derived from
 * the CSAF document itself (the released bytes, or a draft's preview), so every format states the
 * same decisions. The justification vocabularies match in OpenVEX; CycloneDX's is coarser.
 */
type Branch = {
  category: string;
  name: string;
  branches?: Branch[];
  product?: { product_id: string; name: string; product_identification_helper?: { purl?: string; cpe?: string } };
};
type Vuln = {
  cve?: string;
  ids?: { system_name: string; text: string }[];
  cwe?: { id: string };
  notes?: { category: string; text: string }[];
  product_status?: Record<string, string[]>;
  scores?: { products: string[]; cvss_v3?: { vectorString: string; baseScore: number; baseSeverity: string } }[];
  remediations?: { category: string; details: string; product_ids?: string[] }[];
  flags?: { label: string; product_ids?: string[] }[];
  threats?: { category: string; details: string; product_ids?: string[] }[];
};
type Csaf = {
  document: { publisher: { name: string }; tracking: { id: string; version: string; current_release_date: string } };
  product_tree?: { branches?: Branch[] };
  vulnerabilities?: Vuln[];
};
type Product = { id: string; vendor: string; name: string; version: string; purl?: string | undefined; cpe?: string | undefined };

function products(d: Csaf): Map<string, Product> {
  const out = new Map<string, Product>();
  const walk = (b: Branch, path: Record<string, string>) => {
    const here = { ...path, [b.category]: b.name };
    if (b.product) {
      const { product_id: id, name, product_identification_helper: helper } = b.product;
      out.set(id, {
        id,
        vendor: here.vendor ?? '',
        name: here.product_name ?? name,
        version: here.product_version ?? '',
        purl: helper?.purl,
        cpe: helper?.cpe,
      });
    }
    for (const c of b.branches ?? []) walk(c, here);
  };
  for (const b of d.product_tree?.branches ?? []) walk(b, {});
  return out;
}

const enc = encodeURIComponent;
/**
 * The package URL of a product version: the document's own (its product identification helper),
 * or for a document released without one, a generic purl of vendor, name and version.
 */
const purl = (p: Product) => p.purl ?? `pkg:generic/${enc(p.vendor)}/${enc(p.name)}@${enc(p.version)}`;
const vulnName = (v: Vuln, d: Csaf) => v.cve ?? v.ids?.[0]?.text ?? d.document.tracking.id;
const forProduct = <T extends { product_ids?: string[] }>(list: T[] | undefined, id: string) => list?.find((x) => x.product_ids?.includes(id));

const OPENVEX_STATUS: Record<string, string> = {
  known_affected: 'affected',
  fixed: 'fixed',
  known_not_affected: 'not_affected',
  under_investigation: 'under_investigation',
};

/** OpenVEX 0.2.0: one statement per product version and vulnerability. */
export function toOpenVex(d: Csaf, id: string): Record<string, unknown> {
  const byId = products(d);
  const statements = (d.vulnerabilities ?? []).flatMap((v) =>
    Object.entries(v.product_status ?? {}).flatMap(([status, ids]) =>
      ids.map((pid) => {
        const p = byId.get(pid);
        const s: Record<string, unknown> = {
          vulnerability: { name: vulnName(v, d) },
          products: [{ '@id': p ? purl(p) : pid, identifiers: p ? { purl: purl(p) } : undefined }],
          status: OPENVEX_STATUS[status] ?? status,
        };
        const flag = forProduct(v.flags, pid);
        const impact = forProduct(
          v.threats?.filter((t) => t.category === 'impact'),
          pid,
        );
        const action = forProduct(v.remediations, pid);
        if (status === 'known_not_affected') Object.assign(s, flag ? { justification: flag.label } : {}, impact ? { impact_statement: impact.details } : {});
        if (status === 'known_affected') s.action_statement = action?.details ?? 'No remediation is available yet.';
        return s;
      }),
    ),
  );
  return {
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': id,
    author: d.document.publisher.name,
    timestamp: d.document.tracking.current_release_date,
    version: Math.max(1, Number.parseInt(d.document.tracking.version, 10) || 1),
    statements,
  };
}

const CDX_STATE: Record<string, string> = {
  known_affected: 'exploitable',
  fixed: 'resolved',
  known_not_affected: 'not_affected',
  under_investigation: 'in_triage',
};
const CDX_JUSTIFICATION: Record<string, string> = {
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'protected_by_mitigating_control',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};
const CDX_RESPONSE: Record<string, string> = {
  vendor_fix: 'update',
  mitigation: 'workaround_available',
  workaround: 'workaround_available',
  no_fix_planned: 'will_not_fix',
  none_available: 'can_not_fix',
};

/**
 * CycloneDX 1.6 VEX: the products as components, and one vulnerability entry per decision group
 * (an `analysis` is per entry, so products with different states or reasons need separate entries).
 */
export function toCycloneDxVex(d: Csaf): Record<string, unknown> {
  const byId = products(d);
  const t = d.document.tracking;
  const vulnerabilities = (d.vulnerabilities ?? []).flatMap((v, vi) => {
    const groups = new Map<string, { state: string; justification?: string; ids: string[] }>();
    for (const [status, ids] of Object.entries(v.product_status ?? {})) {
      for (const pid of ids) {
        const justification = status === 'known_not_affected' ? CDX_JUSTIFICATION[forProduct(v.flags, pid)?.label ?? ''] : undefined;
        const key = `${status}/${justification ?? ''}`;
        const g = groups.get(key) ?? { state: CDX_STATE[status] ?? 'in_triage', ...(justification ? { justification } : {}), ids: [] };
        g.ids.push(pid);
        groups.set(key, g);
      }
    }
    const score = v.scores?.[0]?.cvss_v3;
    const description = v.notes?.find((n) => n.category === 'description')?.text;
    return [...groups.values()].map((g, gi) => {
      const remediation = g.ids.map((pid) => forProduct(v.remediations, pid)).find(Boolean);
      const detail = g.ids.map((pid) => forProduct(v.threats, pid)?.details).find(Boolean);
      return {
        'bom-ref': `vulnerability-${vi + 1}-${gi + 1}`,
        id: vulnName(v, d),
        ...(v.cve ? { source: { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${v.cve}` } } : {}),
        ...(score ? { ratings: [{ score: score.baseScore, severity: score.baseSeverity.toLowerCase(), method: 'CVSSv31', vector: score.vectorString }] } : {}),
        ...(v.cwe ? { cwes: [Number(v.cwe.id.replace('CWE-', ''))] } : {}),
        ...(description ? { description } : {}),
        analysis: {
          state: g.state,
          ...(g.justification ? { justification: g.justification } : {}),
          ...(remediation && (g.state === 'exploitable' || g.state === 'resolved') ? { response: [CDX_RESPONSE[remediation.category] ?? 'update'] } : {}),
          ...(detail ? { detail } : {}),
        },
        affects: g.ids.map((ref) => ({ ref })),
      };
    });
  });
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${uuidV5(`${t.id}/${t.version}`)}`,
    version: 1,
    metadata: { timestamp: t.current_release_date, supplier: { name: d.document.publisher.name } },
    components: [...byId.values()].map((p) => ({
      type: 'firmware',
      'bom-ref': p.id,
      supplier: { name: p.vendor },
      name: p.name,
      version: p.version,
      ...(p.cpe ? { cpe: p.cpe } : {}),
      purl: purl(p),
    })),
    vulnerabilities,
  };
}
