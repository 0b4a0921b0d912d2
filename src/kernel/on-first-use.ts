import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS library loaded by the first call of the returned function instead of at start (ADR
 * 0027): V8 keeps a loaded module's source and compiled objects for the life of the process, and
 * an idle server that never calls the library should not hold them. `require` loads synchronously,
 * so synchronous callers stay synchronous; the first call pays the load (a few milliseconds).
 * `test/architecture/lazy-libraries.test.ts` keeps static imports of these libraries out of src/.
 */
export function requireOnFirstUse<T>(specifier: string): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: require(specifier) as T }).value;
}
