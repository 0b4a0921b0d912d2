import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside `metaUrl` (the caller's `import.meta.url`). From
 * dist/ the entry is `.js`. Under tsx (tests, `npm run bench`) both are `.ts`, and a worker does not
 * inherit tsx's loader from `--import tsx`: a bootstrap registers it before importing the entry.
 */
export function moduleWorker(metaUrl: string, name: string, options: WorkerOptions): Worker {
  const underTsx = metaUrl.endsWith('.ts');
  const entry = new URL(`./${name}${underTsx ? '.ts' : '.js'}`, metaUrl);
  return underTsx
    ? new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`, { ...options, eval: true })
    : new Worker(entry, options);
}
