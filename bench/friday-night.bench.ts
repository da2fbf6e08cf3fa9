/**
 * Friday night (issue 28 point 13): a restaurant's appliance at ten times a busy evening, with its
 * cloud, for a bounded time.
 *
 * Processes (each server its own Node process, bench/lib/child.ts): the real cloud (ROLE=cloud,
 * PostgreSQL, fresh schema; bench/servers/cloud.ts), the real appliance paired with it
 * (bench/servers/appliance-synced.ts: SQLite WAL + synchronous=FULL, its SyncWorker long-polling
 * the cloud), a bare Fastify hello-world (the baseline), and this process: 50 socket.io tablets
 * (websocket, the staff cookie) and an open-loop load generator (Poisson arrivals per action, so
 * a slow answer does not slow the offered load down).
 *
 * What the staff do, per hour of a busy evening (BENCH_FRIDAY_FACTOR multiplies it, default 10):
 * 150 orders on tables (two dishes each), each advanced new → accepted → preparing → ready →
 * completed by the kitchen (POST /orders/:id/advance), 50 bills paid at the table (GET the
 * table's bill, POST its payment), 60 stock bookings, 30 temperature readings, every one of the
 * 50 tablets reading the floor plan once a minute (3,000), the kitchen screens reading the live
 * orders (600), and 30 web orders placed in the cloud by guests (POST /public/order/:slug, then
 * the payment simulator's callback: "betaald"), which reach the appliance through sync.
 * Web orders are advanced by the kitchen like the staff's own.
 *
 * Reported: p50/p99/max per endpoint (ms, measured here from request sent to answer read), the
 * fan-out delay (order POST sent → the 50th tablet has `order:created`; for web orders from the
 * cloud POST sent, i.e. through the cloud, its long-poll and the appliance's pull), RSS of the
 * appliance and the cloud at the start (after the warm-up) and the end, errors (any non-2xx, any
 * failed request, any tablet missing an event), and the baseline: GET / of a bare Fastify at
 * BENCH_FRIDAY_BASELINE_RPS (default 20/s) during the same seconds, so "p99 / baseline p99" is
 * comparable between runs on a shared machine. The load average is printed at start and end.
 *
 *   npx tsx bench/friday-night.bench.ts                 # 180 s after 15 s warm-up
 *   npx tsx bench/friday-night.bench.ts --soak 600      # the 10-minute soak (RSS growth target)
 *   BENCH_FRIDAY_FACTOR=10 BENCH_FRIDAY_SECONDS=180 BENCH_FRIDAY_WARMUP=15 BENCH_FRIDAY_TABLETS=50
 *   BENCH_FRIDAY_CPU_PROF=/tmp/prof                    # a .cpuprofile of the appliance
 *   BENCH_APPLIANCE_NODE_OPTIONS="--max-semi-space-size=2 --heap-growing-percent=20" BENCH_CLOUD_NODE_OPTIONS=…   # npm start's memory flags on the children
 *   BENCH_FRIDAY_COMPILED=1                            # appliance and cloud as compiled JavaScript (what npm start runs): memory as shipped
 *   BENCH_FRIDAY_SYNC=0                                # experiment: no sync after the bootstrap, no web orders
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { io as connect, type Socket } from 'socket.io-client';
import { nodeFlagsFrom, startServer, type BenchServer } from './lib/child.js';
import { machine, percentile, table } from './lib/format.js';
import { epochMs, serverTimes, type ServerTimes } from './lib/server-times.js';
import { startCloud, sleep } from './lib/sync.js';
import { buildCompiledChildren } from './lib/compiled.js';

export interface FridayOptions {
  seconds: number;
  warmup: number;
  factor: number;
  tablets: number;
  baselineRps: number;
  /** false (BENCH_FRIDAY_SYNC=0, an experiment): the appliance's sync stops after its bootstrap and no web orders are placed. */
  sync: boolean;
  /** BENCH_FRIDAY_COMPILED=1: the appliance and the cloud run as compiled JavaScript, as `npm start` runs them (memory as shipped; bench/lib/compiled.ts). */
  compiled: boolean;
}

export const defaultFridayOptions = (argv = process.argv.slice(2)): FridayOptions => {
  const soakAt = argv.indexOf('--soak');
  const soak = soakAt >= 0 ? Number(argv[soakAt + 1] ?? 600) : NaN;
  return {
    seconds: Math.max(10, Math.min(3600, Number.isFinite(soak) ? soak : Number(process.env.BENCH_FRIDAY_SECONDS ?? 180))),
    warmup: Math.max(0, Number(process.env.BENCH_FRIDAY_WARMUP ?? 15)),
    factor: Math.max(0.1, Number(process.env.BENCH_FRIDAY_FACTOR ?? 10)),
    tablets: Math.max(1, Math.min(500, Number(process.env.BENCH_FRIDAY_TABLETS ?? 50))),
    baselineRps: Math.max(1, Number(process.env.BENCH_FRIDAY_BASELINE_RPS ?? 20)),
    sync: process.env.BENCH_FRIDAY_SYNC !== '0',
    compiled: process.env.BENCH_FRIDAY_COMPILED === '1',
  };
};

/** A busy evening, per hour (see the header). */
export const BUSY_EVENING_PER_HOUR = { orders: 150, payments: 50, stock: 60, temperature: 30, floorReads: 3000, liveReads: 600, webOrders: 30 } as const;

interface Stats {
  n: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

export interface FridayResult {
  options: FridayOptions;
  loadStart: string;
  loadEnd: string;
  endpoints: Array<{ name: string; staff: boolean; server?: Stats } & Stats>;
  baseline: Stats;
  fanout: { staff: Stats; web: Stats; missing: number };
  rss: { appliance: { start: number; end: number; max: number }; cloud: { start: number; end: number; max: number } };
  errors: string[];
  ordersCreated: number;
  /** The appliance's event-loop delay (ms) and its CPU time as a share of one core, over the measured seconds. */
  applianceLoop: { p50: number; p99: number; max: number };
  applianceCpu: number;
  /** 4 KiB write + fdatasync on the temp directory's disk, every 250 ms during the run (ms). */
  fsync: Stats;
  /** The staff requests that took ≥ SLOW_MS here, each lined up with what overlapped it (slowest first). */
  slow: SlowSample[];
}

/** A staff answer this slow (ms, measured here) is lined up with the appliance's own time, its loop stalls and the disk probe. */
const SLOW_MS = 40;

export interface SlowSample {
  name: string;
  /** Seconds after the measured part began. */
  at: number;
  ms: number;
  /** The appliance's own time for the same request (its key, started inside this answer's window), if it took ≥ 20 ms there. */
  inAppliance?: number;
  /** When the appliance received it, ms after this process sent it (the time in the socket before its loop read the request). */
  receivedAfter?: number;
  /** Appliance event-loop stalls overlapping the answer's window: their sum and the longest, ms. */
  stallMs: number;
  stallMax: number;
  /** The longest disk probe (write + fdatasync) overlapping the window, ms. */
  diskMax: number;
}

/** Lines the slow staff answers up with the appliance's slow requests, its loop stalls and the disk probes of the same seconds. */
export function attributeSlow(samples: Array<{ name: string; at: number; ms: number }>, server: Pick<ServerTimes, 'slow' | 'stalls'>, disk: Array<{ at: number; ms: number }>, t0: number): SlowSample[] {
  const overlap = (a: number, aMs: number, b: number, bMs: number) => a < b + bMs && b < a + aMs;
  return samples
    .filter((x) => x.ms >= SLOW_MS)
    .sort((a, b) => b.ms - a.ms)
    .map((x) => {
      const mine = server.slow.filter((r) => r.key === x.name && r.at >= x.at - 1 && r.at <= x.at + x.ms).sort((a, b) => b.ms - a.ms)[0];
      const stalls = server.stalls.filter((st) => overlap(x.at, x.ms, st.at, st.ms));
      const probes = disk.filter((d) => overlap(x.at, x.ms, d.at, d.ms));
      return {
        name: x.name,
        at: (x.at - t0) / 1000,
        ms: x.ms,
        ...(mine ? { inAppliance: mine.ms, receivedAfter: mine.at - x.at } : {}),
        stallMs: stalls.reduce((a, st) => a + st.ms, 0),
        stallMax: Math.max(0, ...stalls.map((st) => st.ms)),
        diskMax: Math.max(0, ...probes.map((d) => d.ms)),
      };
    });
}

const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

function rssOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

interface Answer {
  status: number;
  text: string;
}

function request(agent: http.Agent, base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + path,
      {
        method,
        agent,
        timeout: 30_000,
        headers: { ...headers, ...(payload !== undefined ? { 'content-type': headers['content-type'] ?? 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout after 30 s')));
    req.on('error', reject);
    req.end(payload);
  });
}

const summarize = (xs: number[], errors: number): Stats => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, errors, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
};

/** Exponential gaps: a Poisson process of `perSecond` events, each started without waiting for the last. */
function poisson(perSecond: number, stopAt: number, fire: () => void): Promise<void> {
  return (async () => {
    if (perSecond <= 0) return;
    while (performance.now() < stopAt) {
      // Never past the end (a rare action's gap can be minutes long).
      await sleep(Math.min(-Math.log(1 - Math.random()) * (1000 / perSecond), stopAt - performance.now() + 1));
      if (performance.now() < stopAt) fire();
    }
  })();
}

const ADVANCE: Record<string, string | undefined> = { new: 'accepted', accepted: 'preparing', preparing: 'ready', ready: 'completed' };

export async function runFridayBench(o: FridayOptions = defaultFridayOptions()): Promise<FridayResult> {
  const loadStart = loadavg();
  console.log(`friday night: ${o.tablets} tablets, ${o.factor}x a busy evening, ${o.warmup} s warm-up + ${o.seconds} s; baseline ${o.baselineRps}/s`);
  console.log(`machine: ${machine()}`);
  const servers: BenchServer[] = [];
  const sockets: Socket[] = [];
  const agents: http.Agent[] = [];
  try {
    if (o.compiled) await buildCompiledChildren();
    const { server: cloud, info: cloudInfo } = await startCloud({ compiled: o.compiled });
    servers.push(cloud);
    // BENCH_FRIDAY_CPU_PROF=<dir>: a .cpuprofile of the appliance child, written when it stops.
    const prof = process.env.BENCH_FRIDAY_CPU_PROF;
    const appliance = await startServer('appliance-synced', {
      env: { BENCH_CLOUD_URL: cloud.url, BENCH_SYNC_KEY: cloudInfo.syncKey, BENCH_TENANT_ID: cloudInfo.tenantId, BENCH_APPLIANCE_SYNC: o.sync ? '1' : '0' },
      // BENCH_APPLIANCE_NODE_OPTIONS: node/V8 flags for the appliance (e.g. `npm start`'s memory flags; the cloud's: BENCH_CLOUD_NODE_OPTIONS).
      execArgv: [...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []), ...nodeFlagsFrom('BENCH_APPLIANCE_NODE_OPTIONS')],
      compiled: o.compiled,
    });
    servers.push(appliance);
    const hello = await startServer('hello');
    servers.push(hello);
    const ai = appliance.ready.info as { products: Array<{ id: string; price_cents: number }>; tables: string[]; locationId: string };
    const cookie = appliance.ready.cookie!;
    const staffHeaders = { cookie, origin: appliance.url };
    // A pool of keep-alive connections per server, as tablets and browsers keep theirs.
    const appAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const cloudAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const helloAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    agents.push(appAgent, cloudAgent, helloAgent);

    // ── tablets ──
    const arrivals = new Map<string, { count: number; lastAt: number }>();
    const onCreated = (e: { order: { id: string; status: string; source: string } }) => {
      const at = performance.now();
      const a = arrivals.get(e.order.id) ?? { count: 0, lastAt: 0 };
      a.count += 1;
      a.lastAt = at;
      arrivals.set(e.order.id, a);
      // The kitchen advances web orders too (the first tablet to see one queues it).
      if (a.count === 1 && e.order.source === 'web') kitchen.push({ id: e.order.id, status: e.order.status });
    };
    await Promise.all(
      Array.from({ length: o.tablets }, () => {
        const socket = connect(appliance.url, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
        sockets.push(socket);
        socket.on('order:created', onCreated);
        return new Promise<void>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error('friday: a tablet got no hello within 20 s')), 20_000);
          socket.once('hello', () => (clearTimeout(t), resolve()));
          socket.once('connect_error', (err) => (clearTimeout(t), reject(err)));
        });
      }),
    );
    let disconnects = 0;
    for (const s of sockets) s.on('disconnect', () => (disconnects += 1));

    // ── load ──
    const lat = new Map<string, number[]>();
    const errs = new Map<string, number>();
    const errorSamples: string[] = [];
    /** Answers of SLOW_MS or more, with their start on the shared epoch clock (attributeSlow). */
    const slowSamples: Array<{ name: string; at: number; ms: number }> = [];
    let recording = false;
    const record = (name: string, t0: number, ok: boolean, detail?: string) => {
      if (!recording) return;
      if (ok) {
        const l = lat.get(name) ?? [];
        const ms = performance.now() - t0;
        l.push(ms);
        lat.set(name, l);
        if (ms >= SLOW_MS) slowSamples.push({ name, at: performance.timeOrigin + t0, ms });
      } else {
        errs.set(name, (errs.get(name) ?? 0) + 1);
        if (errorSamples.length < 20) errorSamples.push(`${name}: ${detail}`);
      }
    };
    const call = async (name: string, agent: http.Agent, base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer | null> => {
      const t0 = performance.now();
      try {
        const res = await request(agent, base, method, path, headers, body);
        const ok = res.status >= 200 && res.status < 400;
        record(name, t0, ok, `${res.status} ${res.text.slice(0, 160)}`);
        return ok ? res : null;
      } catch (err) {
        record(name, t0, false, String(err));
        return null;
      }
    };

    const kitchen: Array<{ id: string; status: string }> = [];
    const tablesWithBill = new Set<string>();
    const sentOrders: Array<{ id: string; sent: number; web: boolean }> = [];
    const P = ai.products;
    let n = 0;
    const staffOrder = async () => {
      const i = n++;
      const tableId = ai.tables[i % ai.tables.length]!;
      const t0 = performance.now();
      const res = await call('POST /orders', appAgent, appliance.url, 'POST', '/api/v1/orders', staffHeaders, {
        table_id: tableId,
        items: [
          { product_id: P[i % P.length]!.id, quantity: 1 + (i % 3) },
          { product_id: P[(i * 7 + 3) % P.length]!.id, quantity: 1 },
        ],
      });
      if (!res) return;
      const order = JSON.parse(res.text) as { id: string; status: string };
      if (recording) sentOrders.push({ id: order.id, sent: t0, web: false });
      kitchen.push({ id: order.id, status: order.status });
      tablesWithBill.add(tableId);
    };
    const advance = async () => {
      const next = kitchen.shift();
      if (!next) return;
      const to = ADVANCE[next.status];
      if (!to) return;
      const res = await call('POST /orders/:id/advance', appAgent, appliance.url, 'POST', `/api/v1/orders/${next.id}/advance`, staffHeaders, { status: to });
      if (res && ADVANCE[to]) kitchen.push({ id: next.id, status: to });
    };
    const pay = async () => {
      const tables = [...tablesWithBill];
      if (tables.length === 0) return;
      const tableId = tables[Math.floor(Math.random() * tables.length)]!;
      tablesWithBill.delete(tableId);
      const bill = await call('GET /floorplan/tables/:id/bill', appAgent, appliance.url, 'GET', `/api/v1/floorplan/tables/${tableId}/bill`, staffHeaders);
      if (!bill) return;
      const b = JSON.parse(bill.text) as { id: string; open_cents: number };
      if (b.open_cents <= 0) return;
      await call('POST /floorplan/bills/:id/payments', appAgent, appliance.url, 'POST', `/api/v1/floorplan/bills/${b.id}/payments`, staffHeaders, { amount_cents: b.open_cents, tip_cents: 100 });
    };
    let s = 0;
    const stockWrite = () =>
      call('POST /stock', appAgent, appliance.url, 'POST', '/api/v1/stock', staffHeaders, { product_id: P[s++ % P.length]!.id, location_id: ai.locationId, type: 'ADDITION', quantity: 6, reason: 'levering' });
    let tmpIndex = 0;
    const temperature = () =>
      call('POST /haccp/temperature', appAgent, appliance.url, 'POST', '/api/v1/haccp/temperature', staffHeaders, {
        unit_name: `Koelkast ${(tmpIndex++ % 4) + 1}`,
        unit_type: 'koelkast',
        target_max: 7,
        temperature: 2 + Math.round(Math.random() * 30) / 10,
      });
    const floorRead = () => call('GET /floorplan', appAgent, appliance.url, 'GET', '/api/v1/floorplan', staffHeaders);
    const liveRead = () => call('GET /orders/live', appAgent, appliance.url, 'GET', '/api/v1/orders/live', staffHeaders);
    let w = 0;
    const webOrder = async () => {
      const i = w++;
      const t0 = performance.now();
      const res = await call('cloud POST /public/order/:slug', cloudAgent, cloud.url, 'POST', '/api/v1/public/order/bench', { origin: cloud.url }, {
        items: [{ product_id: P[i % P.length]!.id, quantity: 1 }, { product_id: P[(i + 5) % P.length]!.id, quantity: 2 }],
        customer: { name: `Gast ${i}`, phone: `06 ${String(10_000_000 + i).slice(-8)}` },
        type: 'pickup',
      });
      if (!res) return;
      const body = JSON.parse(res.text) as { order: { id: string }; checkout_url?: string };
      if (recording) sentOrders.push({ id: body.order.id, sent: t0, web: true });
      if (!body.checkout_url) return;
      const simId = body.checkout_url.split('/').pop()!;
      await call('cloud payment callback (simulator)', cloudAgent, cloud.url, 'POST', `/api/v1/payments/simulator/${simId}`, { 'content-type': 'application/x-www-form-urlencoded', origin: cloud.url }, 'uitkomst=betaald');
    };
    const baseline = () => call('baseline: bare Fastify GET /', helloAgent, hello.url, 'GET', '/', {});

    const perSecond = (perHour: number) => (perHour * o.factor) / 3600;
    const H = BUSY_EVENING_PER_HOUR;
    const inflight = new Set<Promise<unknown>>();
    const track = (p: Promise<unknown>) => {
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    };
    const startedAt = performance.now();
    const done = startedAt + (o.warmup + o.seconds) * 1000;
    const loops = [
      poisson(perSecond(H.orders), done, () => track(staffOrder())),
      poisson(perSecond(H.orders * 4), done, () => track(advance())),
      poisson(perSecond(H.payments), done, () => track(pay())),
      poisson(perSecond(H.stock), done, () => track(stockWrite())),
      poisson(perSecond(H.temperature), done, () => track(temperature())),
      poisson(perSecond(H.floorReads), done, () => track(floorRead())),
      poisson(perSecond(H.liveReads), done, () => track(liveRead())),
      poisson(o.sync ? perSecond(H.webOrders) : 0, done, () => track(webOrder())),
      poisson(o.baselineRps, done, () => track(baseline())),
    ];
    // Warm-up: the same load, not recorded.
    await sleep(o.warmup * 1000);
    recording = true;
    const measuredFrom = epochMs();
    appliance.child.send({ type: 'server-times', action: 'reset' });
    const rssStart = { appliance: rssOf(appliance.child.pid), cloud: rssOf(cloud.child.pid) };
    const rssMax = { ...rssStart };
    const sampler = setInterval(() => {
      rssMax.appliance = Math.max(rssMax.appliance, rssOf(appliance.child.pid));
      rssMax.cloud = Math.max(rssMax.cloud, rssOf(cloud.child.pid));
    }, 1000);
    // The disk under the appliance's SQLite file: an fdatasync of 4 KiB in the same temp directory
    // every 250 ms (libuv's thread pool, so this process's event loop does not wait for it).
    const fsyncMs: number[] = [];
    const fsyncAt: Array<{ at: number; ms: number }> = [];
    const probeFile = path.join(os.tmpdir(), `ck-bench-fsync-${process.pid}`);
    const probe = await fs.promises.open(probeFile, 'w');
    let probing = true;
    const prober = (async () => {
      const buf = Buffer.alloc(4096, 1);
      while (probing) {
        const t = performance.now();
        await probe.write(buf, 0, buf.length, 0);
        await probe.datasync();
        fsyncMs.push(performance.now() - t);
        fsyncAt.push({ at: performance.timeOrigin + t, ms: performance.now() - t });
        await sleep(250);
      }
    })();
    const progress = setInterval(() => {
      const el = Math.round((performance.now() - startedAt) / 1000) - o.warmup;
      const errCount = [...errs.values()].reduce((a, b) => a + b, 0);
      console.log(`  ${el} s: ${sentOrders.length} orders, ${errCount} errors, appliance RSS ${Math.round(rssOf(appliance.child.pid) / 2 ** 20)} MiB, load ${loadavg()}`);
    }, 30_000);
    await Promise.all(loops);
    clearInterval(progress);
    probing = false;
    await prober;
    await probe.close();
    fs.rmSync(probeFile, { force: true });
    await Promise.all([...inflight]);
    recording = false;
    const server = await serverTimes(appliance.child);
    const rssEnd = { appliance: rssOf(appliance.child.pid), cloud: rssOf(cloud.child.pid) };
    clearInterval(sampler);
    // Events still in flight (web orders through sync): up to 10 s.
    const deadline = Date.now() + 10_000;
    while (sentOrders.some((x) => (arrivals.get(x.id)?.count ?? 0) < o.tablets) && Date.now() < deadline) await sleep(50);
    const fanStaff: number[] = [];
    const fanWeb: number[] = [];
    let missing = 0;
    for (const x of sentOrders) {
      const a = arrivals.get(x.id);
      if (!a || a.count < o.tablets) {
        missing += 1;
        continue;
      }
      (x.web ? fanWeb : fanStaff).push(a.lastAt - x.sent);
    }
    const STAFF = new Set(['POST /orders', 'POST /orders/:id/advance', 'GET /floorplan/tables/:id/bill', 'POST /floorplan/bills/:id/payments', 'POST /stock', 'POST /haccp/temperature', 'GET /floorplan', 'GET /orders/live']);
    const names = [...new Set([...lat.keys(), ...errs.keys()])].filter((k) => !k.startsWith('baseline'));
    const endpoints = names
      .map((name) => ({ name, staff: STAFF.has(name), ...summarize(lat.get(name) ?? [], errs.get(name) ?? 0), server: STAFF.has(name) ? summarize(server.times[name] ?? [], 0) : undefined }))
      .sort((a, b) => Number(b.staff) - Number(a.staff) || a.name.localeCompare(b.name));
    const errors = [...errorSamples];
    if (missing > 0) errors.push(`${missing} orders did not reach all ${o.tablets} tablets within 10 s`);
    if (disconnects > 0) errors.push(`${disconnects} tablet disconnects`);
    return {
      options: o,
      loadStart,
      loadEnd: loadavg(),
      endpoints,
      baseline: summarize(lat.get('baseline: bare Fastify GET /') ?? [], errs.get('baseline: bare Fastify GET /') ?? 0),
      fanout: { staff: summarize(fanStaff, 0), web: summarize(fanWeb, 0), missing },
      rss: { appliance: { start: rssStart.appliance, end: rssEnd.appliance, max: rssMax.appliance }, cloud: { start: rssStart.cloud, end: rssEnd.cloud, max: rssMax.cloud } },
      errors,
      ordersCreated: sentOrders.length,
      applianceLoop: server.loop,
      applianceCpu: server.cpuShare,
      fsync: summarize(fsyncMs, 0),
      slow: attributeSlow(
        slowSamples.filter((x) => STAFF.has(x.name)),
        server,
        fsyncAt,
        measuredFrom,
      ),
    };
  } finally {
    for (const s of sockets) s.close();
    for (const a of agents) a.destroy();
    for (const s of [...servers].reverse()) await s.stop();
  }
}

const f = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '–');
const mib = (b: number) => `${Math.round(b / 2 ** 20)} MiB`;

/** The slow staff answers, slowest first (at most 12), and how many of them overlapped a loop stall or a slow disk probe. */
function slowReport(slow: SlowSample[]): string {
  if (slow.length === 0) return `staff answers of ${SLOW_MS} ms or more: none`;
  const stalled = slow.filter((x) => x.stallMax >= 15).length;
  const disk = slow.filter((x) => x.diskMax >= 20).length;
  const late = slow.filter((x) => (x.receivedAfter ?? 0) >= 15).length;
  const lines = slow.slice(0, 12).map(
    (x) =>
      `  ${f(x.ms)} ms ${x.name} at +${x.at.toFixed(1)} s: in the appliance ${x.inAppliance === undefined ? '< 20' : f(x.inAppliance)} ms${x.receivedAfter === undefined ? '' : `, received ${f(x.receivedAfter)} ms after sending`}; loop stalls overlapping ${f(x.stallMs)} ms (longest ${f(x.stallMax)}); disk probe overlapping ${f(x.diskMax)} ms`,
  );
  return [`staff answers of ${SLOW_MS} ms or more: ${slow.length}; overlapping an appliance loop stall ≥ 15 ms: ${stalled}; a disk probe ≥ 20 ms: ${disk}; received ≥ 15 ms late: ${late}`, ...lines].join('\n');
}

export function fridayReport(r: FridayResult): string {
  const base = r.baseline;
  const rows: Array<Array<string | number>> = [['endpoint', 'n', 'errors', 'p50 ms', 'p99 ms', 'max ms', 'p99 / baseline p99', 'in the appliance p50 / p99 ms']];
  for (const e of r.endpoints) rows.push([(e.staff ? '' : '(cloud) ') + e.name, e.n, e.errors, f(e.p50), f(e.p99), f(e.max), `${(e.p99 / base.p99).toFixed(1)}x`, e.server ? `${f(e.server.p50)} / ${f(e.server.p99)}` : '']);
  rows.push(['baseline: bare Fastify GET /', base.n, base.errors, f(base.p50), f(base.p99), f(base.max), '1.0x', '']);
  const staff = r.endpoints.filter((e) => e.staff);
  const worst = staff.reduce((m, e) => (e.p99 > m.p99 ? e : m), staff[0] ?? { name: '–', p99: NaN });
  const errorCount = r.endpoints.reduce((a, e) => a + e.errors, 0) + base.errors + r.fanout.missing;
  const growth = r.rss.appliance.end / r.rss.appliance.start - 1;
  const fan = (name: string, s: Stats) => [name, s.n, f(s.p50), f(s.p99), f(s.max)];
  return [
    `friday night${r.options.sync ? '' : ' (EXPERIMENT: sync stopped after the bootstrap, no web orders)'}: ${r.options.factor}x a busy evening, ${r.options.tablets} tablets, ${r.options.seconds} s measured after ${r.options.warmup} s warm-up; load average at start ${r.loadStart}, at end ${r.loadEnd}`,
    table(rows),
    table([['fan-out: order POST sent -> all tablets have order:created', 'n', 'p50 ms', 'p99 ms', 'max ms'], fan('staff order (appliance)', r.fanout.staff), fan('web order (cloud -> sync -> appliance)', r.fanout.web)]),
    `orders created: ${r.ordersCreated}; tablets missing an event: ${r.fanout.missing}; appliance CPU ${(r.applianceCpu * 100).toFixed(0)} % of one core, event-loop delay p50/p99/max ${f(r.applianceLoop.p50)} / ${f(r.applianceLoop.p99)} / ${f(r.applianceLoop.max)} ms`,
    `disk: 4 KiB write + fdatasync p50/p99/max ${f(r.fsync.p50)} / ${f(r.fsync.p99)} / ${f(r.fsync.max)} ms (${r.fsync.n} probes; every staff write commits with one)`,
    `RSS appliance: ${mib(r.rss.appliance.start)} -> ${mib(r.rss.appliance.end)} (max ${mib(r.rss.appliance.max)}, ${(growth * 100).toFixed(1)} %); cloud: ${mib(r.rss.cloud.start)} -> ${mib(r.rss.cloud.end)} (max ${mib(r.rss.cloud.max)})`,
    slowReport(r.slow),
    r.errors.length ? `errors:\n  ${r.errors.join('\n  ')}` : 'errors: none',
    `targets: no error: ${errorCount === 0 ? 'met' : `MISSED (${errorCount})`}; p99 < 50 ms for every staff endpoint: ${worst.p99 < 50 ? 'met' : 'MISSED'} (worst ${worst.name} ${f(worst.p99)} ms); RSS growth < 20 %: ${growth < 0.2 ? 'met' : 'MISSED'} (${(growth * 100).toFixed(1)} %${r.options.seconds < 600 ? ', a soak is 600 s' : ''})`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const o = defaultFridayOptions();
  setTimeout(
    () => {
      console.error('bench: time box exceeded, stopping');
      process.exit(3);
    },
    (o.seconds + o.warmup + 300) * 1000,
  ).unref();
  const r = await runFridayBench(o);
  console.log('');
  console.log(fridayReport(r));
  process.exit(0);
}
