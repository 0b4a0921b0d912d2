// Maven version ordering as Maven's ComparableVersion defines it (the order OSV's Maven ranges and
// Maven itself use): items split at `.`, `-` and digit/letter changes, `-` and digit/letter changes
// opening a sub-list, trailing "null" items (0, "", final, ga, release) dropped, and known
// qualifiers ordered alpha < beta < milestone < rc < snapshot < release < sp < anything else.
// No maintained npm library implements this order, so it is written here.

type Item = number | string | Item[];

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };

function qualifierKey(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i >= 0 ? String(i) : `${QUALIFIERS.length}-${q}`;
}

function stringItem(s: string, followedByDigit: boolean): string {
  if (followedByDigit && s.length === 1) s = s === 'a' ? 'alpha' : s === 'b' ? 'beta' : s === 'm' ? 'milestone' : s;
  return ALIASES[s] ?? s;
}

const isNull = (i: Item): boolean => (Array.isArray(i) ? i.length === 0 : i === 0 || i === '');

function normalise(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]!;
    if (isNull(item)) list.splice(i, 1);
    else if (!Array.isArray(item)) break;
  }
}

function parse(version: string): Item[] {
  const v = version.toLowerCase();
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  let start = 0;
  let digit = false;
  const push = (s: string, next: string | undefined) => {
    list.push(digit ? Number(s.replace(/^0+(?=\d)/, '')) : stringItem(s, next !== undefined && /\d/.test(next)));
  };
  const open = () => {
    const sub: Item[] = [];
    list.push(sub);
    list = sub;
    stack.push(sub);
  };
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '.' || c === '-') {
      if (i === start) list.push(0);
      else push(v.slice(start, i), v[i + 1]);
      start = i + 1;
      if (c === '-') open();
    } else if (/\d/.test(c)) {
      if (!digit && i > start) {
        push(v.slice(start, i), c);
        start = i;
        open();
      }
      digit = true;
    } else {
      if (digit && i > start) {
        push(v.slice(start, i), c);
        start = i;
        open();
      }
      digit = false;
    }
  }
  if (v.length > start) push(v.slice(start), undefined);
  for (let i = stack.length - 1; i >= 0; i--) normalise(stack[i]!);
  return root;
}

function compareItems(a: Item | undefined, b: Item | undefined): number {
  if (a === undefined && b === undefined) return 0;
  if (a === undefined) return -compareItems(b, undefined);
  if (typeof a === 'number') {
    if (b === undefined) return a === 0 ? 0 : 1;
    if (typeof b === 'number') return Math.sign(a - b);
    return 1; // a number is above any qualifier and any sub-list
  }
  if (typeof a === 'string') {
    if (b === undefined) return cmpStr(qualifierKey(a), qualifierKey(''));
    if (typeof b === 'number') return -1;
    if (typeof b === 'string') return cmpStr(qualifierKey(a), qualifierKey(b));
    return -1; // a qualifier is below a sub-list
  }
  if (b === undefined) {
    for (const item of a) {
      const r = compareItems(item, undefined);
      if (r !== 0) return r;
    }
    return 0;
  }
  if (typeof b === 'number') return -1;
  if (typeof b === 'string') return 1;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const r = compareItems(a[i], b[i]);
    if (r !== 0) return r;
  }
  return 0;
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Compares two Maven versions; any non-empty string is a Maven version. */
export function compareMaven(a: string, b: string): number | null {
  if (a.trim() === '' || b.trim() === '') return null;
  return compareItems(parse(a.trim()), parse(b.trim()));
}
