import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A value made by the first call of the returned function instead of at start, then kept (ADR
 * 0027): what an idle server never uses (a library's loaded code, an `Intl` object's mapped ICU
 * data) should not stay resident in it. The one way Cradle defers such a value.
 */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * A CommonJS library loaded by its first use (`onFirstUse`). `require` loads synchronously, so
 * synchronous callers stay synchronous; the first call pays the load (a few milliseconds).
 * `test/architecture/lazy-libraries.test.ts` keeps static imports of these libraries out of src/.
 */
export function requireOnFirstUse<T>(specifier: string): () => T {
  return onFirstUse(() => require(specifier) as T);
}
