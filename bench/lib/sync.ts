import fs from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import type { Runtime } from '../../server/runtime.js';
import { nodeFlagsFrom, startServer, type BenchServer } from './child.js';
// The appliance child (bench/servers/appliance-catchup.ts) runs compiled and imports these from the small module; the in-process mode from here.
export { sqliteCounter, TimedTransport } from './sync-counters.js';

/** What the cloud child (bench/servers/cloud.ts) reports when it listens. */
export interface CloudInfo {
  schema: string;
  pgUrl: string;
  tenantId: string;
  staffId: string;
  deviceId: string;
  syncKey: string;
  products: Array<{ id: string; price_cents: number }>;
}

/**
 * The cloud child; BENCH_CPU_PROF=<dir> writes its .cpuprofile there, BENCH_HEAP_PROF=<dir> a heap
 * sampling profile (--heap-prof), BENCH_CLOUD_NODE_OPTIONS more node flags. `compiled`: dist/bench/servers/cloud.js with plain node (bench/lib/compiled.ts) instead of tsx.
 */
export async function startCloud(opts: { compiled?: boolean } = {}): Promise<{ server: BenchServer; info: CloudInfo; cookie: string }> {
  const prof = process.env.BENCH_CPU_PROF;
  const heap = process.env.BENCH_HEAP_PROF;
  // BENCH_CLOUD_NODE_OPTIONS: node/V8 flags for the cloud child (e.g. --max-semi-space-size=2).
  const execArgv = [...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []), ...(heap ? ['--heap-prof', `--heap-prof-dir=${heap}`] : []), ...nodeFlagsFrom('BENCH_CLOUD_NODE_OPTIONS')];
  const server = await startServer('cloud', { execArgv, compiled: opts.compiled });
  return { server, info: server.ready.info as unknown as CloudInfo, cookie: server.ready.cookie! };
}

/** Asks the cloud child to create `n` orders through its services, spread over the outage (its clock moves from `from`). */
export function webOrders(server: BenchServer, n: number, from: Date, minutesApart: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type?: string; ms?: number; error?: string }) => {
      if (m?.type !== 'web-orders-done') return;
      server.child.off('message', onMessage);
      if (m.error) reject(new Error(m.error));
      else resolve(m.ms ?? 0);
    };
    server.child.on('message', onMessage);
    server.child.send({ type: 'web-orders', n, from: from.toISOString(), minutesApart });
  });
}

/** Asks the cloud child to subscribe the bench tenant to webhooks at `url` (its admin's subscription, made at `at`); resolves once it is in place. */
export function subscribeWebhook(server: BenchServer, url: string, at: Date): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type?: string; error?: string }) => {
      if (m?.type !== 'webhook-done') return;
      server.child.off('message', onMessage);
      if (m.error) reject(new Error(m.error));
      else resolve();
    };
    server.child.on('message', onMessage);
    server.child.send({ type: 'webhook', url, at: at.toISOString() });
  });
}

/**
 * Peak resident set of this process and of other processes (by pid, from /proc), sampled every 50 ms;
 * also this process's peak V8 heap (`heapUsed`) and its RSS when the sampler started.
 */
export function rssSampler(pids: number[]): { stop(): { self: number; others: number[]; heap: number; start: number } } {
  const first = process.memoryUsage();
  let self = first.rss;
  let heap = first.heapUsed;
  const others = pids.map(() => 0);
  const sample = () => {
    const m = process.memoryUsage();
    self = Math.max(self, m.rss);
    heap = Math.max(heap, m.heapUsed);
    pids.forEach((pid, i) => {
      try {
        const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
        others[i] = Math.max(others[i]!, kb * 1024);
      } catch {
        /* gone */
      }
    });
  };
  sample();
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { self, others, heap, start: first.rss };
    },
  };
}

export const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

type OrderState = { id: string; status: string; payment_status: string };

/**
 * Both sides hold the same orders with the same status and payment, the same items and status
 * history: returns the differences (empty when they converged).
 */
export async function compareOrders(appliance: Runtime, cloud: CloudInfo): Promise<{ problems: string[]; orders: number; items: number; history: number; statuses: Record<string, number> }> {
  const db = appliance.handle.db;
  const local = (await db.selectFrom('orders').select(['id', 'status', 'payment_status']).where('tenant_id', '=', cloud.tenantId).orderBy('id').execute()) as OrderState[];
  const localItems = Number((await sql<{ n: number }>`select count(*) as n from order_items where tenant_id = ${cloud.tenantId}`.execute(db)).rows[0]!.n);
  const localHistory = Number((await sql<{ n: number }>`select count(*) as n from order_status_history where tenant_id = ${cloud.tenantId}`.execute(db)).rows[0]!.n);
  const client = new pg.Client({ connectionString: cloud.pgUrl });
  await client.connect();
  try {
    const remote = (await client.query<OrderState>('select id, status, payment_status from orders where tenant_id = $1 order by id', [cloud.tenantId])).rows;
    const remoteItems = Number((await client.query<{ n: string }>('select count(*) as n from order_items where tenant_id = $1', [cloud.tenantId])).rows[0]!.n);
    const remoteHistory = Number((await client.query<{ n: string }>('select count(*) as n from order_status_history where tenant_id = $1', [cloud.tenantId])).rows[0]!.n);
    const problems: string[] = [];
    if (local.length !== remote.length) problems.push(`orders: appliance ${local.length}, cloud ${remote.length}`);
    if (localItems !== remoteItems) problems.push(`order items: appliance ${localItems}, cloud ${remoteItems}`);
    if (localHistory !== remoteHistory) problems.push(`status history: appliance ${localHistory}, cloud ${remoteHistory}`);
    const byId = new Map(remote.map((r) => [r.id, r]));
    let differ = 0;
    for (const l of local) {
      const r = byId.get(l.id);
      if (!r || r.status !== l.status || r.payment_status !== l.payment_status) differ += 1;
    }
    if (differ > 0) problems.push(`${differ} orders missing or with another status/payment in the cloud`);
    const statuses: Record<string, number> = {};
    for (const l of local) statuses[`${l.status}/${l.payment_status}`] = (statuses[`${l.status}/${l.payment_status}`] ?? 0) + 1;
    return { problems, orders: local.length, items: localItems, history: localHistory, statuses };
  } finally {
    await client.end();
  }
}

/** A fresh session of the bench restaurant's admin in the cloud (its cookie). */
export async function cloudAdminCookie(url: string): Promise<string> {
  const login = await fetch(`${url}/api/v1/auth/admin-login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'bench', email: 'admin@bench.test', password: 'geheim-wachtwoord-1' }) });
  if (login.status !== 200) throw new Error(`bench: the cloud's admin login answered ${login.status}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0]!;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * A customer ordering on the web shop: POST /api/v1/orders to the cloud every `everyMs` until
 * stopped; returns each answer's latency (ms). Every answer must be a 201.
 */
export function webShop(server: BenchServer, cookie: string, products: CloudInfo['products'], everyMs = 100): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/v1/orders`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ product_id: products[i % products.length]!.id, quantity: 1 }], customer: { name: `Web ${i}` } }),
      });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`bench: POST /orders answered ${res.status}`);
      const ms = performance.now() - t0;
      latencies.push(ms);
      if (running) await sleep(Math.max(0, everyMs - ms));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

