/**
 * The longer fuzzing run of issue 11: the generated fuzz suite (test/http/fuzz.generated.test.ts)
 * with many more cases per operation and a fresh seed each time. CI runs the same suite with a fixed
 * seed and few cases. A failure prints the seed: `FUZZ_SEED=<seed> npm test fuzz.generated` replays it.
 *
 *   node --import ./scripts/ts-hooks.mjs bench/fuzz.bench.ts          # FUZZ_RUNS=400 by default
 */
import { spawnSync } from 'node:child_process';

const runs = process.env.FUZZ_RUNS ?? '400';
const seed = process.env.FUZZ_SEED ?? String(Date.now() % 2_147_483_647);
const started = performance.now();
const r = spawnSync(process.execPath, ['scripts/test.js', 'fuzz.generated'], {
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_SEED: seed, TEST_CONCURRENCY: '1' },
  encoding: 'utf8',
});
const out = `${r.stdout}${r.stderr}`;
// The summary lines of `npm test`'s reporter ("ℹ pass 117"; TAP's "# pass 117" too).
const count = (label: string) => Number(new RegExp(`^(?:ℹ|#) ${label} (\\d+)`, 'm').exec(out)?.[1] ?? NaN);
console.log(
  `fuzzing: ${runs} cases per operation, seed ${seed}: ${count('pass')} passed, ${count('fail')} failed in ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
if (r.status !== 0) {
  console.log(
    out
      .split('\n')
      .filter((l) => /not ok|^✖|Counterexample|-> \d{3}/.test(l))
      .map((l) => l.slice(0, 600))
      .join('\n'),
  );
  console.log(`replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm test fuzz.generated`);
  process.exit(1);
}
