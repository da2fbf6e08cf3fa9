/**
 * Where the appliance's CPU goes per request in the orders bench (issue 29 point 6; bench/README.md
 * "The order path, session 13"): reads the `.cpuprofile` that `BENCH_CPU_PROF=<dir> npx tsx
 * bench/orders.bench.ts` writes for the appliance child, splits it into the GET /orders/live and the
 * POST /orders phase (the POST phase begins at the first sample inside the orders service's `create`),
 * and prints per phase its busy time (every sample but `(idle)`) and self time by where the code is:
 * a package (node_modules/<name>), one of our files, node's own (`node:...`), the garbage collector,
 * `(program)` (native work outside JavaScript: the socket, better-sqlite3's C++ and fsync wait when
 * not attributed to its JS caller). With the phases' request counts it gives ms per request.
 *
 *   npx tsx bench/orders-profile.ts <file.cpuprofile> [--get <requests>] [--post <requests>] [--top 30]
 *
 * The bench's request counts include its warm-up; run it with BENCH_WARMUP=0 BENCH_WARMUP_REQUESTS=0 for exact per-request
 * figures over the whole phase (the orders bench prints each phase's request count), or keep the
 * warm-up and pass `--last <seconds>` (the bench's BENCH_DURATION) with the measured run's counts: only
 * each phase's last seconds are read, i.e. the measured run after the JIT warmed up.
 */
import fs from 'node:fs';
import type { Profile, ProfileNode } from './lib/cpuprofile.js';

const args = process.argv.slice(2);
const file = args[0];
if (!file) throw new Error('usage: orders-profile.ts <file.cpuprofile> [--get n] [--post n] [--top n]');
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : undefined;
};
const TOP = opt('top') ?? 30;
/** --callers <text>: for functions whose name contains it, the stacks (3 frames up) their self time comes from. */
const callersOf = (() => {
  const i = args.indexOf('--callers');
  return i >= 0 ? args[i + 1] : undefined;
})();
const counts = { GET: opt('get'), POST: opt('post') };
/** --last <seconds>: only each phase's last seconds of profile (the measured run, after the warm-up). */
const LAST_MS = opt('last') !== undefined ? opt('last')! * 1000 : undefined;

const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Where a frame's code lives. */
function place(url: string): string {
  if (!url) return '';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const m = /\/(server|shared|sync|bench)\/(.*)$/.exec(url);
  return m ? `${m[1]}/${m[2]}` : url;
}
const frameName = (n: ProfileNode) => {
  const f = n.callFrame;
  const where = place(f.url);
  return where ? `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}` : f.functionName;
};

// The POST phase starts at the first sample whose stack has `create` of the orders service.
const inCreate = new Map<number, boolean>();
function hasCreate(id: number): boolean {
  const known = inCreate.get(id);
  if (known !== undefined) return known;
  const n = byId.get(id)!;
  const here = n.callFrame.functionName === 'create' && n.callFrame.url.includes('orders.service');
  const v = here || (parent.has(id) ? hasCreate(parent.get(id)!) : false);
  inCreate.set(id, v);
  return v;
}
const inLive = new Map<number, boolean>();
function hasLive(id: number): boolean {
  const known = inLive.get(id);
  if (known !== undefined) return known;
  const n = byId.get(id)!;
  const here = n.callFrame.functionName === 'live' && n.callFrame.url.includes('orders.service');
  const v = here || (parent.has(id) ? hasLive(parent.get(id)!) : false);
  inLive.set(id, v);
  return v;
}
let postStart = p.samples.findIndex((s) => hasCreate(s));
if (postStart < 0) postStart = p.samples.length;
let getStart = p.samples.findIndex((s) => hasLive(s));
if (getStart < 0 || getStart > postStart) getStart = postStart;

interface Phase {
  name: 'GET' | 'POST';
  from: number;
  to: number;
}
const phases: Phase[] = [
  { name: 'GET', from: getStart, to: postStart },
  { name: 'POST', from: postStart, to: p.samples.length },
];

if (LAST_MS !== undefined) {
  for (const ph of phases) {
    let t = 0;
    let i = ph.to;
    while (i > ph.from && t < LAST_MS) {
      i--;
      t += (p.timeDeltas[i + 1] ?? 0) / 1000;
    }
    ph.from = i;
  }
}

const pct = (x: number, of: number) => `${((100 * x) / of).toFixed(1)} %`;
for (const ph of phases) {
  const self = new Map<number, number>();
  let busy = 0;
  let wall = 0;
  for (let i = ph.from; i < ph.to; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000; // a sample's time is the delta to the next one
    wall += dt;
    const n = byId.get(p.samples[i]!)!;
    if (n.callFrame.functionName === '(idle)') continue;
    busy += dt;
    self.set(n.id, (self.get(n.id) ?? 0) + dt);
  }
  const reqs = counts[ph.name];
  const per = (ms: number) => (reqs ? `  ${((1000 * ms) / reqs).toFixed(1)} µs/req` : '');
  console.log(`\n== ${ph.name} phase: ${(wall / 1000).toFixed(2)} s of profile, busy ${(busy / 1000).toFixed(2)} s (${pct(busy, wall)})${reqs ? `, ${reqs} requests: ${((1000 * busy) / reqs).toFixed(1)} µs busy per request` : ''}`);
  const byPlace = new Map<string, number>();
  const byFn = new Map<string, number>();
  for (const [id, ms] of self) {
    const n = byId.get(id)!;
    const where = place(n.callFrame.url) || n.callFrame.functionName;
    const key = where.startsWith('server/') || where.startsWith('shared/') || where.startsWith('sync/') ? `ours: ${where}` : where;
    byPlace.set(key, (byPlace.get(key) ?? 0) + ms);
    const fn = frameName(n);
    byFn.set(fn, (byFn.get(fn) ?? 0) + ms);
  }
  const show = (title: string, m: Map<string, number>) => {
    console.log(`-- self time by ${title}`);
    for (const [k, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${ms.toFixed(0).padStart(7)} ms ${pct(ms, busy).padStart(7)}${per(ms)}  ${k}`);
  };
  show('place (package / our file / node)', byPlace);
  show('function', byFn);
  if (callersOf) {
    const stacks = new Map<string, number>();
    for (const [id, ms] of self) {
      if (!frameName(byId.get(id)!).includes(callersOf)) continue;
      const chain: string[] = [];
      for (let up = parent.get(id), k = 0; up !== undefined && k < 4; up = parent.get(up), k++) chain.push(frameName(byId.get(up)!));
      const key = `${frameName(byId.get(id)!)} <- ${chain.join(' <- ')}`;
      stacks.set(key, (stacks.get(key) ?? 0) + ms);
    }
    show(`callers of '${callersOf}'`, stacks);
  }
}
