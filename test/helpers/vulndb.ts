// Feed files and SBOMs for the known-vulnerability tests: small OSV records written in the real
// schema (the snapshots hold no npm or Maven records), with facts taken from the public advisories
// they are named after, and SBOM builders naming components by purl.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../src/db/client.js';
import { refreshVulndb } from '../../src/modules/known-vulns/refresh-vulndb.js';

export type Ev = { introduced?: string; fixed?: string; last_affected?: string; limit?: string };
export type TestRecord = {
  id: string;
  modified?: string;
  withdrawn?: string;
  aliases?: string[];
  summary?: string;
  ecosystem: string;
  name: string;
  events?: Ev[];
  rangeType?: 'ECOSYSTEM' | 'SEMVER';
  versions?: string[];
  severity?: string;
};

export function osvRecord(r: TestRecord): Record<string, unknown> {
  return {
    schema_version: '1.6.0',
    id: r.id,
    modified: r.modified ?? '2025-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    ...(r.withdrawn ? { withdrawn: r.withdrawn } : {}),
    aliases: r.aliases ?? [],
    summary: r.summary ?? `${r.name} advisory ${r.id}`,
    ...(r.severity ? { severity: [{ type: 'CVSS_V3', score: r.severity }] } : {}),
    affected: [
      {
        package: { ecosystem: r.ecosystem, name: r.name },
        ...(r.events ? { ranges: [{ type: r.rangeType ?? 'ECOSYSTEM', events: r.events }] } : {}),
        ...(r.versions ? { versions: r.versions } : {}),
      },
    ],
    references: [{ type: 'ADVISORY', url: `https://osv.dev/vulnerability/${r.id}` }],
  };
}

/** A fresh folder laid out as the OSV bucket is (`osv/<Ecosystem>/<ID>.json`). */
export function feedFolder(records: TestRecord[]): string {
  const root = mkdtempSync(join(tmpdir(), 'cradle-osv-'));
  writeRecords(root, records);
  return root;
}

export function writeRecords(root: string, records: TestRecord[]): void {
  for (const r of records) {
    const dir = join(root, 'osv', r.ecosystem.split(':')[0]!);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${r.id}.json`), JSON.stringify(osvRecord(r), null, 2));
  }
}

export type Component = { name: string; version: string; purl: string | null };

export function cycloneDxOf(components: Component[], specVersion = '1.6'): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion,
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: { component: { type: 'application', 'bom-ref': 'root', name: 'gateway', version: '1.0.0' } },
    components: components.map((c, i) => ({ type: 'library', 'bom-ref': `c${i}`, name: c.name, version: c.version, ...(c.purl ? { purl: c.purl } : {}) })),
    dependencies: [{ ref: 'root', dependsOn: components.map((_, i) => `c${i}`) }],
  });
}

export function spdxOf(components: Component[]): string {
  return JSON.stringify({
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: 'gateway',
    documentNamespace: `https://example.com/spdx/${randomUUID()}`,
    creationInfo: { created: '2026-11-01T10:00:00Z', creators: ['Tool: cradle-tests'] },
    packages: [
      { SPDXID: 'SPDXRef-root', name: 'gateway', versionInfo: '1.0.0', downloadLocation: 'NOASSERTION', filesAnalyzed: false },
      ...components.map((c, i) => ({
        SPDXID: `SPDXRef-c${i}`,
        name: c.name,
        versionInfo: c.version,
        downloadLocation: 'NOASSERTION',
        filesAnalyzed: false,
        ...(c.purl ? { externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: c.purl }] } : {}),
      })),
    ],
    relationships: [
      { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-root' },
      ...components.map((_, i) => ({ spdxElementId: 'SPDXRef-root', relationshipType: 'DEPENDS_ON', relatedSpdxElement: `SPDXRef-c${i}` })),
    ],
  });
}

const SNAPSHOT_KEV = new URL('../../../shared/data/vulndb/kev/known_exploited_vulnerabilities.json', import.meta.url).pathname;
/** Log4Shell as its GitHub record names log4j-core (2.13.0 up to 2.15.0): CISA KEV lists its CVE. */
export const LOG4SHELL: TestRecord = {
  id: 'GHSA-jfh8-c2jp-5v3q',
  aliases: ['CVE-2021-44228'],
  ecosystem: 'Maven',
  name: 'org.apache.logging.log4j:log4j-core',
  events: [{ introduced: '2.13.0' }, { fixed: '2.15.0' }],
};
export const LOG4J: Component = { name: 'log4j-core', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' };

/** The KEV snapshot and Log4Shell in the store: an SBOM naming `LOG4J` then opens an awareness decision. */
export async function importLog4Shell(db: Db): Promise<void> {
  await refreshVulndb(db, SNAPSHOT_KEV);
  await refreshVulndb(db, feedFolder([LOG4SHELL]));
}
