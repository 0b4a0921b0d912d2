// Generated evidence documents for the ingestion bench: realistic field shapes, deterministic.

/** A CycloneDX 1.6 SBOM of `n` npm-like components with licences, hashes and a dependency graph. */
export function generateCycloneDx(n: number): Buffer {
  const lic = ['MIT', 'Apache-2.0', 'ISC', 'BSD-3-Clause'];
  const components = [];
  const dependencies = [{ ref: 'root', dependsOn: [] as string[] }];
  for (let i = 0; i < n; i++) {
    const ref = `pkg:npm/%40bench/package-${i}@1.${i % 17}.${i % 5}`;
    components.push({
      type: 'library',
      'bom-ref': ref,
      group: '@bench',
      name: `package-${i}`,
      version: `1.${i % 17}.${i % 5}`,
      purl: ref,
      licenses: [{ license: { id: lic[i % lic.length] } }],
      hashes: [{ alg: 'SHA-256', content: i.toString(16).padStart(8, '0').repeat(8) }],
      supplier: { name: `Supplier ${i % 97}` },
    });
    if (i < 50) dependencies[0]?.dependsOn.push(ref);
    const next = [i * 2 + 1, i * 2 + 2].filter((j) => j < n).map((j) => `pkg:npm/%40bench/package-${j}@1.${j % 17}.${j % 5}`);
    dependencies.push({ ref, dependsOn: next });
  }
  return Buffer.from(
    JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
      version: 1,
      metadata: { timestamp: '2026-11-01T00:00:00Z', component: { type: 'application', 'bom-ref': 'root', name: 'bench-product', version: '1.0.0' } },
      components,
      dependencies,
    }),
  );
}

/** A SARIF 2.1.0 log of `n` results over 200 rules and 2,000 files, with partial fingerprints. */
export function generateSarif(n: number): Buffer {
  const rules = Array.from({ length: 200 }, (_, i) => ({
    id: `rule-${i}`,
    shortDescription: { text: `Rule ${i}` },
    defaultConfiguration: { level: (['error', 'warning', 'note'] as const)[i % 3] },
    properties: { 'security-severity': String((i % 100) / 10) },
  }));
  const results = Array.from({ length: n }, (_, i) => ({
    ruleId: `rule-${i % 200}`,
    ruleIndex: i % 200,
    message: { text: `Problem ${i} found by rule ${i % 200}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: `src/module-${i % 2000}/file.ts` }, region: { startLine: (i % 500) + 1, startColumn: 3 } } }],
    partialFingerprints: { primaryLocationLineHash: `${i.toString(16).padStart(12, '0')}:1` },
  }));
  return Buffer.from(JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'BenchScanner', version: '1.0.0', rules } }, results }] }));
}

/**
 * A CycloneDX 1.6 SBOM of `n` bare components, each with a description of `padding` characters:
 * the large-but-simple documents of the availability bench and test (20,000 components with 2,300
 * characters each are 45 MiB).
 */
export function generatePaddedCycloneDx(n: number, padding = 0): string {
  const description = padding ? { description: 'x'.repeat(padding) } : {};
  const components = Array.from({ length: n }, (_, i) => ({ type: 'library', 'bom-ref': `c${i}`, name: `package-${i}`, version: '1.0.0', ...description }));
  return JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components });
}

/**
 * A SARIF 2.1.0 log of 50 results whose URIs are 10,000 segments deep (about 1 MB): the document
 * that once held the document worker for seconds, as root matching cost each result its path's
 * depth times its length (issue 33).
 */
export function generateDeepPathSarif(): string {
  const deepPath = (i: number) => `file:///ci/${'a/'.repeat(10_000)}f${i}.js`;
  return JSON.stringify({
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'deep', rules: [{ id: 'r' }] } },
        invocations: [{ executionSuccessful: true, workingDirectory: { uri: 'file:///ci/' } }],
        results: Array.from({ length: 50 }, (_, i) => ({
          ruleId: 'r',
          message: { text: 'm' },
          partialFingerprints: { k: String(i) },
          locations: [{ physicalLocation: { artifactLocation: { uri: deepPath(i) } } }],
        })),
      },
    ],
  });
}

/** A one-component CycloneDX SBOM whose version is `v`: another company's small push beside the work. */
export const oneComponentSbom = (v: number): string =>
  JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [{ type: 'library', name: 'zlib', version: `1.3.${v}` }] });
