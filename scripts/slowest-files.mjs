// A node:test reporter (scripts/test.js adds it): at the end of a run, the test files that took
// longest, each its process's whole time (start-up, set-up and tests), with the run's sum. Files
// run in parallel, so the sum is more than the run's wall time; their order is what it tells.
const SHOWN = 15;

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
  const total = rows.reduce((sum, r) => sum + r.ms, 0);
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);
  yield `\nslowest test files (${rows.length} files, ${seconds(total).trim()} s in all):\n`;
  for (const r of rows.slice(0, SHOWN)) yield `${seconds(r.ms)} s  ${String(r.tests).padStart(4)} tests  ${r.file}\n`;
}
