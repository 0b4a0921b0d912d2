// Writes zip archives byte by byte, so tests can build the malformed ones an importer must refuse
// (overlapping entries, duplicated names, extreme ratios) that no zip tool would make.
import { crc32, deflateRawSync } from 'node:zlib';

export type ZipEntry = { name: string; data: Buffer };

type Placed = { name: string; offset: number; crc: number; size: number; compressed: number };

function localHeader(name: Buffer, crc: number, compressed: number, size: number): Buffer {
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(8, 8); // deflate
  h.writeUInt32LE(crc, 14);
  h.writeUInt32LE(compressed, 18);
  h.writeUInt32LE(size, 22);
  h.writeUInt16LE(name.length, 26);
  return Buffer.concat([h, name]);
}

function centralHeader(p: Placed): Buffer {
  const name = Buffer.from(p.name);
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(20, 6);
  h.writeUInt16LE(8, 10);
  h.writeUInt32LE(p.crc, 16);
  h.writeUInt32LE(p.compressed, 20);
  h.writeUInt32LE(p.size, 24);
  h.writeUInt16LE(name.length, 28);
  h.writeUInt32LE(p.offset, 42);
  return Buffer.concat([h, name]);
}

function end(count: number, dirSize: number, dirOffset: number): Buffer {
  const e = Buffer.alloc(22);
  e.writeUInt32LE(0x06054b50, 0);
  e.writeUInt16LE(count, 8);
  e.writeUInt16LE(count, 10);
  e.writeUInt32LE(dirSize, 12);
  e.writeUInt32LE(dirOffset, 16);
  return e;
}

/**
 * A deflated archive of `entries`. With `alsoNamed`, the central directory lists further names that
 * all point at the first entry's bytes: the overlapping-entry construction of a zip bomb.
 */
export function zipOf(entries: ZipEntry[], alsoNamed: string[] = []): Buffer {
  const parts: Buffer[] = [];
  const placed: Placed[] = [];
  let offset = 0;
  for (const e of entries) {
    const compressed = deflateRawSync(e.data);
    const p = { name: e.name, offset, crc: crc32(e.data), size: e.data.length, compressed: compressed.length };
    const chunk = Buffer.concat([localHeader(Buffer.from(e.name), p.crc, p.compressed, p.size), compressed]);
    parts.push(chunk);
    placed.push(p);
    offset += chunk.length;
  }
  for (const name of alsoNamed) placed.push({ ...placed[0]!, name });
  const dir = Buffer.concat(placed.map(centralHeader));
  return Buffer.concat([...parts, dir, end(placed.length, dir.length, offset)]);
}
