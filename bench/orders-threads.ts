/**
 * Where the orders bench's server CPU goes by thread and by syscall (issue 29 point 6; bench/README.md
 * "Order path, session 14"): the raw better-sqlite3 server and the appliance, each in its own child
 * as in orders.bench.ts, one POST /orders (or GET /orders/live) run each, and per run:
 * - CPU ms per request of every thread of the child (`/proc/<pid>/task/<tid>/stat`, by thread name:
 *   the main thread, V8's GC helpers, libuv's pool, tsx's loader), user and system apart;
 * - write syscalls per request (`/proc/<pid>/io` syscw) and bytes written;
 * - with BENCH_STRACE=1, strace -c of the child over a second run (fsync/fdatasync/pwrite counts; strace
 *   slows the child, so that run's CPU figures are not used).
 *
 *   npx tsx bench/orders-threads.ts    # BENCH_ROUNDS=1 BENCH_DURATION=10 BENCH_CONNECTIONS=10 BENCH_ENDPOINT=post|get BENCH_KINDS=raw,appliance BENCH_STRACE=0|1
 *   BENCH_APPLIANCE_NODE_OPTIONS="--single-threaded-gc" npx tsx bench/orders-threads.ts   # node/V8 flags for the children
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { startServer, type ServerKind } from './lib/child.js';
import { machine } from './lib/format.js';
import { prepareTemplate } from './lib/seed.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ENDPOINT = process.env.BENCH_ENDPOINT === 'get' ? 'get' : 'post';
const KINDS = (process.env.BENCH_KINDS ?? 'raw,appliance').split(',') as ServerKind[];
const FLAGS = (process.env.BENCH_APPLIANCE_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
const TICK_MS = 10;
/** BENCH_ROUNDS=n: n measured runs in a row on the same child (how the CPU per request changes as the JIT warms up). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

interface ThreadCpu {
  name: string;
  user: number;
  sys: number;
}

function threads(pid: number): Map<string, ThreadCpu> {
  const out = new Map<string, ThreadCpu>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name: Number(tid) === pid ? 'main' : name, user: Number(f[11]) * TICK_MS, sys: Number(f[12]) * TICK_MS });
    } catch {
      // a thread that ended
    }
  }
  return out;
}

function io(pid: number): Record<string, number> {
  const o: Record<string, number> = {};
  for (const line of fs.readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n')) {
    const [k, v] = line.split(':');
    o[k!.trim()] = Number(v);
  }
  return o;
}

async function load(url: string, cookie: string | undefined, body: unknown, duration: number) {
  const post = ENDPOINT === 'post';
  return autocannon({
    url: url + '/api/v1/orders' + (post ? '' : '/live'),
    connections: CONNECTIONS,
    method: post ? 'POST' : 'GET',
    headers: { ...(post ? { 'content-type': 'application/json' } : {}), ...(cookie ? { cookie } : {}) },
    ...(post ? { body: JSON.stringify(body) } : {}),
    duration,
    timeout: 10,
  });
}

console.log(`orders-threads: ${ENDPOINT.toUpperCase()} ${DURATION} s, ${CONNECTIONS} connections; ${machine()}${FLAGS.length ? `; flags ${FLAGS.join(' ')}` : ''}`);
const template = await prepareTemplate();
try {
  for (const kind of KINDS) {
    const s = await startServer(kind, { env: template.env, execArgv: FLAGS });
    const pid = s.child.pid!;
    try {
      await load(s.url, s.ready.cookie, s.ready.postBody, 2);
      for (let round = 1; round <= ROUNDS; round++) {
      const t0 = threads(pid);
      const io0 = io(pid);
      const r = await load(s.url, s.ready.cookie, s.ready.postBody, DURATION);
      const t1 = threads(pid);
      const io1 = io(pid);
      const n = r.requests.total ?? r['2xx'];
      const byName = new Map<string, { user: number; sys: number; count: number }>();
      const perTid: string[] = [];
      for (const [tid, a] of t1) {
        const b = t0.get(tid) ?? { user: 0, sys: 0 };
        if (a.user + a.sys - b.user - b.sys > 0) perTid.push(`${tid}:${a.name}:${((a.user + a.sys - b.user - b.sys) / n).toFixed(3)}`);
        const e = byName.get(a.name) ?? { user: 0, sys: 0, count: 0 };
        e.user += a.user - b.user;
        e.sys += a.sys - b.sys;
        e.count++;
        byName.set(a.name, e);
      }
      let total = 0;
      for (const e of byName.values()) total += e.user + e.sys;
      console.log(`\n${kind}${ROUNDS > 1 ? ` round ${round}` : ''}: ${Math.round(r.requests.average)} req/s, ${n} requests, CPU ${(total / n).toFixed(3)} ms/req (all threads)`);
      for (const [name, e] of [...byName].sort((a, b) => b[1].user + b[1].sys - (a[1].user + a[1].sys))) {
        if (e.user + e.sys === 0) continue;
        console.log(`  ${name.padEnd(18)} x${e.count}  user ${(e.user / n).toFixed(3)}  sys ${(e.sys / n).toFixed(3)} ms/req`);
      }
      console.log(`  per thread (tid:name:ms/req): ${perTid.join(' ')}`);
      console.log(`  write syscalls ${((io1.syscw! - io0.syscw!) / n).toFixed(2)}/req, read syscalls ${((io1.syscr! - io0.syscr!) / n).toFixed(2)}/req, written ${((io1.write_bytes! - io0.write_bytes!) / n / 1024).toFixed(1)} KiB/req to disk`);
      }
      if (process.env.BENCH_PERF === '1') {
        // perf record of the child's threads (native frames: V8's compiler and GC helpers, libuv, SQLite) over a second run.
        const out = `/tmp/orders-threads-perf-${kind}-${pid}.data`;
        const pr = spawn('perf', ['record', '-F', '999', '-g', '-o', out, '-p', String(pid)], { stdio: 'ignore' });
        await new Promise((r2) => setTimeout(r2, 500));
        const r2 = await load(s.url, s.ready.cookie, s.ready.postBody, DURATION);
        pr.kill('SIGINT');
        await new Promise((r3) => pr.once('exit', r3));
        console.log(`  perf record over ${(r2.requests.total ?? r2['2xx'])} requests: ${out} (perf report -i ${out} --sort comm,tid,dso)`);
      }
      if (process.env.BENCH_STRACE === '1') {
        const out = `/tmp/orders-threads-strace-${kind}-${pid}.txt`;
        const st = spawn('strace', ['-f', '-c', '-o', out, '-p', String(pid)], { stdio: 'ignore' });
        await new Promise((r2) => setTimeout(r2, 500));
        const r2 = await load(s.url, s.ready.cookie, s.ready.postBody, DURATION);
        st.kill('SIGINT');
        await new Promise((r3) => st.once('exit', r3));
        console.log(`  strace -c over ${(r2.requests.total ?? r2['2xx'])} requests (${out}):`);
        const lines = fs.readFileSync(out, 'utf8').split('\n').filter((l) => /^\s*[\d.]+\s+[\d.]+\s+\d+\s+\d+/.test(l));
        for (const l of lines.slice(0, 14)) {
          const f = l.trim().split(/\s+/);
          const calls = Number(f[3]);
          console.log(`    ${f[f.length - 1]!.padEnd(16)} ${(calls / (r2.requests.total ?? r2['2xx'])).toFixed(2)}/req`);
        }
      }
    } finally {
      await s.stop();
    }
  }
} finally {
  template.cleanup();
}
