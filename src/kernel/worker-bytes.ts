import type { TransferListItem } from 'node:worker_threads';

// What crosses to and from the offload pool's workers (src/kernel/worker-pool.ts): bytes that can be
// moved rather than copied.

/**
 * Bytes that own their whole ArrayBuffer, so it can be transferred: the same bytes when they
 * already do (a large request body, a large zlib output), else one copy (a slice of Node's shared
 * Buffer pool must never be transferred, and a view of a larger buffer would move all of it).
 */
export function ownBytes(b: Uint8Array): Uint8Array {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer ? b : new Uint8Array(b);
}

/**
 * A transfer list without its empty ArrayBuffers. An empty one moves nothing, and a detached one
 * (bytes already handed over) in a transfer list makes Node 20 drop the whole message without an
 * error: a job would wait forever, and its company's later jobs behind it. Left out of the list, a
 * buffer is cloned instead, which refuses a detached one at once (DataCloneError). Both directions.
 */
export const movable = (list: readonly TransferListItem[]): TransferListItem[] => list.filter((t) => !(t instanceof ArrayBuffer && t.byteLength === 0));
