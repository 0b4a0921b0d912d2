// Runs the project's TypeScript on Node's own type stripping (Node 22.18+), with a resolve hook in
// the thread that loads it: tests (`npm test`) and the worker threads started under them
// (src/kernel/module-worker.ts). Every file uses erasable syntax only (`erasableSyntaxOnly` in
// tsconfig.json holds it) and imports name the `.js` the compiler emits, so a `.js` import from a
// `.ts` file is that `.ts` file when there is one. The hook also answers two questions Node 22
// answers slowly (docs/adr/0019-type-stripping.md): a module's format, which Node finds by
// reading the nearest package.json again for every file it loads (and each read parses the whole
// "exports" field: drizzle-orm's is 137 KB), and a package name imported again from the project.
import { registerHooks } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Directory -> the "type" of the package.json that governs it ('module' or 'commonjs'). */
const typeOfDir = new Map();
function packageType(dir) {
  const known = typeOfDir.get(dir);
  if (known) return known;
  let type;
  const manifest = join(dir, 'package.json');
  if (existsSync(manifest)) type = JSON.parse(readFileSync(manifest, 'utf8')).type === 'module' ? 'module' : 'commonjs';
  else type = dirname(dir) === dir ? 'commonjs' : packageType(dirname(dir));
  typeOfDir.set(dir, type);
  return type;
}

const FORMAT_BY_EXTENSION = { '.mjs': 'module', '.cjs': 'commonjs' };
/** Package imports from the project's own files, by specifier and conditions. */
const fromProject = new Map();

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    const relative = specifier.startsWith('./') || specifier.startsWith('../');
    if (!parent?.startsWith('file:') || context.conditions?.includes('require')) return nextResolve(specifier, context);
    if (relative && specifier.endsWith('.js') && parent.endsWith('.ts')) {
      const ts = new URL(`${specifier.slice(0, -3)}.ts`, parent);
      if (existsSync(fileURLToPath(ts))) return nextResolve(ts.href, context);
    }
    if (relative && parent.includes('/node_modules/')) {
      const url = new URL(specifier, parent);
      const ext = /\.[cm]?js$/.exec(url.pathname)?.[0];
      const path = fileURLToPath(url);
      if (ext && existsSync(path)) return { url: url.href, format: FORMAT_BY_EXTENSION[ext] ?? packageType(dirname(path)), shortCircuit: true };
    }
    if (!relative && !specifier.startsWith('node:') && !specifier.startsWith('file:') && !parent.includes('/node_modules/')) {
      const key = `${specifier}\0${context.conditions?.join(',')}`;
      let found = fromProject.get(key);
      if (!found) fromProject.set(key, (found = nextResolve(specifier, context)));
      return { ...found, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
