// Where a process's resident memory is, by kind of mapping, from /proc/PID/smaps (Linux): what
// `npm run bench startup` prints beside the idle figure (ADR 0020). Run alone on a pid:
// `node --import ./scripts/ts-hooks.mjs bench/memory-map.ts PID`.
import { readFileSync } from 'node:fs';

type Mapping = { start: bigint; end: bigint; perms: string; path: string; rssKiB: number; pssKiB: number };

const GiB = 1n << 30n;
const ARENA = 64n << 20n;

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  let cur: Mapping | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      cur = { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3] ?? '', path: head[4] ?? '', rssKiB: 0, pssKiB: 0 };
      out.push(cur);
      continue;
    }
    const field = /^(Rss|Pss):\s+(\d+) kB/.exec(line);
    if (field && cur) cur[field[1] === 'Rss' ? 'rssKiB' : 'pssKiB'] = Number(field[2]);
  }
  return out;
}

/**
 * The kind of each mapping. WebAssembly memories are the accessible start of a reservation of
 * several GiB (V8's guard regions); glibc's per-thread malloc arenas are 64 MiB-aligned reservations
 * of 64 MiB; JIT code (JavaScript and WebAssembly) is anonymous and executable.
 */
function kindOf(m: Mapping, next: Mapping | undefined): string {
  if (m.path === '[heap]') return 'malloc main arena ([heap])';
  if (m.path === '[stack]') return 'main thread stack';
  if (m.path.startsWith('/')) return m.path.includes('/node') && !m.path.endsWith('.so') ? 'node binary (file)' : 'other files (libraries, ICU)';
  if (m.path) return `other (${m.path})`;
  const reserved = next && next.start === m.end && next.perms.startsWith('---') ? next.end - m.start : m.end - m.start;
  if (m.perms.startsWith('rw') && reserved >= 4n * GiB) return 'WebAssembly memory';
  if (m.perms.includes('x')) return 'JIT code (anonymous, executable)';
  if (m.perms.startsWith('rw') && m.start % ARENA === 0n && reserved === ARENA) return 'malloc thread arenas';
  return 'other anonymous (V8 heaps, stacks, large buffers)';
}

export type Breakdown = { kind: string; rssMiB: number; pssMiB: number }[];

/** Resident (and proportional) memory of `pid` by kind of mapping, largest first. */
export function memoryByKind(pid: number): Breakdown {
  const all = mappings(pid);
  const sums = new Map<string, { rss: number; pss: number }>();
  all.forEach((m, i) => {
    const kind = kindOf(m, all[i + 1]);
    const s = sums.get(kind) ?? { rss: 0, pss: 0 };
    s.rss += m.rssKiB;
    s.pss += m.pssKiB;
    sums.set(kind, s);
  });
  return [...sums]
    .map(([kind, s]) => ({ kind, rssMiB: s.rss / 1024, pssMiB: s.pss / 1024 }))
    .filter((k) => k.rssMiB >= 0.05)
    .sort((a, b) => b.rssMiB - a.rssMiB);
}

export function printBreakdown(b: Breakdown, indent = '    '): void {
  for (const k of b) console.log(`${indent}${k.kind}: Rss ${k.rssMiB.toFixed(1)} MiB, Pss ${k.pssMiB.toFixed(1)} MiB`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pid = Number(process.argv[2]);
  if (!pid) {
    console.error('usage: bench/memory-map.ts PID');
    process.exit(1);
  }
  printBreakdown(memoryByKind(pid), '');
}
