/**
 * npm run bench: the orders benchmark (autocannon, three servers) and then the fan-out benchmark,
 * one after the other (never concurrently: they would share the two cores). Not part of npm test.
 * Every server is a child process on 127.0.0.1 that stops with the run.
 */
import { runFanoutBench, fanoutReport } from './fanout.bench.js';
import { runOrdersBench, report } from './orders.bench.js';
import { machine } from './lib/format.js';

const started = Date.now();
// Whatever happens, this process does not outlive its time box (children exit with it: IPC disconnect).
setTimeout(() => {
  console.error('bench: time box of 15 minutes exceeded, stopping');
  process.exit(3);
}, 15 * 60_000).unref();

const orders = await runOrdersBench();
console.log('');
const fanout = await runFanoutBench();
console.log(`\n=== summary (${Math.round((Date.now() - started) / 1000)} s) ===`);
console.log(`machine: ${machine()}\n`);
console.log(report(orders));
console.log('');
console.log(fanoutReport(fanout));
