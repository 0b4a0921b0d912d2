import { z } from 'zod';
import type { Operation } from '../modules/operations/operation.js';

export type Json = Record<string, unknown>;

/**
 * `anyOf` with an empty schema among its branches matches any value (an unknown value that may also
 * be null, `z.unknown().nullable()`): it says nothing the empty schema does not, so it is dropped and
 * the node keeps its other keywords (its description). Applied to every converted schema.
 */
function simplify(o: unknown): unknown {
  if (Array.isArray(o)) return o.map(simplify);
  if (o === null || typeof o !== 'object') return o;
  const out: Json = {};
  for (const [k, v] of Object.entries(o as Json)) out[k] = simplify(v);
  if (Array.isArray(out.anyOf) && out.anyOf.some((b) => b !== null && typeof b === 'object' && Object.keys(b as Json).length === 0)) delete out.anyOf;
  return out;
}

const rewrite = (o: unknown): Json => simplify(JSON.parse(JSON.stringify(o).replaceAll('"#/$defs/', '"#/components/schemas/'))) as Json;

/**
 * Converts a Zod schema into an OpenAPI 3.1 schema (JSON Schema 2020-12): named schemas (`.meta({id})`)
 * move into `components.schemas`, and references are rewritten to point there. With `inline`, a
 * named root is given in place rather than as a reference (a query schema, spread into parameters).
 */
export function schemaOf(schema: z.ZodType, components: Json, io: 'input' | 'output' = 'input', inline = false): Json {
  const { $schema: _s, $defs, ...root } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  const defs = { ...(($defs ?? {}) as Json) };
  const ref = inline && typeof root.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(root.$ref)?.[1] : undefined;
  const own = ref ? defs[ref] : undefined;
  if (ref) delete defs[ref];
  for (const [name, def] of Object.entries(defs)) components[name] = rewrite(def);
  if (own) {
    const { $ref: _r, ...rest } = root;
    return rewrite({ ...(own as Json), ...rest });
  }
  return rewrite(root);
}

/** Query parameters from the operation's query schema, one per property, with its own schema. */
export function queryParameters(op: Operation, components: Json): Json[] {
  if (!op.query) return [];
  const js = schemaOf(op.query, components, 'input', true);
  const props = (js.properties ?? {}) as Record<string, Json>;
  const required = new Set((js.required ?? []) as string[]);
  return Object.entries(props).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** What each tag (the first segment of an operation's name) groups, for the reference page. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  products: "The company's products: the affected-product list of its portal, and the key of its SBOMs, scans and CRA facts.",
  reports: 'Vulnerability reports: file, read, triage (lifecycle, CVSS, exploitation facts), export, and the message thread with the researcher.',
  article14:
    "CRA Article 14: whether a report must be notified, each stage's deadline and filing pack, and the filings made in ENISA's Single Reporting Platform.",
  webhooks: 'Webhook endpoints: registration, signing secrets, the delivery log, test events and redelivery.',
  compliance:
    'CRA compliance from evidence: status, gaps, next task and deadline, the requirement catalog, assessments (also OSCAL), attestations and product CRA facts.',
  sboms: 'Software bills of materials (CycloneDX, SPDX) pushed from CI: versions, components, differences and the original documents.',
  sarif: 'Static analysis results (SARIF 2.1.0) pushed from CI, reconciled into findings.',
  findings: "Scan findings of the company's products, from the SARIF pushes.",
  export: "The company's whole data, audit log included (data subject access request).",
  advisories:
    'Security advisories: drafts from fixed reports, CSAF 2.0 and VEX documents, publication on the portal, revisions, withdrawal, OpenVEX and CycloneDX VEX.',
  retention:
    "Retention (administrators): the policy's rules, their preview and run, legal holds, and researchers' erasure requests; CRA technical documentation is never purged.",
  knownVulnerabilities:
    "Known vulnerabilities (OSV, CISA KEV, EPSS) matched in the components of each product's latest SBOM: decisions (VEX), VEX exports and CRA Article 14 awareness decisions.",
  portal_settings:
    "The company's portal and disclosure policy: policy text or URL, safe harbour, languages, security contact, OpenPGP key and response times, as the portal and security.txt publish them.",
  upstream:
    "Reaching the maintainers of the components the company integrates (CRA Article 13(6)): who to tell about a component's flaw and where that was found, the package URLs the company maintains, and its GitHub token.",
  cases:
    'Coordination cases (CRA Article 13(6)): participants outside the company (upstream maintainers, other vendors, coordinators), two-step notices, the shared threads, the embargo, and the cases of other companies on this instance that notified this one.',
  portal: "The public bulk endpoint: researchers file reports to several companies' portals at once, without a key.",
};
