import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { parseInput } from '../../kernel/validate.js';
import { getCompanyById } from '../companies/get-company.js';
import { uuidV5 } from '../../kernel/uuid5.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { type KnownVuln, KnownVulnVexQuery } from './known-vulns.schemas.js';
import { selectKnownVulns } from './list-known-vulns.js';

// The team's decisions on a product's known vulnerabilities as VEX: CycloneDX 1.6 (the vocabulary
// the decisions are recorded in) and OpenVEX 0.2.0. Untriaged matches are stated as under
// investigation, so a consumer sees every known vulnerability, decided or not.

const enc = encodeURIComponent;
type ProductRef = { identifier: string; name: string; version: string | null; producer: string | null };
const productPurl = (p: ProductRef) => `pkg:generic/${p.producer ? `${enc(p.producer)}/` : ''}${enc(p.identifier)}${p.version ? `@${enc(p.version)}` : ''}`;

/** OpenVEX justification for a CycloneDX one (OpenVEX has five; CycloneDX's are finer). */
export const OPENVEX_JUSTIFICATION: Record<string, string> = {
  code_not_present: 'vulnerable_code_not_present',
  code_not_reachable: 'vulnerable_code_not_in_execute_path',
  requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_dependency: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_environment: 'vulnerable_code_cannot_be_controlled_by_adversary',
  protected_by_compiler: 'inline_mitigations_already_exist',
  protected_at_runtime: 'inline_mitigations_already_exist',
  protected_at_perimeter: 'inline_mitigations_already_exist',
  protected_by_mitigating_control: 'inline_mitigations_already_exist',
};
const OPENVEX_STATUS: Record<string, string> = {
  in_triage: 'under_investigation',
  exploitable: 'affected',
  not_affected: 'not_affected',
  false_positive: 'not_affected',
  resolved: 'fixed',
};

/**
 * A document id that changes only with what the document states: exporting twice without a new
 * decision or match gives the same id, so consumers can tell a new statement from a re-download.
 */
const documentId = (companyId: string, identifier: string, kind: string, body: unknown) =>
  uuidV5(`known-vulns-vex:${kind}:${companyId}:${identifier}:${createHash('sha256').update(JSON.stringify(body)).digest('hex')}`);

async function openMatches(db: Executor, companyId: string, identifier: string) {
  const product = await getProductByIdentifier(db, companyId, identifier);
  const items = await selectKnownVulns(db, sql`m.company_id = ${companyId}::uuid and m.product_id = ${product.id}::uuid and m.resolved_at is null`);
  const ref: ProductRef = { identifier: product.identifier, name: product.name, version: product.firmwareVersion ?? null, producer: product.producer ?? null };
  return { ref, items };
}

function cdxVulnerability(m: KnownVuln) {
  const a = m.analysis;
  return {
    'bom-ref': `match-${m.id}`,
    id: m.vulnerability,
    source: m.vulnerability.startsWith('CVE-')
      ? { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${m.vulnerability}` }
      : { name: 'OSV', url: `https://osv.dev/vulnerability/${m.vulnerability}` },
    references: m.ids.filter((i) => i !== m.vulnerability).map((i) => ({ id: i, source: { name: 'OSV', url: `https://osv.dev/vulnerability/${i}` } })),
    ...(m.cvss ? { ratings: [{ score: m.cvss.score, method: m.cvss.vector.startsWith('CVSS:4.0/') ? 'CVSSv4' : 'CVSSv31', vector: m.cvss.vector }] } : {}),
    ...(m.summary ? { description: m.summary } : {}),
    ...(m.fixedVersion ? { recommendation: `Upgrade ${m.component.name} to ${m.fixedVersion} or later.` } : {}),
    analysis: a
      ? {
          state: a.state,
          ...(a.justification ? { justification: a.justification } : {}),
          ...(a.response.length ? { response: a.response } : {}),
          detail: a.detail,
          lastUpdated: a.decidedAt,
        }
      : { state: 'in_triage', detail: 'Not analysed yet.' },
    affects: [{ ref: `component-${m.component.purl || m.component.name}@${m.component.version}` }],
  };
}

/** CycloneDX 1.6 VEX of a product's open known vulnerabilities. */
export async function cycloneDxVexOf(db: Executor, companyId: string, identifier: string, now = new Date()): Promise<Record<string, unknown>> {
  const { ref, items } = await openMatches(db, companyId, identifier);
  const components = new Map<string, Record<string, unknown>>();
  for (const m of items) {
    const bomRef = `component-${m.component.purl || m.component.name}@${m.component.version}`;
    components.set(bomRef, {
      type: 'library',
      'bom-ref': bomRef,
      name: m.component.name,
      version: m.component.version,
      ...(m.component.purl ? { purl: m.component.purl } : {}),
    });
  }
  const vulnerabilities = items.map(cdxVulnerability);
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${documentId(companyId, identifier, 'cyclonedx', vulnerabilities)}`,
    version: 1,
    metadata: {
      timestamp: now.toISOString(),
      component: { type: 'firmware', 'bom-ref': 'product', name: ref.name, ...(ref.version ? { version: ref.version } : {}), purl: productPurl(ref) },
    },
    components: [...components.values()],
    vulnerabilities,
  };
}

/** OpenVEX 0.2.0 of a product's open known vulnerabilities: one statement per flaw and component. */
export async function openVexOf(db: Executor, companyId: string, identifier: string, author: string, now = new Date()): Promise<Record<string, unknown>> {
  const { ref, items } = await openMatches(db, companyId, identifier);
  const product = productPurl(ref);
  const statements = items.map((m) => {
    const a = m.analysis;
    const status = OPENVEX_STATUS[a?.state ?? 'in_triage']!;
    const s: Record<string, unknown> = {
      vulnerability: { name: m.vulnerability, ...(m.ids.length > 1 ? { aliases: m.ids.filter((i) => i !== m.vulnerability) } : {}) },
      products: [{ '@id': product, subcomponents: [{ '@id': m.component.purl || `${m.component.name}@${m.component.version}` }] }],
      status,
      ...(a ? { status_notes: a.detail, timestamp: a.decidedAt } : {}),
    };
    if (status === 'not_affected') {
      if (a?.state === 'false_positive') s.justification = 'component_not_present';
      else if (a?.justification) s.justification = OPENVEX_JUSTIFICATION[a.justification];
      s.impact_statement = a?.detail;
    }
    if (status === 'affected')
      s.action_statement = m.fixedVersion ? `Upgrade ${m.component.name} to ${m.fixedVersion} or later.` : (a?.detail ?? 'No fix is known yet.');
    return s;
  });
  return {
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': `urn:uuid:${documentId(companyId, identifier, 'openvex', statements)}`,
    author,
    timestamp: now.toISOString(),
    version: 1,
    statements,
  };
}

/** The VEX a `GET /known-vulnerabilities/vex` query asks for (API and dashboard alike); the product must be the company's. */
export async function knownVulnVex(
  db: Db,
  companyId: string,
  query: unknown,
): Promise<{ format: 'cyclonedx' | 'openvex'; product: string; document: Record<string, unknown> }> {
  const q = parseInput(KnownVulnVexQuery, query);
  const document =
    q.format === 'openvex'
      ? await openVexOf(db, companyId, q.product, (await getCompanyById(db, companyId)).name)
      : await cycloneDxVexOf(db, companyId, q.product);
  return { format: q.format, product: q.product, document };
}
