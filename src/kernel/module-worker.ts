import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside `metaUrl` (the caller's `import.meta.url`). From
 * dist/ the entry is `.js`. Run from the sources (tests, `npm run bench`) both are `.ts`, and a
 * worker does not inherit the parent's `--import`: a bootstrap registers the project's resolve hook
 * (scripts/ts-hooks.mjs: Node's own type stripping, `.js` imports to `.ts`) before importing the entry.
 */
export function moduleWorker(metaUrl: string, name: string, options: WorkerOptions): Worker {
  const fromSources = metaUrl.endsWith('.ts');
  const entry = new URL(`./${name}${fromSources ? '.ts' : '.js'}`, metaUrl);
  if (!fromSources) return new Worker(entry, options);
  const hooks = new URL('../../scripts/ts-hooks.mjs', import.meta.url);
  return new Worker(`import(${JSON.stringify(hooks.href)}).then(() => import(${JSON.stringify(entry.href)}));`, { ...options, eval: true });
}
