/**
 * What the appliance's staff order path costs per request (bench/README.md, "The bill payment and
 * the order path (session 10)"): the real appliance (createRuntime, ROLE=local, a SQLite file with
 * WAL + synchronous=FULL under the OS temp dir, no cloud), one restaurant with 20 products, 30
 * tables and a staff session, driven through `app.inject` one request at a time. Every better-sqlite3
 * statement that runs (prepared once and cached by openDb; `begin`/`commit` included) is counted
 * and timed with the request it ran for; the change consumers' transactions (printing, webhooks)
 * that a request's commit wakes are counted apart. CPU: the main thread's busy time per request
 * from a CPU profile of each phase (node:inspector; `PROF_DIR=dir` keeps the .cpuprofile files),
 * split into the statements' own time (SQLite incl. the commit's fsync) and the rest (JavaScript).
 *
 *   N=200 npx tsx bench/order-path-sql.ts         # N requests per phase (bill payments: N/4 bills, at most 30)
 *   VERBOSE=1 also lists each phase's statements by text; TRACE=1 one bill payment's statements in order.
 *
 * Phases:
 *   POST /orders (table)   the Friday-night bench's staff order: a table, two lines
 *   POST /orders (counter) the orders bench's body: no table, two lines
 *   GET /orders/live (40)  the kitchen board with 40 active orders (measured first)
 *   POST advance           new → accepted
 *   GET table bill         the bill the payment below pays (3 rounds)
 *   bill payment (3)       POST /floorplan/bills/:id/payments paying a 3-order bill in full (+ tip)
 *   bill payment (3, loyalty) the same, each order with a guest's phone (points per order)
 *
 * Statement counts do not depend on the machine's load; the times do.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { sourceOf, wrapStatements } from './lib/sqlite-statements.js';
import { loadConfig } from '../server/config.js';
import { createRuntime } from '../server/runtime.js';
import { benchConfig } from './lib/tmp.js';
import { assertDurability } from './lib/seed.js';
import { markConsumerBatches } from './lib/consumer-marker.js';

const N = Math.max(4, Math.min(2000, Number(process.env.N ?? 200)));
const profDir = process.env.PROF_DIR;

interface Stmt {
  phase: string;
  consumer: boolean;
  sql: string;
  ms: number;
  at: number;
}
const phase = new AsyncLocalStorage<string>();
const inConsumer = markConsumerBatches();
let log: Stmt[] | null = null;
// Every statement of every connection (once the log is on).
wrapStatements('order-path', (stmt, call) => {
  if (!log) return call();
  const t0 = performance.now();
  try {
    return call();
  } finally {
    log.push({ phase: phase.getStore() ?? 'outside', consumer: inConsumer.getStore() === true, sql: sourceOf(stmt), ms: performance.now() - t0, at: t0 });
  }
});
const short = (s: string) => s.replace(/\s+/g, ' ').replace(/"/g, '').replace(/\(\?(, \?)+\)/g, '(?…)').slice(0, 120);

const tmp = benchConfig('order-path');
// As a restaurant's appliance runs (and the Friday-night bench's): paired with a cloud, so the cloud
// sends the webhooks and only the printing consumer runs here. The sync worker is never started
// (nothing listens at CLOUD_URL); STANDALONE=1 leaves the cloud out (the webhook consumer then runs too).
const rt = await createRuntime(
  process.env.STANDALONE === '1' ? tmp.config : loadConfig({ ROLE: 'local', DATA_DIR: tmp.dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000', CLOUD_URL: 'http://127.0.0.1:9', SYNC_KEY: 'bench-no-cloud-0123456789' }),
);
await assertDurability(rt);
const { app, services } = rt;
try {
  const { tenant } = await services.tenants.create({ slug: 'bench', name: 'Bench Bistro', admin_email: 'admin@bench.test', admin_password: 'geheim-wachtwoord-1' });
  await services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin: '1234' });
  const products: string[] = [];
  for (let i = 0; i < 20; i++) products.push((await services.menu.createProduct(tenant.id, { name: `Gerecht ${i + 1}`, price_cents: 350 + 75 * i })).id);
  const zone = await services.floor.createZone(tenant.id, { name: 'Binnen' });
  const tables: string[] = [];
  for (let i = 0; i < 30; i++) tables.push((await services.floor.createTable(tenant.id, { zone_id: zone.id, name: `T${i + 1}`, seats: 4, x: (i % 6) * 120, y: Math.floor(i / 6) * 120 })).id);
  const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: 'bench', pin: '1234' } });
  const token = login.cookies.find((c) => c.name === 'ck_token');
  if (!token) throw new Error(`login ${login.statusCode} ${login.body}`);
  const cookie = `ck_token=${token.value}`;
  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown, expect = [200, 201]) => {
    const r = await app.inject({ method, url: `/api/v1${url}`, headers: { cookie }, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });
    if (!expect.includes(r.statusCode)) throw new Error(`${method} ${url} ${r.statusCode} ${r.body}`);
    return JSON.parse(r.body) as Record<string, unknown>;
  };
  let k = 0;
  const orderBody = (tableId: string | null, phone?: string) => {
    const i = k++;
    return {
      ...(tableId ? { table_id: tableId } : {}),
      items: [
        { product_id: products[i % products.length]!, quantity: 1 + (i % 3) },
        { product_id: products[(i * 7 + 3) % products.length]!, quantity: 1 },
      ],
      ...(phone ? { customer: { name: `Gast ${i}`, phone } } : {}),
    };
  };

  // Warm-up (first-use caches, statements prepared): not counted.
  for (let i = 0; i < 10; i++) await call('POST', '/orders', orderBody(tables[i % tables.length]!));
  for (let i = 0; i < 10; i++) await call('POST', '/orders', orderBody(null));
  await call('GET', '/orders/live');
  await app.consumers.idle();

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROF_INTERVAL_US ?? 1000) });

  interface Result {
    name: string;
    n: number;
    wall: number;
    rows: Stmt[];
    busyMs: number;
    idleMs: number;
    /** process.cpuUsage (user + system) over the phase. */
    cpuMs: number;
    self: Map<string, number>;
  }
  const results: Result[] = [];
  /** Runs `fn(i)` n times one after another in phase `name`, with the statement log and a CPU profile. */
  const measure = async (name: string, n: number, fn: (i: number) => Promise<unknown>) => {
    await app.consumers.idle();
    log = [];
    await session.post('Profiler.start');
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await phase.run(name, () => fn(i));
    await app.consumers.idle();
    const wall = performance.now() - t0;
    const used = process.cpuUsage(cpu0);
    const cpuMs = (used.user + used.system) / 1000;
    const { profile } = await session.post('Profiler.stop');
    const rows = log;
    log = null;
    if (profDir) {
      fs.mkdirSync(profDir, { recursive: true });
      fs.writeFileSync(path.join(profDir, `${name.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`), JSON.stringify(profile));
    }
    // Self time per function from the samples; (idle) and (program) apart.
    const dt = new Map<number, number>();
    const nodes = new Map(profile.nodes.map((nd) => [nd.id, nd]));
    // A sample's delta is the time since the one before: it belongs to the sample before it (the first delta is the start's).
    const samples = profile.samples!;
    const deltas = profile.timeDeltas!;
    for (let idx = 0; idx < samples.length - 1; idx++) dt.set(samples[idx]!, (dt.get(samples[idx]!) ?? 0) + (deltas[idx + 1] ?? 0) / 1000);
    let busy = 0;
    let idle = 0;
    const self = new Map<string, number>();
    for (const [id, t] of dt) {
      const f = nodes.get(id)!.callFrame;
      if (f.functionName === '(idle)') idle += t;
      else busy += t;
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + t);
    }
    // A phase measured in several rounds (the bill payments) adds up.
    const prev = results.find((r) => r.name === name);
    if (prev) {
      prev.n += n;
      prev.wall += wall;
      prev.rows.push(...rows);
      prev.busyMs += busy;
      prev.idleMs += idle;
      prev.cpuMs += cpuMs;
      for (const [key, t] of prev.self) self.set(key, (self.get(key) ?? 0) + t);
      prev.self = self;
    } else results.push({ name, n, wall, rows, busyMs: busy, idleMs: idle, cpuMs, self });
  };

  // The kitchen board with 40 active orders (as the orders bench's seed): 20 from the warm-up, 20 more.
  for (let i = 0; i < 20; i++) await call('POST', '/orders', orderBody(null));
  await measure('GET /orders/live (40)', N, () => call('GET', '/orders/live'));
  const tableOrders: string[] = [];
  await measure('POST /orders (table)', N, async (i) => {
    const o = await call('POST', '/orders', orderBody(tables[i % tables.length]!));
    tableOrders.push(o.id as string);
  });
  await measure('POST /orders (counter)', N, () => call('POST', '/orders', orderBody(null)));
  await measure('POST advance', N, (i) => call('POST', `/orders/${tableOrders[i]}/advance`, { status: 'accepted' }));

  // Bills: close every open bill first (a clean floor), then per bill 3 orders on one table.
  const pay = async (tableId: string) => {
    const bill = await call('GET', `/floorplan/tables/${tableId}/bill`);
    await call('POST', `/floorplan/bills/${bill.id as string}/payments`, { amount_cents: bill.open_cents, tip_cents: 100 });
  };
  for (const t of tables) await pay(t).catch(() => {});
  const billsN = Math.min(Math.max(2, Math.floor(N / 4)), tables.length);
  const prepared: string[] = [];
  const prepare = async (phone: boolean) => {
    prepared.length = 0;
    for (let b = 0; b < billsN; b++) {
      const t = tables[b]!;
      for (let r = 0; r < 3; r++) await call('POST', '/orders', orderBody(t, phone ? `06 ${String(20_000_000 + b * 3 + r).slice(-8)}` : undefined));
      prepared.push(((await call('GET', `/floorplan/tables/${t}/bill`)) as { id: string }).id);
    }
  };
  const openOf = new Map<string, number>();
  const rounds = Math.max(1, Number(process.env.BILL_ROUNDS ?? 3));
  for (let round = 0; round < rounds; round++) {
    await prepare(false);
    await measure('GET table bill (3 rounds)', billsN, async (b) => {
      const bill = await call('GET', `/floorplan/tables/${tables[b]!}/bill`);
      openOf.set(bill.id as string, bill.open_cents as number);
    });
    await measure('bill payment (3 orders)', billsN, (b) => call('POST', `/floorplan/bills/${prepared[b]!}/payments`, { amount_cents: openOf.get(prepared[b]!)!, tip_cents: 100 }));
    await prepare(true);
    for (const id of prepared) openOf.set(id, ((await call('GET', `/floorplan/bills/${id}`)) as { open_cents: number }).open_cents);
    await measure('bill payment (3 orders, loyalty)', billsN, (b) => call('POST', `/floorplan/bills/${prepared[b]!}/payments`, { amount_cents: openOf.get(prepared[b]!)!, tip_cents: 100 }));
  }

  console.log(`order path, appliance (SQLite WAL + synchronous=FULL, ${tmp.dataDir}); one request at a time through app.inject; loadavg ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log('phase | n | statements/req (own) | commits/req (own) | SQLite ms/req (own) | consumer statements/req | consumer commits/req | main thread busy ms/req (profile) | of which in statements | process CPU ms/req | wall ms/req');
  for (const r of results) {
    const own = r.rows.filter((s) => !s.consumer);
    const cons = r.rows.filter((s) => s.consumer);
    const commits = (xs: Stmt[]) => xs.filter((s) => /^commit/i.test(s.sql)).length;
    const sum = (xs: Stmt[]) => xs.reduce((a, s) => a + s.ms, 0);
    const f = (x: number) => (x / r.n).toFixed(2);
    console.log(`${r.name} | ${r.n} | ${f(own.length)} | ${f(commits(own))} | ${f(sum(own))} | ${f(cons.length)} | ${f(commits(cons))} | ${f(r.busyMs)} | ${f(sum(r.rows))} | ${f(r.cpuMs)} | ${f(r.wall)}`);
    if (process.env.DEBUG_PROF) console.log(`   profile busy ${r.busyMs.toFixed(0)} idle ${r.idleMs.toFixed(0)} wall ${r.wall.toFixed(0)} ms`);
  }
  if (process.env.VERBOSE) {
    for (const r of results) {
      const byText = new Map<string, { n: number; ms: number }>();
      for (const s of r.rows) {
        const key = `${s.consumer ? 'cons' : 'req '} ${short(s.sql)}`;
        const x = byText.get(key) ?? { n: 0, ms: 0 };
        x.n++;
        x.ms += s.ms;
        byText.set(key, x);
      }
      console.log(`\n${r.name}:`);
      for (const [key, x] of [...byText].sort((a, b) => b[1].n - a[1].n || b[1].ms - a[1].ms)) console.log(`  ${(x.n / r.n).toFixed(2).padStart(6)}/req ${(x.ms / x.n).toFixed(3).padStart(7)} ms  ${key}`);
      console.log('  top self time (ms/req):');
      for (const [fn, t] of [...r.self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`    ${(t / r.n).toFixed(3).padStart(7)}  ${fn}`);
    }
  }
  if (process.env.TRACE) {
    const t = tables[0]!;
    for (let r = 0; r < 3; r++) await call('POST', '/orders', orderBody(t));
    const bill = await call('GET', `/floorplan/tables/${t}/bill`);
    await app.consumers.idle();
    log = [];
    const t0 = performance.now();
    await phase.run('trace', () => call('POST', `/floorplan/bills/${bill.id as string}/payments`, { amount_cents: bill.open_cents, tip_cents: 100 }));
    await app.consumers.idle();
    const rows = log;
    log = null;
    console.log(`\none bill payment (3 orders), statements in order:`);
    for (const s of rows) console.log(`  ${(s.at - t0).toFixed(2).padStart(7)} +${s.ms.toFixed(3).padStart(6)} ${s.consumer ? 'cons' : 'req '} ${short(s.sql)}`);
  }
  session.disconnect();
} finally {
  await rt.close();
  tmp.cleanup();
}
