/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own process, one after another (so they do
 * not compete for the CPU), and passes the environment through (DATABASE_URL, REDIS_URL, ...).
 * A file name on the command line runs only the benches whose names contain it.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const dir = new URL('.', import.meta.url);
const filter = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`\n== ${f}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', new URL(f, dir).pathname], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
