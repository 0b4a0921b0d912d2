// `npm run bench [name ...]`: runs every bench/*.bench.ts (or the named ones) one after another,
// each in its own process so one bench's memory and JIT state do not colour the next.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const wanted = process.argv.slice(2);
const all = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.bench.ts')).sort();
const chosen = wanted.length ? all.filter((f) => wanted.some((w) => f.startsWith(w))) : all;
if (chosen.length === 0) {
  console.error(`no bench matched; available: ${all.join(', ')}`);
  process.exit(1);
}
let failed = 0;
for (const file of chosen) {
  console.log(`\n### ${file}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
