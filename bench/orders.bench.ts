/**
 * autocannon: POST /orders and GET /orders/live on the real appliance (SQLite file, WAL +
 * synchronous=FULL) beside two baselines measured in the same run: a bare Fastify hello-world (the
 * framework's ceiling) and a raw better-sqlite3 + Fastify server doing the same rows (the storage's
 * ceiling). Each server runs in its own child process on 127.0.0.1; this process is only the load
 * generator. GET runs before POST, over the seeded live set of 40 active orders (a busy service).
 *
 *   npx tsx bench/orders.bench.ts            # BENCH_DURATION=10 BENCH_WARMUP=2 BENCH_WARMUP_REQUESTS=5000 BENCH_CONNECTIONS=10
 *
 * Warm-up: BENCH_WARMUP seconds and then at least BENCH_WARMUP_REQUESTS requests per endpoint, thrown
 * away. V8 optimizes a function after enough calls, not after enough seconds: the appliance's code
 * needs ≈ 3,000–4,000 POSTs before its CPU per request settles (TurboFan compiling on the helper
 * threads, the main thread on unoptimized code until then; bench/orders-threads.ts BENCH_ROUNDS=5,
 * bench/README.md "Order path, session 14"). With 2 s alone, a machine that serves 400 POSTs/s measured
 * the appliance's warm-up and one that serves 1,000/s mostly did not. BENCH_WARMUP_REQUESTS=0: as before.
 *   BENCH_CPU_PROF=/tmp/prof npx tsx bench/orders.bench.ts   # .cpuprofile of the appliance child
 *   BENCH_APPLIANCE_NODE_OPTIONS="--max-semi-space-size=2 --heap-growing-percent=20" npx tsx bench/orders.bench.ts   # flags for the appliance children
 */
import autocannon from 'autocannon';
import { pathToFileURL } from 'node:url';
import { startServer, type BenchServer, type ServerKind } from './lib/child.js';
import { machine, ms, pct, table } from './lib/format.js';
import { cpuMsOf } from './lib/pg-cpu.js';
import { prepareTemplate } from './lib/seed.js';

export interface OrdersBenchOptions {
  duration: number;
  warmup: number;
  /** At least this many warm-up requests per endpoint (after the warm-up seconds), so the JIT has warmed up whatever the machine's speed. */
  warmupRequests: number;
  connections: number;
  cpuProfDir?: string;
}

export interface Measurement {
  server: ServerKind | 'what-if';
  label: string;
  endpoint: 'hello' | 'POST /orders' | 'GET /orders/live';
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
  /** CPU time (user + system, all threads) of the server's process per request of the measured run: far less moved by other load than req/s. */
  cpuMsPerRequest?: number;
}

export const defaultOptions = (): OrdersBenchOptions => ({
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  warmupRequests: Number(process.env.BENCH_WARMUP_REQUESTS ?? 5000),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  cpuProfDir: process.env.BENCH_CPU_PROF || undefined,
});

interface Variant {
  kind: ServerKind;
  server: Measurement['server'];
  label: string;
  env?: Record<string, string>;
}

/** The three servers of the issue, then (BENCH_WHATIF=0 to skip) the appliance with a change the README recommends. */
const VARIANTS: Variant[] = [
  { kind: 'hello', server: 'hello', label: 'fastify hello-world' },
  { kind: 'raw', server: 'raw', label: 'raw better-sqlite3' },
  { kind: 'appliance', server: 'appliance', label: 'appliance (createRuntime)' },
  { kind: 'appliance', server: 'what-if', label: 'what-if: appliance+stmt cache', env: { BENCH_STMT_CACHE: '1' } },
];

async function measure(s: BenchServer, v: Variant, endpoint: Measurement['endpoint'], o: OrdersBenchOptions): Promise<Measurement> {
  const path = endpoint === 'hello' ? '/' : '/api/v1/orders' + (endpoint === 'GET /orders/live' ? '/live' : '');
  const post = endpoint === 'POST /orders';
  const base = {
    url: s.url + path,
    connections: o.connections,
    method: post ? 'POST' : 'GET',
    headers: { ...(post ? { 'content-type': 'application/json' } : {}), ...(s.ready.cookie ? { cookie: s.ready.cookie } : {}) },
    ...(post ? { body: JSON.stringify(s.ready.postBody) } : {}),
    timeout: 10,
  };
  let warmed = 0;
  if (o.warmup > 0) {
    const w = await autocannon({ ...base, duration: o.warmup });
    warmed += w.requests.total ?? w['2xx'];
  }
  if (o.warmupRequests > warmed) await autocannon({ ...base, amount: o.warmupRequests - warmed });
  const cpu0 = s.child.pid === undefined ? null : cpuMsOf(s.child.pid);
  const r = await autocannon({ ...base, duration: o.duration });
  const cpu1 = s.child.pid === undefined ? null : cpuMsOf(s.child.pid);
  const total = r.requests.total ?? r['2xx'];
  return {
    server: v.server,
    label: v.label,
    endpoint,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    ...(cpu0 !== null && cpu1 !== null && total > 0 ? { cpuMsPerRequest: (cpu1 - cpu0) / total } : {}),
  };
}

export async function runOrdersBench(o: OrdersBenchOptions = defaultOptions()): Promise<Measurement[]> {
  console.log(`orders bench: ${o.duration} s per endpoint after ${o.warmup} s and at least ${o.warmupRequests} requests of warm-up, ${o.connections} connections`);
  console.log(`machine: ${machine()}`);
  const template = await prepareTemplate();
  const results: Measurement[] = [];
  try {
    for (const v of VARIANTS.filter((x) => x.server !== 'what-if' || process.env.BENCH_WHATIF !== '0')) {
      // BENCH_APPLIANCE_NODE_OPTIONS: node/V8 flags for the appliance children only (e.g. npm start's memory flags).
      const applianceFlags = v.kind === 'appliance' ? (process.env.BENCH_APPLIANCE_NODE_OPTIONS ?? '').split(' ').filter(Boolean) : [];
      const execArgv = [...(v.server === 'appliance' && o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : []), ...applianceFlags];
      const s = await startServer(v.kind, { env: { ...template.env, ...v.env }, execArgv });
      try {
        const endpoints = v.kind === 'hello' ? (['hello'] as const) : (['GET /orders/live', 'POST /orders'] as const);
        for (const e of endpoints) {
          const m = await measure(s, v, e, o);
          results.push(m);
          console.log(`  ${m.label.padEnd(26)} ${e.padEnd(17)} ${Math.round(m.rps)} req/s  p50 ${ms(m.p50)} ms  p99 ${ms(m.p99)} ms  ${m.requests} requests${m.cpuMsPerRequest !== undefined ? `  CPU ${m.cpuMsPerRequest.toFixed(3)} ms/req` : ''}${m.errors || m.non2xx ? `  errors ${m.errors} non-2xx ${m.non2xx}` : ''}`);
        }
      } finally {
        await s.stop();
      }
    }
  } finally {
    template.cleanup();
  }
  console.log('\n' + report(results));
  return results;
}

export function report(results: Measurement[]): string {
  const hello = results.find((r) => r.endpoint === 'hello');
  const raw = (e: string) => results.find((r) => r.server === 'raw' && r.endpoint === e);
  const rows: Array<Array<string | number>> = [['server', 'endpoint', 'req/s', 'p50 ms', 'p99 ms', 'vs raw', 'vs hello', 'errors']];
  for (const r of results) {
    const base = raw(r.endpoint);
    rows.push([
      r.label,
      r.endpoint,
      Math.round(r.rps),
      ms(r.p50),
      ms(r.p99),
      base && r.server !== 'hello' ? pct(r.rps / base.rps) : '',
      hello ? pct(r.rps / hello.rps) : '',
      r.errors + r.non2xx,
    ]);
  }
  const lines = [table(rows), ''];
  // Issue 29's targets: POST /orders at 70 % and the live list at 80 % of the raw server's req/s.
  for (const [e, goal] of [['POST /orders', 0.7], ['GET /orders/live', 0.8]] as const) {
    const a = results.find((r) => r.server === 'appliance' && r.endpoint === e);
    const w = results.find((r) => r.server === 'what-if' && r.endpoint === e);
    const b = raw(e);
    if (a && b) lines.push(`target ${e} >= ${pct(goal)} of raw: ${pct(a.rps / b.rps)} -> ${a.rps / b.rps >= goal ? 'MET' : 'MISSED'}${w ? ` (what-if with statement cache: ${pct(w.rps / b.rps)})` : ''}`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runOrdersBench();
}
