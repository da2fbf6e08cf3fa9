import fs from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import SqliteDatabase from 'better-sqlite3';
import type { Runtime } from '../../server/runtime.js';
import type { SyncReply, SyncRequest, SyncTransport } from '../../sync/transport.js';
import { startServer, type BenchServer } from './child.js';

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

/** The cloud child; BENCH_CPU_PROF=<dir> writes its .cpuprofile there. */
export async function startCloud(): Promise<{ server: BenchServer; info: CloudInfo; cookie: string }> {
  const prof = process.env.BENCH_CPU_PROF;
  const server = await startServer('cloud', prof ? { execArgv: ['--cpu-prof', `--cpu-prof-dir=${prof}`] } : {});
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

/** Per-path time spent waiting for the cloud's answer (HTTP + cloud work), for the phase split. */
export class TimedTransport implements SyncTransport {
  readonly stats = new Map<string, { calls: number; ms: number; bytesOut: number; bytesIn: number; maxIn: number }>();
  /** `countIn`: also measure each answer's size as JSON (BENCH_SYNC_BYTES=1; costs a stringify per answer, outside the timed wait). */
  constructor(
    private readonly inner: SyncTransport,
    private readonly countIn = process.env.BENCH_SYNC_BYTES === '1',
  ) {}
  async send(req: SyncRequest): Promise<SyncReply> {
    const t0 = performance.now();
    let reply: SyncReply | undefined;
    try {
      return (reply = await this.inner.send(req));
    } finally {
      const s = this.stats.get(req.path) ?? { calls: 0, ms: 0, bytesOut: 0, bytesIn: 0, maxIn: 0 };
      s.calls += 1;
      s.ms += performance.now() - t0;
      if (req.body !== undefined) s.bytesOut += JSON.stringify(req.body).length;
      if (this.countIn && reply) {
        const n = Buffer.byteLength(JSON.stringify(reply.body) ?? '');
        s.bytesIn += n;
        s.maxIn = Math.max(s.maxIn, n);
      }
      this.stats.set(req.path, s);
    }
  }
  reset(): void {
    this.stats.clear();
  }
  get(path: string): { calls: number; ms: number; bytesOut: number; bytesIn: number; maxIn: number } {
    return this.stats.get(path) ?? { calls: 0, ms: 0, bytesOut: 0, bytesIn: 0, maxIn: 0 };
  }
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

/**
 * Counts the SQLite statements this process executes (better-sqlite3's Statement run/all/get/iterate,
 * which Kysely's driver calls once per query) and the transactions among them (`begin`): the
 * appliance's deterministic cost of a phase, whatever the machine's load.
 */
export function sqliteCounter(): { reset(): void; get(): { statements: number; transactions: number } } {
  const probe = new SqliteDatabase(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown> & { __counted?: boolean };
  probe.close();
  if (!proto.__counted) {
    proto.__counted = true;
    for (const name of ['run', 'all', 'get', 'iterate']) {
      const original = proto[name] as (this: { source: string }, ...args: unknown[]) => unknown;
      proto[name] = function (this: { source: string }, ...args: unknown[]) {
        sqliteCounts.statements += 1;
        // `source` copies the SQL text out of the native statement: asked once per prepared statement.
        let begin = isBegin.get(this);
        if (begin === undefined) isBegin.set(this, (begin = /^\s*begin/i.test(this.source)));
        if (begin) sqliteCounts.transactions += 1;
        return original.apply(this, args);
      };
    }
  }
  return {
    reset() {
      sqliteCounts.statements = 0;
      sqliteCounts.transactions = 0;
    },
    get: () => ({ ...sqliteCounts }),
  };
}
const sqliteCounts = { statements: 0, transactions: 0 };
const isBegin = new WeakMap<object, boolean>();

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

