/** `npm run bench`: runs every bench/*.bench.ts in turn, each in its own process. */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const files = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.bench.ts')).sort();
let failed = false;
for (const f of files) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${f}`], { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
