// The availability bench's prober (bench/availability-probes.ts, `beside`): a child process that
// sends company B's probes to the server from "start" until "stop", then sends back their figures.
import { type ProbeStats, probesOf, runProbes } from './availability-probes.js';

const [base, keyB] = process.argv.slice(2) as [string, string];
let started: Promise<ProbeStats[]> | undefined;
let stopped = false;
process.on('message', (m) => {
  if (m === 'start') started = runProbes(probesOf(base, keyB), () => stopped);
  if (m !== 'stop' || !started) return;
  stopped = true;
  void started.then((stats) => process.send?.(stats, () => process.disconnect()));
});
// The bench gone (crashed or killed) ends the probes too: nothing would read them.
process.on('disconnect', () => {
  if (!stopped) process.exit(1);
});
process.send?.('ready');
