// Runs the project's TypeScript on Node's own type stripping (Node 22.18+), with a resolve hook in
// the thread that loads it: tests (`npm test`) and the worker threads started under them
// (src/kernel/module-worker.ts). Every file uses erasable syntax only (`erasableSyntaxOnly` in
// tsconfig.json holds it) and imports name the `.js` the compiler emits, so a `.js` import from a
// `.ts` file is that `.ts` file when there is one. Under it runs the production resolve cache
// (src/kernel/module-resolution.ts, ADR 0022): a module's format from a per-directory cache of the
// package type, and a package imported from the project resolved once per specifier.
import { registerHooks } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { registerResolveCache } from '../src/kernel/module-resolution.ts';

registerResolveCache();
// Registered last, so it runs first: the `.ts` file is what the cache below then sees.
registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (
      parent?.endsWith('.ts') &&
      !context.conditions?.includes('require') &&
      specifier.endsWith('.js') &&
      (specifier.startsWith('./') || specifier.startsWith('../'))
    ) {
      const ts = new URL(`${specifier.slice(0, -3)}.ts`, parent);
      if (existsSync(fileURLToPath(ts))) return nextResolve(ts.href, context);
    }
    return nextResolve(specifier, context);
  },
});
