// Synthetic OSV feeds for the vulndb bench, in the real schema: npm packages `bench-pkg-<n>`, each
// with several advisories (SEMVER ranges, CVE aliases, some GHSA aliases shared by two records),
// written as an `all.zip` the way the OSV bucket serves it (one deflated `<ID>.json` per entry).
// The zip writer is the bench's own (no zip-writing library is a dependency): local headers, data,
// central directory, end record; no ZIP64, so it stays under 4 GiB and 65,535 entries per archive.
import { closeSync, openSync, writeSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

export const packageName = (i: number) => `bench-pkg-${i}`;

export function osvRecord(id: number, pkg: number, modified = '2025-06-01T00:00:00Z', fixedMinor = 5): Record<string, unknown> {
  const major = id % 4;
  return {
    schema_version: '1.6.0',
    id: `BENCH-${id}`,
    modified,
    published: '2024-01-01T00:00:00Z',
    aliases: [`CVE-2099-${100000 + id}`],
    summary: `Synthetic advisory ${id} for ${packageName(pkg)}`,
    details: 'A synthetic advisory written by the vulndb bench. '.repeat(8),
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [
      {
        package: { ecosystem: 'npm', name: packageName(pkg), purl: `pkg:npm/${packageName(pkg)}` },
        ranges: [{ type: 'SEMVER', events: [{ introduced: `${major}.0.0` }, { fixed: `${major}.${fixedMinor}.0` }] }],
      },
    ],
    references: [{ type: 'ADVISORY', url: `https://example.com/advisories/BENCH-${id}` }],
    database_specific: { cwe_ids: ['CWE-79'] },
  };
}

/** Writes `records` to a zip at `path`, one deflated entry each; answers the uncompressed bytes. */
export function writeZip(path: string, records: Iterable<Record<string, unknown>>, maxEntries = 65_000): number {
  const fd = openSync(path, 'w');
  const central: Buffer[] = [];
  let offset = 0;
  let total = 0;
  let count = 0;
  const write = (b: Buffer) => {
    writeSync(fd, b);
    offset += b.length;
  };
  for (const r of records) {
    if (count >= maxEntries) throw new Error('too many entries for a plain zip');
    const name = Buffer.from(`${r.id as string}.json`);
    const data = Buffer.from(JSON.stringify(r));
    const packed = deflateRawSync(data, { level: 6 });
    const crc = crc32(data);
    total += data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const at = offset;
    write(local);
    write(name);
    write(packed);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0, 8);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(0, 12);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(packed.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(at, 42);
    central.push(c, name);
    count++;
  }
  const start = offset;
  for (const b of central) write(b);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(offset - start, 12);
  end.writeUInt32LE(start, 16);
  write(end);
  closeSync(fd);
  return total;
}
