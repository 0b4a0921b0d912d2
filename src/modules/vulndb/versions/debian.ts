// Debian version ordering as dpkg defines it (deb-version(7), dpkg's verrevcmp): no maintained npm
// library implements it, and the algorithm is short and fully specified, so it is written here.

/** `[epoch:]upstream[-revision]`, or null when the string is not a Debian version. */
function split(v: string): { epoch: number; upstream: string; revision: string } | null {
  const s = v.trim();
  if (s === '' || /\s/.test(s)) return null;
  const colon = s.indexOf(':');
  let epoch = 0;
  let rest = s;
  if (colon >= 0) {
    const e = s.slice(0, colon);
    if (!/^\d+$/.test(e)) return null;
    epoch = Number(e);
    rest = s.slice(colon + 1);
  }
  const dash = rest.lastIndexOf('-');
  const upstream = dash >= 0 ? rest.slice(0, dash) : rest;
  const revision = dash >= 0 ? rest.slice(dash + 1) : '';
  if (!/^[A-Za-z0-9][A-Za-z0-9.+~:-]*$/.test(upstream)) return null;
  if (!/^[A-Za-z0-9.+~]*$/.test(revision)) return null;
  return { epoch, upstream, revision };
}

/** dpkg's character weight: `~` sorts before everything (even the end), letters before other marks. */
function order(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c === '~') return -1;
  if (/\d/.test(c)) return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !/\d/.test(a[i]!)) || (j < b.length && !/\d/.test(b[j]!))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (i < a.length && j < b.length && /\d/.test(a[i]!) && /\d/.test(b[j]!)) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && /\d/.test(a[i]!)) return 1;
    if (j < b.length && /\d/.test(b[j]!)) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

/** Compares two Debian versions (negative, zero, positive), or null when either is not one. */
export function compareDebian(a: string, b: string): number | null {
  const x = split(a);
  const y = split(b);
  if (!x || !y) return null;
  if (x.epoch !== y.epoch) return x.epoch - y.epoch;
  return verrevcmp(x.upstream, y.upstream) || verrevcmp(x.revision, y.revision);
}
