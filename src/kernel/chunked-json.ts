import { setImmediate as turn } from 'node:timers/promises';

/** Rows per chunk: one chunk's JSON.parse on the event loop is a millisecond or two. */
export const CHUNK_ITEMS = 2000;

/**
 * A long list as JSON strings of at most CHUNK_ITEMS items each: how a worker hands rows back
 * (docs/evidence.md "Memory"). A few strings clone as a copy of their bytes, where a structured
 * clone of many small objects costs a serialisation buffer plus every object again on the
 * receiving heap, in one uninterrupted step.
 */
export function packChunks(list: readonly unknown[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < list.length; i += CHUNK_ITEMS) out.push(JSON.stringify(list.slice(i, i + CHUNK_ITEMS)));
  return out;
}

/** The list back, one chunk per event-loop turn, each chunk string dropped once read. */
export async function unpackChunks<T>(chunks: string[]): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0) await turn();
    for (const item of JSON.parse(chunks[i] as string) as T[]) out.push(item);
    chunks[i] = '';
  }
  return out;
}
