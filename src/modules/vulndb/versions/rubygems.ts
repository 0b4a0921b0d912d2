// RubyGems version ordering (Gem::Version#<=>): segments of digits or letters, a letter segment makes
// a prerelease and sorts below any number, trailing zeros do not count. Written here: no
// maintained npm library implements Gem::Version.

function segments(v: string): (number | string)[] | null {
  const s = v.trim();
  if (!/^[0-9]+(?:\.[0-9A-Za-z-]+)*(?:-[0-9A-Za-z-.]+)?$/.test(s)) return null;
  // "1.0-rc1" is read by RubyGems as "1.0.pre.rc1".
  const parts = s.replace(/-/g, '.pre.').match(/\d+|[A-Za-z]+/g) ?? [];
  const out = parts.map((p) => (/^\d/.test(p) ? Number(p) : p));
  // Canonical form: zeros before the first letter segment and at the end are dropped.
  const firstLetter = out.findIndex((p) => typeof p === 'string');
  const release = firstLetter < 0 ? out : out.slice(0, firstLetter);
  const pre = firstLetter < 0 ? [] : out.slice(firstLetter);
  while (release.length > 1 && release[release.length - 1] === 0) release.pop();
  while (pre.length > 0 && pre[pre.length - 1] === 0) pre.pop();
  return [...release, ...pre];
}

/** Compares two RubyGems versions, or null when either is not one. */
export function compareRubyGems(a: string, b: string): number | null {
  const x = segments(a);
  const y = segments(b);
  if (!x || !y) return null;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? 0;
    const q = y[i] ?? 0;
    if (p === q) continue;
    if (typeof p === 'number' && typeof q === 'number') return p - q;
    if (typeof p === 'string' && typeof q === 'string') return p < q ? -1 : 1;
    return typeof p === 'string' ? -1 : 1;
  }
  return 0;
}
