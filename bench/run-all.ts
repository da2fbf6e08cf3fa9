/**
 * npm run bench: the orders benchmark (autocannon, three servers), the fan-out benchmark, the sync
 * catch-up (8-hour and 7-day outages; BENCH_SYNC_SCENARIOS picks), the sync delay and the Friday night
 * (bench/friday-night.bench.ts, BENCH_FRIDAY_SECONDS) and the cloud capacity (bench/cloud-capacity.bench.ts, needs
 * Redis), one
 * after the other (never concurrently: they would share the two cores). Not part of npm test.
 * Every server is a child process on 127.0.0.1 that stops with the run.
 * BENCH_ONLY=orders,fanout,sync-catchup,sync-delay,friday-night,cloud-capacity picks some of them.
 */
import { runFanoutBench, fanoutReport } from './fanout.bench.js';
import { runOrdersBench, report } from './orders.bench.js';
import { catchupReport, runSyncCatchupBench } from './sync-catchup.bench.js';
import { delayReport, runSyncDelayBench } from './sync-delay.bench.js';
import { defaultFridayOptions, fridayReport, runFridayBench } from './friday-night.bench.js';
import { capacityReport, runCapacityBench } from './cloud-capacity.bench.js';
import { machine } from './lib/format.js';

const started = Date.now();
// Whatever happens, this process does not outlive its time box (children exit with it: IPC disconnect).
setTimeout(() => {
  console.error('bench: time box of 60 minutes exceeded, stopping');
  process.exit(3);
}, 60 * 60_000).unref();

const only = new Set((process.env.BENCH_ONLY ?? 'orders,fanout,sync-catchup,sync-delay,friday-night,cloud-capacity').split(',').map((s) => s.trim()));
process.env.BENCH_SYNC_SCENARIOS ??= '8h,7d';
const out: string[] = [];
if (only.has('orders')) {
  out.push(report(await runOrdersBench()));
  console.log('');
}
if (only.has('fanout')) {
  out.push(fanoutReport(await runFanoutBench()));
  console.log('');
}
if (only.has('sync-catchup')) {
  out.push(catchupReport(await runSyncCatchupBench()));
  console.log('');
}
if (only.has('sync-delay')) {
  out.push(delayReport(await runSyncDelayBench()));
  console.log('');
}
if (only.has('friday-night')) {
  out.push(fridayReport(await runFridayBench(defaultFridayOptions([]))));
  console.log('');
}
if (only.has('cloud-capacity')) out.push(capacityReport(await runCapacityBench()));
console.log(`\n=== summary (${Math.round((Date.now() - started) / 1000)} s) ===`);
console.log(`machine: ${machine()}\n`);
console.log(out.join('\n\n'));
process.exit(0);
