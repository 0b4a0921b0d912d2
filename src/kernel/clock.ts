/** The one source of "now", so tests can move time without touching the system clock. */
export type Clock = { now(): Date };
export const systemClock: Clock = { now: () => new Date() };
