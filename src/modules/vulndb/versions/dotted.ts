// Orderings of the "dotted numbers plus a pre-release label" family that have no maintained npm
// library: NuGet (NuGetVersion: up to four numbers, SemVer 2 labels compared case-insensitively)
// and Packagist (Composer's normalised versions: up to four numbers, then dev < alpha < beta < RC
// < stable < patch).
import semver from 'semver';

type Dotted = { numbers: number[]; label: string };

function dotted(v: string, maxParts: number): Dotted | null {
  const m = /^v?(\d+(?:\.\d+)*)(?:[-.]?(.*))?$/i.exec(v.trim());
  if (!m) return null;
  const numbers = m[1]!.split('.').map(Number);
  if (numbers.length > maxParts || numbers.some((n) => !Number.isSafeInteger(n))) return null;
  while (numbers.length < maxParts) numbers.push(0);
  return { numbers, label: (m[2] ?? '').split('+')[0]! };
}

function compareNumbers(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** NuGet: numbers first; a version with a label is below the same numbers without one. */
export function compareNuget(a: string, b: string): number | null {
  const x = dotted(a, 4);
  const y = dotted(b, 4);
  if (!x || !y) return null;
  const n = compareNumbers(x.numbers, y.numbers);
  if (n !== 0) return n;
  if (x.label === y.label) return 0;
  if (x.label === '') return 1;
  if (y.label === '') return -1;
  // SemVer 2 precedence of the labels, case-insensitive as NuGet compares them.
  return semver.compare(`0.0.0-${x.label.toLowerCase()}`, `0.0.0-${y.label.toLowerCase()}`);
}

const STABILITY: [RegExp, number][] = [
  [/^dev/i, 0],
  [/^(alpha|a)/i, 1],
  [/^(beta|b)/i, 2],
  [/^rc/i, 3],
  [/^$/, 4],
  [/^(patch|pl|p)/i, 5],
];

function stability(label: string): [number, number] | null {
  for (const [re, rank] of STABILITY) {
    const m = re.exec(label);
    if (m) {
      const rest = label.slice(m[0].length).replace(/^[.-]/, '');
      if (rest !== '' && !/^\d+$/.test(rest)) return null;
      return [rank, rest === '' ? 0 : Number(rest)];
    }
  }
  return null;
}

/** Packagist (Composer): numbers, then the stability flag and its number. */
export function comparePackagist(a: string, b: string): number | null {
  const x = dotted(a, 4);
  const y = dotted(b, 4);
  if (!x || !y) return null;
  const n = compareNumbers(x.numbers, y.numbers);
  if (n !== 0) return n;
  const p = stability(x.label);
  const q = stability(y.label);
  if (!p || !q) return null;
  return p[0] - q[0] || p[1] - q[1];
}
