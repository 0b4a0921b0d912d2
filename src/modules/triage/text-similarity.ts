/**
 * TF-IDF cosine similarity over stemmed words: enough to spot a re-worded report of the same
 * flaw without any network or model. Stop words and numbers-only tokens are dropped; version
 * numbers and identifiers (cve-2026-1234, /api/login) survive as tokens.
 */
const STOP = new Set(
  'a an and are as at be by can could for from has have i if in into is it its of on or our that the their then there this to was were when which while will with you your we my me so not no do does did been being than also just via using use used'.split(
    ' ',
  ),
);

/** Folds the commonest English inflections, so "cookies"/"cookie" and "trusted"/"trusts" meet. */
const stem = (w: string): string => (w.length > 4 ? w.replace(/(ing|ed|es|s)$/, '') : w);

export function tokens(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z0-9][a-z0-9_./-]*[a-z0-9]|[a-z]/g) ?? [];
  return words.filter((w) => !STOP.has(w) && !/^\d+$/.test(w)).map(stem);
}

type Vector = Map<string, number>;

function termFrequencies(toks: string[]): Vector {
  const tf: Vector = new Map();
  for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, w] of a) {
    na += w * w;
    const o = b.get(t);
    if (o !== undefined) dot += w * o;
  }
  for (const w of b.values()) nb += w * w;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * The characters of each text the comparison reads: a report's opening says what it is about, and
 * 500 reports of 112 KiB each once cost 12 s of CPU per triage job (issue 24); 4,000 characters of
 * each bound a job to about 2 MB of text.
 */
export const SIMILARITY_CHARS = 4000;

/** Similarity (0..1) of `text` to each document, weighting terms by their rarity across all of them. */
export function similarities(text: string, docs: readonly { id: string; text: string }[]): { id: string; similarity: number }[] {
  const all = [text, ...docs.map((d) => d.text)].map((t) => termFrequencies(tokens(t.slice(0, SIMILARITY_CHARS))));
  const df = new Map<string, number>();
  for (const v of all) for (const t of v.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = all.length;
  const weigh = (v: Vector): Vector => new Map([...v].map(([t, f]) => [t, (1 + Math.log(f)) * Math.log(1 + n / (df.get(t) ?? 1))]));
  const [query, ...rest] = all.map(weigh);
  return docs.map((d, i) => ({ id: d.id, similarity: cosine(query as Vector, rest[i] as Vector) }));
}
