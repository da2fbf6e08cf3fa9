// The real cloud (ROLE=cloud) on PostgreSQL in a fresh schema, listening on 127.0.0.1, for the sync
// benches: one tenant (admin, a staff user, a menu of 20 products), one registered appliance device.
// IPC: {type:'web-orders', n, minutesApart} creates n orders through the cloud's services (the web
// orders that arrive during an outage) and answers {type:'web-orders-done', ms}. The schema is
// dropped when the child stops.
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../../server/db/database.js';
import { MODULE_DESCRIPTORS } from '../../server/modules/sync-descriptors.js';
import { TxBatch } from '../../sync/apply-helpers.js';
import type { BatchState } from '../../sync/types.js';
import { ChangeLog } from '../../server/db/change-log.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { ManualClock } from '../../server/shared/clock.js';
import { timedInto } from '../lib/catchup-loops.js';
import { serveUntilStopped } from '../lib/child.js';

const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

// BENCH_CLOUD_SCHEMA=<schema>: start on a schema a run kept (BENCH_CLOUD_KEEP_SCHEMA=1) instead of a fresh one: its
// tenant, staff and menu as they are (the sync bench's join-only mode, BENCH_SYNC_JOIN_ONLY); such a schema is kept.
const reuse = process.env.BENCH_CLOUD_SCHEMA;
const keep = Boolean(reuse) || process.env.BENCH_CLOUD_KEEP_SCHEMA === '1';
const schema = reuse ?? `bench_sync_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`bench cloud: not a schema name: ${schema}`);
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
if (!reuse) await admin.query(`create schema ${schema}`);
const dropSchema = async () => {
  if (!keep) await admin.query(`drop schema if exists ${schema} cascade`).catch((err: unknown) => console.error(`bench cloud: could not drop schema ${schema}`, err));
  await admin.end().catch(() => {});
};
const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;

// The cloud's clock: real time, except that the outage generator moves it (web orders spread over the outage).
const clock = new ManualClock(new Date());
let manual = false;
const cloudClock = { now: () => (manual ? clock.now() : new Date()) };

// Who issued each statement: the caller of ChangeLog.write (its first stack frame outside the change log), if any.
const writer = new AsyncLocalStorage<string>();
const byWriter = new Map<string, { n: number; ms: number }>();
if (process.env.BENCH_SQL_PROFILE) {
  const original = ChangeLog.prototype.write;
  ChangeLog.prototype.write = function (this: ChangeLog, tenantId: string, fn: never) {
    const frame = (new Error().stack ?? '').split('\n').slice(2).find((l) => !l.includes('change-log')) ?? '?';
    const label = frame.trim().replace(/^at /, '').replace(/\(?file:\/\/\/work\/main\//, '').replace(/\)$/, '');
    return writer.run(label, () => original.call(this, tenantId, fn));
  } as typeof original;
}

// BENCH_SQL_PROFILE=1: time per SQL statement text (Kysely's query log), printed to stderr when the child stops.
const profile = process.env.BENCH_SQL_PROFILE ? new Map<string, { n: number; ms: number }>() : null;
function profiledHandle(stats: Map<string, { n: number; ms: number }>) {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 10, options: `-c search_path=${schema}` });
  pool.on('error', () => {});
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      const who = writer.getStore() ?? 'no change-log write';
      const w = byWriter.get(who) ?? { n: 0, ms: 0 };
      w.n++;
      w.ms += e.queryDurationMillis;
      byWriter.set(who, w);
      const short = who.startsWith('applyChunk') ? 'push ' : who === 'no change-log write' ? 'other' : 'write';
      const k = `${short} ${e.query.sql.replace(/\$\d+(, \$\d+)*/g, '$…').slice(0, 110)}`;
      const s = stats.get(k) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += e.queryDurationMillis;
      stats.set(k, s);
    },
  });
  // `connection`: the webhook sender thread opens its own pool from it (as in production); without it the cloud sends inline.
  return { db, dialect: 'postgres' as const, pgSchema: schema, connection: { databaseUrl: PG_URL, pgSchema: schema }, ping: async () => true, close: () => db.destroy() };
}
function printProfile(stats: Map<string, { n: number; ms: number }>, label: string) {
  let total = 0;
  let count = 0;
  for (const s of stats.values()) {
    total += s.ms;
    count += s.n;
  }
  const cpu = process.cpuUsage(cpuAtReset);
  console.error(`bench cloud SQL profile (${label}): ${count} statements, ${total.toFixed(0)} ms waiting for PostgreSQL; cloud process CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`);
  const m = (k: keyof NodeJS.MemoryUsage) => `${k} ${Math.round(memAtReset[k] / 2 ** 20)} → peak ${Math.round(memPeak[k] / 2 ** 20)} MiB`;
  console.error(`bench cloud memory over the ${label} (main thread's heap; rss is the whole process, the sender thread included): ${(['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'] as const).map(m).join(', ')}`);
  for (const [k, s] of [...byWriter].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) console.error(`${s.ms.toFixed(0).padStart(7)} ms ${String(s.n).padStart(7)} statements  by ${k}`);
  for (const [k, s] of [...applyTimes].sort((a, b) => b[1].ms - a[1].ms)) console.error(`${s.ms.toFixed(0).padStart(7)} ms ${String(s.n).padStart(7)} ${(s.ms / s.n).toFixed(3).padStart(7)}  ${k}`);
  for (const [k, s] of [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 40)) console.error(`${s.ms.toFixed(0).padStart(7)} ms ${String(s.n).padStart(7)} ${(s.ms / s.n).toFixed(3).padStart(7)}  ${k}`);
}

// With the SQL profile, also the wall time per entity's apply (inside the push) and per batch flush.
const applyTimes = new Map<string, { n: number; ms: number }>();
if (profile) {
  const timed = timedInto(applyTimes);
  for (const d of MODULE_DESCRIPTORS) d.apply = timed(`apply ${d.entity}`, d.apply);
  TxBatch.prototype.flush = timed('batch flush', TxBatch.prototype.flush);
  // And each state's own flush, by its key.
  const state = TxBatch.prototype.state;
  TxBatch.prototype.state = function <T extends BatchState>(this: TxBatch, key: string, create: () => T): T {
    return state.call(this, key, () => {
      const made = create();
      made.flush = timed(`  flush ${key.replace(/:.*/, ':…')}`, made.flush.bind(made));
      return made;
    }) as T;
  };
}

// IPC {type:'sql-profile', action:'reset'|'print'}: the bench marks the phase it wants profiled (the catch-up).
let cpuAtReset = process.cpuUsage();
// With the SQL profile: the process's memory at the reset and its peaks until the print (sampled every 250 ms: process.memoryUsage reads /proc).
let memAtReset = process.memoryUsage();
const memPeak = { ...memAtReset };
let memTimer: NodeJS.Timeout | null = null;
const sampleMemory = () => {
  const now = process.memoryUsage();
  for (const k of Object.keys(memPeak) as Array<keyof NodeJS.MemoryUsage>) memPeak[k] = Math.max(memPeak[k], now[k]);
};
// BENCH_CPU_PROF_CATCHUP=dir: a CPU profile of this process over the same phase (node:inspector), written to dir.
const cpuDir = process.env.BENCH_CPU_PROF_CATCHUP;
const inspector = cpuDir ? new (await import('node:inspector')).Session() : null;
if (inspector) inspector.connect();
const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => inspector!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
process.on('message', (m: { type?: string; action?: string; label?: string }) => {
  if (m?.type !== 'sql-profile' || !inspector) return;
  void (async () => {
    if (m.action === 'reset') {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 500 });
      await post('Profiler.start');
    } else {
      const { profile: cpu } = (await post('Profiler.stop')) as { profile: unknown };
      const file = `${cpuDir}/cloud-${m.label ?? 'catchup'}-${process.pid}.cpuprofile`;
      (await import('node:fs')).writeFileSync(file, JSON.stringify(cpu));
      console.error(`bench cloud: CPU profile of the ${m.label ?? 'catch-up'} in ${file}`);
    }
  })().catch((err: unknown) => console.error('bench cloud: CPU profile failed', err));
});
process.on('message', (m: { type?: string; action?: string; label?: string }) => {
  if (m?.type !== 'sql-profile' || !profile) return;
  if (m.action === 'reset') {
    profile.clear();
    applyTimes.clear();
    byWriter.clear();
    cpuAtReset = process.cpuUsage();
    memAtReset = process.memoryUsage();
    Object.assign(memPeak, memAtReset);
    memTimer ??= setInterval(sampleMemory, 250).unref();
  } else {
    sampleMemory();
    printProfile(profile, m.label ?? 'catch-up');
  }
});

let rt: Awaited<ReturnType<typeof createRuntime>>;
try {
  // WEBHOOK_ALLOW_PRIVATE: the benches' webhook receiver listens on 127.0.0.1.
  const config = loadConfig({ ROLE: 'cloud', DATABASE_URL: url, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000', DATA_DIR: '/tmp', WEBHOOK_ALLOW_PRIVATE: '1', PAYMENT_PROVIDER: 'simulator' });
  rt = await createRuntime(config, { clock: cloudClock, ...(profile ? { handle: profiledHandle(profile) } : {}) });
} catch (err) {
  await dropSchema();
  throw err;
}
const pin = '1234';
let tenant: { id: string };
let staff: { id: string };
const products: Array<{ id: string; price_cents: number }> = [];
let sync_key = '';
let device: { id: string };
if (reuse) {
  // A kept schema: the bench's tenant as the run left it (no new device: a join registers its own).
  const db = rt.handle.db;
  tenant = await db.selectFrom('tenants').select('id').where('slug', '=', 'bench').executeTakeFirstOrThrow();
  staff = await db.selectFrom('users').select('id').where('tenant_id', '=', tenant.id).where('name', '=', 'Sanne').executeTakeFirstOrThrow();
  products.push(...(await db.selectFrom('products').select(['id', 'price_cents']).where('tenant_id', '=', tenant.id).where('name', 'like', 'Gerecht %').orderBy('created_at').orderBy('id').limit(20).execute()));
  device = await db.selectFrom('sync_devices').select('id').where('tenant_id', '=', tenant.id).where('name', '=', 'Kassa').executeTakeFirstOrThrow();
} else {
  tenant = (await rt.services.tenants.create({ slug: 'bench', name: 'Bench Bistro', admin_email: 'admin@bench.test', admin_password: 'geheim-wachtwoord-1' })).tenant;
  staff = await rt.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin });
  for (let i = 0; i < 20; i++) {
    products.push(await rt.services.menu.createProduct(tenant.id, { name: `Gerecht ${i + 1}`, price_cents: 350 + 75 * i }));
  }
  ({ sync_key, device } = await rt.services.sync.cloud.createDevice(tenant.id, 'Kassa'));
}
const login = await rt.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: 'bench', pin } });
const token = login.cookies.find((c) => c.name === 'ck_token');
if (!token) throw new Error(`bench: cloud login failed (${login.statusCode}): ${login.body}`);
await rt.app.listen({ port: 0, host: '127.0.0.1' });
const addr = rt.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');

process.on('message', (m: { type?: string; n?: number; from?: string; minutesApart?: number }) => {
  if (m?.type !== 'web-orders') return;
  void (async () => {
    const t0 = performance.now();
    if (m.from) {
      clock.set(m.from);
      manual = true;
    }
    const actor = { tenantId: tenant.id, userId: null, via: 'web' as const };
    for (let i = 0; i < (m.n ?? 0); i++) {
      const a = products[i % products.length]!;
      const b = products[(i * 7 + 3) % products.length]!;
      await rt.services.orders.create(actor, { items: [{ product_id: a.id, quantity: 1 + (i % 3) }, { product_id: b.id, quantity: 1 }], customer: { name: `Gast ${i}` } });
      clock.advanceMinutes(m.minutesApart ?? 1);
    }
    manual = false;
    process.send!({ type: 'web-orders-done', ms: performance.now() - t0 });
  })().catch((err: unknown) => process.send!({ type: 'web-orders-done', error: String(err) }));
});

// IPC: {type:'webhook', url, at} registers a webhook for the order events as if made at `at` (before
// the outage the bench simulates), answering {type:'webhook-done', id}.
process.on('message', (m: { type?: string; url?: string; at?: string }) => {
  if (m?.type !== 'webhook') return;
  void (async () => {
    clock.set(m.at ?? new Date().toISOString());
    manual = true;
    try {
      const hook = await rt.services.webhooks.create(tenant.id, { url: m.url!, events: ['order.created', 'order.status_changed', 'order.paid'] }, null);
      process.send!({ type: 'webhook-done', id: hook.id });
    } finally {
      manual = false;
    }
  })().catch((err: unknown) => process.send!({ type: 'webhook-done', error: String(err) }));
});

serveUntilStopped(
  {
    port: addr.port,
    cookie: `ck_token=${token.value}`,
    info: { schema, pgUrl: url, tenantId: tenant.id, staffId: staff.id, deviceId: device.id, syncKey: sync_key, products: products.map((p) => ({ id: p.id, price_cents: p.price_cents })) },
  },
  async () => {
    try {
      // An appliance's long-poll (up to 20 s) keeps Fastify's close waiting; don't let it keep the schema.
      await Promise.race([rt.close(), new Promise((r) => setTimeout(r, 3_000))]);
    } catch (err) {
      console.error('bench cloud: close failed', err);
    } finally {
      await dropSchema();
    }
  },
);
