// `npm run bench [name ...]`: runs every bench/*.bench.ts (or the named ones) one after another,
// each in its own process so one bench's memory and JIT state do not colour the next, and ends with
// one summary table: every figure line that names its baseline, ratio or goal, per bench and database.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

const wanted = process.argv.slice(2);
const all = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const chosen = wanted.length ? all.filter((f) => wanted.some((w) => f.startsWith(w))) : all;
if (chosen.length === 0) {
  console.error(`no bench matched; available: ${all.join(', ')}`);
  process.exit(1);
}

type Row = { bench: string; database: string; figure: string };
const rows: Row[] = [];
const FIGURE = /goal|ratio|baseline|%| x the | ×/i;
const DATABASE = /^\s*(pglite|postgres(ql)?)\b/i;

/** Runs one bench, echoing its output as it comes, and keeps its figure lines for the summary. */
function run(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', './scripts/ts-hooks.mjs', `bench/${file}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const bench = file.replace('.bench.ts', '');
    let database = '';
    let pending = '';
    const take = (line: string) => {
      const db = DATABASE.exec(line);
      if (db && line.trim().length <= 12) database = (db[1] ?? '').toLowerCase().startsWith('pg') ? 'PGlite' : 'PostgreSQL';
      else if (FIGURE.test(line)) rows.push({ bench, database, figure: line.trim().replace(/\|/g, '/') });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) take(line);
    });
    child.on('close', (code) => {
      if (pending) take(pending);
      resolve(code ?? 1);
    });
  });
}

let failed = 0;
const started = new Date();
for (const file of chosen) {
  console.log(`\n### ${file}`);
  if ((await run(file)) !== 0) failed++;
}
console.log(
  `\n## Summary: ${started.toISOString()}, node ${process.version}, ${cpus().length} cores, load average at the end ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log('Each figure beside its same-run baseline; ratios hold across machines better than absolute times.\n');
console.log('| bench | database | figure |');
console.log('|---|---|---|');
for (const r of rows) console.log(`| ${r.bench} | ${r.database} | ${r.figure} |`);
if (failed) console.log(`\n${failed} bench(es) failed.`);
process.exit(failed ? 1 : 0);
