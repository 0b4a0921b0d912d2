// Which company's rows the database may show the code that is running now: the application side of
// PostgreSQL row-level security (ADR 0009). Every pooled connection is told the scope of the code
// that checked it out, and the tenant tables' policies show only that company's rows.
//
// - Inside an HTTP request the scope starts closed (no company: tenant tables look empty) and is
//   opened for one company once the request is authenticated (API key, session) or its portal is
//   resolved. A handler that forgets its `where company_id = …` still sees nothing of another company.
// - Code outside any request (workers, the operator CLI, start-up) is Cradle's own cross-company
//   machinery and runs as `system`, as does any code wrapped in `asSystem` (a key looked up by its
//   digest before its company is known, group commits that write rows of several companies at once).
import { AsyncLocalStorage } from 'node:async_hooks';

export type TenantScope = {
  /** The one company whose rows are visible; undefined means none (or all, when `system`). */
  companyId?: string | undefined;
  /** Cradle's own cross-company code: every row is visible. */
  system?: boolean;
};

const storage = new AsyncLocalStorage<TenantScope>();
const SYSTEM: TenantScope = Object.freeze({ system: true });

/** The scope of the code running now: a request's (mutable) scope, or system outside any request. */
export function currentScope(): TenantScope {
  return storage.getStore() ?? SYSTEM;
}

// Drizzle's query builders are lazy thenables: they run when awaited, not when built. Awaiting
// inside the scope makes `asSystem(() => db.select()…)` run its query in that scope too.
const within = <T>(scope: TenantScope, fn: () => T | PromiseLike<T>): Promise<T> => storage.run(scope, async () => await fn());

/** Runs `fn` as Cradle's own cross-company code (all rows visible). */
export function asSystem<T>(fn: () => T | PromiseLike<T>): Promise<T> {
  return within(SYSTEM, fn);
}

/** Runs `fn` seeing only `companyId`'s rows. */
export function inCompany<T>(companyId: string, fn: () => T | PromiseLike<T>): Promise<T> {
  return within({ companyId }, fn);
}

/**
 * Runs `fn` (the rest of an HTTP request) synchronously in a fresh closed scope that `openRequestScope` later
 * opens for one company. Fastify's callback-style onRequest hook calls this with its `done`.
 */
export function runInRequestScope<T>(fn: () => T): T {
  return storage.run({}, fn);
}

/**
 * Opens the current request's scope for `companyId`. Outside a request (system or an explicit
 * scope) it changes nothing: the caller's scope already decides. A request's scope opens once:
 * asking for a second company is a programming error and throws.
 */
export function openRequestScope(companyId: string): void {
  const scope = storage.getStore();
  if (!scope || scope.system || scope === SYSTEM) return;
  if (scope.companyId !== undefined && scope.companyId !== companyId) {
    throw new Error('request scope already opened for another company');
  }
  scope.companyId = companyId;
}

/** The value the database sees in `cradle.company_id` for `scope` ('' for none; '*' for system). */
export function scopeSetting(scope: TenantScope): string {
  if (scope.system) return '*';
  return scope.companyId ?? '';
}
