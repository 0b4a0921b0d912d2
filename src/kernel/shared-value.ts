/**
 * Values that many readers share (an in-process cache's entries): deeply frozen, so no reader can
 * change what the next one gets, and turned into JSON text at most once, however many responses
 * carry them.
 */
const jsonTexts = new WeakMap<object, string | null>();

// Typed arrays (the compliance facts keep times in one) cannot be frozen by JavaScript: they stay
// writable, and readers of a shared value must treat them as read-only.
function deepFreeze(value: unknown): void {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
}

/** Freezes `value` all the way down and marks it shared. */
export function shareValue<T>(value: T): T {
  deepFreeze(value);
  if (value !== null && typeof value === 'object') jsonTexts.set(value, null);
  return value;
}

/** The JSON text of a shared value (computed on first use, then kept with it); undefined for any other value. */
export function sharedJson(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const text = jsonTexts.get(value);
  if (text === undefined) return undefined;
  if (text !== null) return text;
  const made = JSON.stringify(value);
  jsonTexts.set(value, made);
  return made;
}
