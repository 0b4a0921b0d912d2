import { createHash } from 'node:crypto';

/** The namespace of every name-based UUID this service derives (itself a random v4, fixed forever). */
export const CRADLE_NAMESPACE = '5c1f2a8e-6b1d-4d7e-9a43-0f4f2c7b9e11';

/**
 * RFC 4122 version-5 (SHA-1, name-based) UUID: the same name always gives the same UUID, which OSCAL
 * documents need so that re-running an assessment on the same evidence yields identical ids.
 */
export function uuidV5(name: string, namespace = CRADLE_NAMESPACE): string {
  const ns = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
