// A node:test reporter (scripts/test.js adds it): at the end of a run, the test files that took
// longest, each its process's whole time (start-up, set-up and tests), with the run's sum. Files
// run in parallel, so the sum is more than the run's wall time; their order is what it tells. Each
// file's time is also kept in CRADLE_TEST_TIMINGS (set by scripts/test.js), merged into the times of
// the files this run did not run, so that the next run starts the slowest first.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const SHOWN = 15;

/** The kept times (file -> ms), or none yet. */
export function readTimes(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * The files in the order to start them: those without a kept time (new ones, or a first run) in
 * name order, then the rest, slowest first.
 */
export function slowestFirst(files, times) {
  return [...files].sort((a, b) => (times[b] ?? Infinity) - (times[a] ?? Infinity) || a.localeCompare(b));
}

/** Merges this run's times into the kept ones (a run of a few files keeps the others' times). */
export function keepTimes(path, rows) {
  const times = readTimes(path);
  for (const r of rows) if (r.ms > 0) times[r.file] = Math.round(r.ms);
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, `${JSON.stringify(times, null, 1)}\n`);
  renameSync(partial, path);
}

export default async function* slowestFiles(source) {
  const files = new Map();
  for await (const event of source) {
    const { file, name, nesting, details } = event.data ?? {};
    if (!file) continue;
    const row = files.get(file) ?? { ms: 0, tests: 0 };
    files.set(file, row);
    if (event.type === 'test:complete' && nesting === 0 && (name === file || file.endsWith(`/${name}`))) row.ms = details?.duration_ms ?? 0;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && details?.type !== 'suite') row.tests += 1;
  }
  const rows = [...files].map(([file, row]) => ({ file: file.replace(`${process.cwd()}/`, ''), ...row })).sort((a, b) => b.ms - a.ms);
  if (process.env.CRADLE_TEST_TIMINGS) keepTimes(process.env.CRADLE_TEST_TIMINGS, rows);
  const total = rows.reduce((sum, r) => sum + r.ms, 0);
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);
  yield `\nslowest test files (${rows.length} files, ${seconds(total).trim()} s in all):\n`;
  for (const r of rows.slice(0, SHOWN)) yield `${seconds(r.ms)} s  ${String(r.tests).padStart(4)} tests  ${r.file}\n`;
}
