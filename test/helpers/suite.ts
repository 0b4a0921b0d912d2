import { after, before } from 'node:test';

/**
 * A suite's shared set-up: `make` runs before the suite, registering what to close; everything
 * registered is closed after it, last made first, even when `make` failed half-way. The promise
 * answers what `make` made (node:test runs a file's top-level hooks in no promised order against
 * each other, so tests await it); a failed set-up rejects it, so its tests fail instead of waiting.
 */
export function suiteSetUp<T>(make: (onClose: (close: () => unknown) => void) => Promise<T>): Promise<T> {
  const closers: (() => unknown)[] = [];
  let settle: { resolve(v: T): void; reject(err: unknown): void } | undefined;
  const ready = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
  // The before hook reports the failure; the tests awaiting `ready` are cancelled with it.
  ready.catch(() => undefined);
  before(async () => {
    try {
      settle?.resolve(await make((close) => closers.push(close)));
    } catch (err) {
      settle?.reject(err);
      throw err;
    }
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
  });
  return ready;
}
