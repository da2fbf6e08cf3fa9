// The appliance of the sync catch-up bench in its own process, as a restaurant runs it: compiled
// JavaScript (dist/bench/appliance-catchup.js, bundled like dist/server/main.js; see
// bench/lib/compiled.ts), createRuntime on the DATA_DIR the bench generated the outage in
// (BENCH_APPLIANCE_DATA_DIR; empty for a new appliance joining), listening on 127.0.0.1, with the
// production HTTP transport to the cloud (BENCH_CLOUD_URL, BENCH_SYNC_KEY). The bench samples this
// process's VmRSS from /proc; the child counts its SQLite statements and the time it waits for the cloud.
// IPC:
//   {type:'catchup'}: push until acknowledged (answers {type:'phase', phase:'pull'} when the push is
//     done), pull until has_more=false; answers {type:'catchup-done', ...figures}.
//   {type:'drain'}: pulls what came in after the timed pull, answers {type:'drain-done', pending}.
//   {type:'join', bootstrap}: a new appliance's first sync (snapshot or replay), answers {type:'join-done', ...}.
import fs from 'node:fs';
import v8 from 'node:v8';
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { MODULE_DESCRIPTORS, syncRegistry } from '../../server/modules/sync-descriptors.js';
import { TxBatch } from '../../sync/apply-helpers.js';
import { SyncEngine } from '../../sync/engine.js';
import { printPullProfile, pullAll, pushAll, timedInto } from '../lib/catchup-loops.js';
import { httpTransport } from '../../sync/transport.js';
import { serveUntilStopped } from '../lib/child.js';
import { startCpuProfile } from '../lib/cpuprofile.js';
import { sqliteCounter, sqliteProfile, TimedTransport } from '../lib/sync-counters.js';

const dataDir = process.env.BENCH_APPLIANCE_DATA_DIR;
const cloudUrl = process.env.BENCH_CLOUD_URL;
const syncKey = process.env.BENCH_SYNC_KEY;
if (!dataDir || !cloudUrl || !syncKey) throw new Error('bench appliance: BENCH_APPLIANCE_DATA_DIR, BENCH_CLOUD_URL and BENCH_SYNC_KEY are needed');
const bootstrap = process.env.BENCH_BOOTSTRAP === 'replay' ? 'replay' : 'snapshot';

// BENCH_SQL_PROFILE=1: the apply time per entity during the timed pull (as the in-process mode prints).
const pullProfile = new Map<string, { n: number; ms: number }>();
if (process.env.BENCH_SQL_PROFILE) {
  const timed = timedInto(pullProfile);
  for (const d of MODULE_DESCRIPTORS) d.apply = timed(d.entity, d.apply);
  TxBatch.prototype.flush = timed('batch flush', TxBatch.prototype.flush);
}

const config = loadConfig({ ROLE: 'local', DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' });
const rt = await createRuntime(config);
await rt.app.listen({ port: 0, host: '127.0.0.1' });
const addr = rt.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
const transport = new TimedTransport(httpTransport(cloudUrl, syncKey, { timeoutMs: 120_000 }));
// BENCH_SNAPSHOT_AHEAD=0: no snapshot page asked ahead (sync/engine.ts snapshotAhead).
const engine = new SyncEngine({
  db: rt.handle.db,
  changes: rt.changes,
  clock: rt.clock,
  transport,
  bootstrap,
  registry: syncRegistry,
  snapshotAhead: process.env.BENCH_SNAPSHOT_AHEAD !== '0',
});
const counter = sqliteCounter();

const send = (m: Record<string, unknown>) => process.send!(m);

// What the process's memory is made of at its peaks, per phase (sampled every 250 ms): V8's heap
// (committed and used, new space apart), memory outside the heap (Buffers, native), and the RSS.
type Peaks = { rss: number; heapTotal: number; heapUsed: number; newSpace: number; external: number; arrayBuffers: number };
const peaks = new Map<string, Peaks>();
let phase = 'idle';
const sampleMemory = () => {
  const m = process.memoryUsage();
  const ns = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0;
  const p = peaks.get(phase) ?? { rss: 0, heapTotal: 0, heapUsed: 0, newSpace: 0, external: 0, arrayBuffers: 0 };
  p.rss = Math.max(p.rss, m.rss);
  p.heapTotal = Math.max(p.heapTotal, m.heapTotal);
  p.heapUsed = Math.max(p.heapUsed, m.heapUsed);
  p.newSpace = Math.max(p.newSpace, ns);
  p.external = Math.max(p.external, m.external);
  p.arrayBuffers = Math.max(p.arrayBuffers, m.arrayBuffers);
  peaks.set(phase, p);
};
const setPhase = (name: string) => {
  sampleMemory();
  phase = name;
  sampleMemory();
};
setInterval(sampleMemory, 250).unref();
const memoryReport = () => Object.fromEntries(peaks);
const fail = (type: string) => (err: unknown) => send({ type, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });

process.on('message', (m: { type?: string }) => {
  if (m?.type === 'catchup') void catchup().catch(fail('catchup-done'));
  else if (m?.type === 'drain') void drain().catch(fail('drain-done'));
  else if (m?.type === 'join') void join().catch(fail('join-done'));
});

async function catchup(): Promise<void> {
  setPhase('push');
  const cpu0 = process.cpuUsage();
  transport.reset();
  counter.reset();
  const t0 = performance.now();
  const { pushBatches, pushedOps } = await pushAll(engine);
  const t1 = performance.now();
  const pushSql = counter.get();
  const afterPush = process.memoryUsage();
  const cpuPush = process.cpuUsage(cpu0);
  send({ type: 'phase', phase: 'pull' });
  setPhase('pull');
  counter.reset();
  pullProfile.clear();
  joinSql?.reset();
  const pullCpu = process.env.BENCH_CPU_PROF_PULL ? await startCpuProfile() : null;
  const { pullPages, pulledChanges } = await pullAll(engine);
  const t2 = performance.now();
  const pullSql = counter.get();
  if (pullCpu) console.error(`bench appliance: CPU profile of the pull in ${await pullCpu.stop(process.env.BENCH_CPU_PROF_PULL!, 'appliance-pull')}`);
  if (process.env.BENCH_SQL_PROFILE) {
    joinSql?.print('catch-up pull');
    printPullProfile(pullProfile);
  }
  const push = transport.get('/api/v1/sync/push');
  const pull = transport.get('/api/v1/sync/pull');
  send({
    type: 'catchup-done',
    pushMs: t1 - t0,
    pullMs: t2 - t1,
    pushBatches,
    pushedOps,
    pullPages,
    pulledChanges,
    httpPushMs: push.ms,
    httpPullMs: pull.ms,
    pushBytes: push.bytesOut,
    pullBytes: { total: pull.bytesIn, max: pull.maxIn },
    applianceSql: { push: pushSql, pull: pullSql },
    afterPush: { rss: afterPush.rss, heapUsed: afterPush.heapUsed },
    end: process.memoryUsage(),
    peaks: memoryReport(),
    // This process's CPU (user + system, ms) in the push and the pull: less sensitive to the machine's load than the wall time.
    cpuMs: { push: (cpuPush.user + cpuPush.system) / 1000, pull: (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000 - (cpuPush.user + cpuPush.system) / 1000 },
  });
  setPhase('after');
}

async function drain(): Promise<void> {
  for (let more = true; more; ) more = (await engine.pullOnce()).more;
  send({ type: 'drain-done', pending: await engine.pendingCount() });
}

// BENCH_SQL_PROFILE=1: the pull's and the join's time per SQLite statement text and per entity's apply (stderr).
const joinSql = process.env.BENCH_SQL_PROFILE ? sqliteProfile() : null;

async function join(): Promise<void> {
  setPhase('join');
  const cpu0 = process.cpuUsage();
  transport.reset();
  counter.reset();
  joinSql?.reset();
  pullProfile.clear();
  const t0 = performance.now();
  const { pulled } = await engine.syncOnce();
  const ms = performance.now() - t0;
  if (joinSql) {
    joinSql.print(`${bootstrap} join`);
    printPullProfile(pullProfile);
  }
  const snap = transport.get('/api/v1/sync/snapshot');
  const pull = transport.get('/api/v1/sync/pull');
  send({ type: 'join-done', ms, pulled, sql: counter.get(), snapshotPages: snap.calls, pullPages: pull.calls, bytes: snap.bytesIn, maxPage: snap.maxIn, end: process.memoryUsage(), peaks: memoryReport(), cpuMs: (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000 });
  setPhase('after');
}

const dbFile = config.sqliteFile;
serveUntilStopped({ port: addr.port, info: { pid: process.pid, file: dbFile, exists: Boolean(dbFile && fs.existsSync(dbFile)), memory: process.memoryUsage() } }, async () => {
  await rt.close();
});
