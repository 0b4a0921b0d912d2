// A synchronous resolve hook in the loading thread that answers two questions Node 22 answers slowly
// (docs/adr/0022-resolve-cache-in-production.md): a module's format, which Node finds by reading the
// nearest package.json again for every file it loads (and each read parses the whole "exports"
// field: drizzle-orm's is 137 KB), and a package name imported again from the project's own files.
// The entry points register it before importing anything else (src/main.ts, src/cli/main.ts), so
// `npm start`, `node dist/main.js`, the `cradle` bin and the container all start with it; the tests'
// hook (scripts/ts-hooks.mjs) registers the same one under its `.ts` mapping.
import { existsSync, readFileSync } from 'node:fs';
import nodeModule, { type ResolveFnOutput, type ResolveHookSync } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type PackageType = 'module' | 'commonjs' | 'none';

/** Directory -> the "type" of the package.json that governs it ('none': the file has no "type"). */
const typeOfDir = new Map<string, PackageType>();
function packageType(dir: string): PackageType {
  const known = typeOfDir.get(dir);
  if (known) return known;
  let type: PackageType;
  const manifest = join(dir, 'package.json');
  // Node stops at a node_modules folder's own package.json: it governs no package.
  if (existsSync(manifest) && !dir.endsWith('/node_modules')) {
    const declared = (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type;
    type = declared === 'module' || declared === 'commonjs' ? declared : 'none';
  } else type = dirname(dir) === dir ? 'none' : packageType(dirname(dir));
  typeOfDir.set(dir, type);
  return type;
}

/**
 * The format Node would give the file, when it follows from the extension and a declared "type"
 * alone; undefined otherwise (a `.js` in a package without "type" is left to Node, which may
 * look at its syntax).
 */
function formatOf(path: string): 'module' | 'commonjs' | undefined {
  if (path.endsWith('.mjs')) return 'module';
  if (path.endsWith('.cjs')) return 'commonjs';
  if (!path.endsWith('.js')) return undefined;
  const type = packageType(dirname(path));
  return type === 'none' ? undefined : type;
}

/** Package imports from the project's own files, by specifier and conditions. */
const fromProject = new Map<string, ResolveFnOutput>();

const resolve: ResolveHookSync = (specifier, context, nextResolve) => {
  const parent = context.parentURL;
  // require() keeps Node's own resolution: its hooks see CommonJS's algorithm, not this one.
  if (!parent?.startsWith('file:') || context.conditions.includes('require')) return nextResolve(specifier, context);
  const relative = specifier.startsWith('./') || specifier.startsWith('../');
  if (relative && parent.includes('/node_modules/')) {
    const url = new URL(specifier, parent);
    const path = fileURLToPath(url);
    const format = formatOf(path);
    if (format && existsSync(path)) return { url: url.href, format, shortCircuit: true };
  }
  if (!relative && !specifier.startsWith('node:') && !specifier.startsWith('file:') && !parent.includes('/node_modules/')) {
    // Every project file resolves a package name from the same node_modules: the answer is the same.
    const key = `${specifier}\0${context.conditions.join(',')}`;
    let found = fromProject.get(key);
    if (!found) fromProject.set(key, (found = nextResolve(specifier, context)));
    return { ...found, shortCircuit: true };
  }
  return nextResolve(specifier, context);
};

// module.registerHooks came with Node.js 22.15: on an older 22 the process starts without the cache,
// as before it existed (a named import of it would stop such a process at once).
const registerHooks = (nodeModule as Partial<typeof nodeModule>).registerHooks;
let registered = false;
/** Registers the hook in this thread, once (the tests' hook and an entry point may both ask). */
export function registerResolveCache(): void {
  if (registered || !registerHooks) return;
  registered = true;
  registerHooks({ resolve });
}
