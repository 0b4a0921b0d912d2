import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AppError } from '../../src/kernel/errors.js';
import type { ComponentRelationship, NormalComponent } from '../../src/modules/sboms/sboms.normalised.js';

/** A component for the generated documents below: npm-style name and version. */
export type Pkg = { name: string; version: string; license?: string; sha256?: string; deps?: string[]; supplier?: string };

const ref = (p: Pkg): string => `pkg:npm/${p.name}@${p.version}`;

/**
 * A CycloneDX JSON document for a product whose direct dependencies are `direct` (names of
 * entries in `pkgs`); each package's `deps` name further packages.
 */
export function cycloneDx(pkgs: Pkg[], direct: string[], specVersion = '1.6'): string {
  const byName = new Map(pkgs.map((p) => [p.name, p]));
  const refOf = (n: string): string => ref(byName.get(n) as Pkg);
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion,
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: '2026-11-01T10:00:00Z',
      component: { type: 'application', 'bom-ref': 'root', name: 'thermostat-firmware', version: '2.4.1' },
    },
    components: pkgs.map((p) => ({
      type: 'library',
      'bom-ref': ref(p),
      name: p.name,
      version: p.version,
      purl: ref(p),
      ...(p.supplier ? { supplier: { name: p.supplier } } : {}),
      ...(p.license ? { licenses: [{ license: { id: p.license } }] } : {}),
      ...(p.sha256 ? { hashes: [{ alg: 'SHA-256', content: p.sha256 }] } : {}),
    })),
    dependencies: [{ ref: 'root', dependsOn: direct.map(refOf) }, ...pkgs.map((p) => ({ ref: ref(p), dependsOn: (p.deps ?? []).map(refOf) }))],
  });
}

/** A SARIF 2.1.0 log of one run; each result names rule, file, line and an optional fingerprint. */
export type Res = { rule: string; file: string; line: number; message?: string; level?: string; kind?: string; fp?: string };
export function sarif(tool: string, results: Res[], rules: Record<string, { level?: string; securitySeverity?: string }> = {}): string {
  return JSON.stringify({
    version: '2.1.0',
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    runs: [
      {
        tool: {
          driver: {
            name: tool,
            rules: Object.entries(rules).map(([id, r]) => ({
              id,
              ...(r.level ? { defaultConfiguration: { level: r.level } } : {}),
              ...(r.securitySeverity ? { properties: { 'security-severity': r.securitySeverity } } : {}),
            })),
          },
        },
        results: results.map((r) => ({
          ruleId: r.rule,
          ...(r.level ? { level: r.level } : {}),
          ...(r.kind ? { kind: r.kind } : {}),
          message: { text: r.message ?? `${r.rule} in ${r.file}` },
          locations: [{ physicalLocation: { artifactLocation: { uri: r.file }, region: { startLine: r.line } } }],
          ...(r.fp ? { partialFingerprints: { primaryLocationLineHash: r.fp } } : {}),
        })),
      },
    ],
  });
}

/** A committed evidence fixture (real-tool SBOM or SARIF output) as bytes. */
export const fixture = (name: string): Buffer => readFileSync(new URL(`../fixtures/evidence/${name}`, import.meta.url));

/** An assert.rejects predicate: an AppError with this code. */
export const isCode = (code: string) => (e: unknown) => e instanceof AppError && e.code === code;

/** A normalised component with nothing but its name and ref: for code that needs rows, not a document. */
export const bareComponent = (ref: string, relationship: ComponentRelationship = 'unknown'): NormalComponent => ({
  ref,
  type: null,
  group: null,
  name: ref,
  version: null,
  purl: null,
  cpe: null,
  licenses: [],
  hashes: [],
  supplier: null,
  vcsUrl: null,
  websiteUrl: null,
  relationship,
});
