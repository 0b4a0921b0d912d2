// RPM version ordering (rpmvercmp of rpm's lib/rpmvercmp.c, with epoch and release as rpm compares
// an EVR): alphanumeric segments, numbers above letters, `~` below everything, `^` below the end
// only. Written here: no maintained npm library implements rpmvercmp.

function segments(v: string): string[] {
  return v.match(/~|\^|\d+|[A-Za-z]+/g) ?? [];
}

function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  const x = segments(a);
  const y = segments(b);
  for (let i = 0; ; i++) {
    const s = x[i];
    const t = y[i];
    if (s === '~' || t === '~') {
      if (s !== '~') return 1;
      if (t !== '~') return -1;
      continue;
    }
    if (s === '^' || t === '^') {
      if (s === undefined) return -1;
      if (t === undefined) return 1;
      if (s !== '^') return 1;
      if (t !== '^') return -1;
      continue;
    }
    if (s === undefined || t === undefined) {
      if (s === undefined && t === undefined) return 0;
      return s === undefined ? -1 : 1;
    }
    const sNum = /^\d/.test(s);
    const tNum = /^\d/.test(t);
    if (sNum !== tNum) return sNum ? 1 : -1;
    if (sNum) {
      const p = s.replace(/^0+/, '');
      const q = t.replace(/^0+/, '');
      if (p.length !== q.length) return p.length - q.length;
      if (p !== q) return p < q ? -1 : 1;
    } else if (s !== t) return s < t ? -1 : 1;
  }
}

function evr(v: string): { epoch: number; version: string; release: string } | null {
  const s = v.trim();
  if (s === '' || /\s/.test(s)) return null;
  const m = /^(?:(\d+):)?([^-]+)(?:-(.+))?$/.exec(s);
  if (!m) return null;
  return { epoch: Number(m[1] ?? 0), version: m[2]!, release: m[3] ?? '' };
}

/** Compares two RPM `[epoch:]version[-release]` strings, or null when either is not one. */
export function compareRpm(a: string, b: string): number | null {
  const x = evr(a);
  const y = evr(b);
  if (!x || !y) return null;
  if (x.epoch !== y.epoch) return x.epoch - y.epoch;
  const v = rpmvercmp(x.version, y.version);
  if (v !== 0) return v;
  // A range bound without a release ("1.2") covers every release of that version.
  if (x.release === '' || y.release === '') return 0;
  return rpmvercmp(x.release, y.release);
}
