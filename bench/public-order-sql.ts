/**
 * What one public order costs PostgreSQL (bench/README.md, "Cloud capacity"): a cloud node
 * (ROLE=cloud, the payment simulator) on a fresh PostgreSQL schema (dropped at the end), T
 * restaurants with two products and 5 registered appliances each, then N guest orders
 * (POST /public/order/:slug, pickup, the cloud-capacity bench's body) through the real app
 * (app.inject, one at a time, spread over the restaurants), each followed by the guest's
 * "betaald" on the simulator's checkout (the provider callback), and N till pushes
 * (POST /sync/push, order.created + its first status change). Kysely's query log gives every
 * statement (text, time from send to answer) and which request it ran for; the node's
 * change-consumers' transactions (started by the request's commits, after its answer or during
 * it) are counted apart.
 *
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/db N=100 T=20 npx tsx bench/public-order-sql.ts
 *   TRACE=1 also prints one order's statements in order, with their start times.
 *
 * Statement counts do not depend on the machine's load; the times do.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../server/config.js';
import type { Database } from '../server/db/database.js';
import { createRuntime } from '../server/runtime.js';
import { newId } from '../server/shared/ids.js';
import { SCHEMA_VERSION } from '../server/db/migrations/index.js';
import { PROTOCOL_VERSION } from '../sync/protocol.js';
import { markConsumerBatches } from './lib/consumer-marker.js';

const base = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Math.max(1, Math.min(2000, Number(process.env.N ?? 100)));
const T = Math.max(1, Math.min(200, Number(process.env.T ?? 20)));
const schema = `bench_pos_${process.pid}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create schema ${schema}`);

interface Stmt {
  phase: string;
  sql: string;
  ms: number;
  at: number;
}
const phase = new AsyncLocalStorage<string>();
const inConsumer = markConsumerBatches();
let log: Stmt[] | null = null;
const pool = new pg.Pool({ connectionString: base, max: 10, options: `-c search_path=${schema}` });
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool }),
  log: (e) => {
    if (!log) return;
    const sqlText = e.query.sql;
    // The change consumers (server/db/consumers.ts) run in the async context of the commit that woke them: told apart here.
    const p = `${phase.getStore() ?? 'outside'}${inConsumer.getStore() ? ' / consumer' : ''}`;
    log.push({ phase: p, sql: sqlText, ms: e.queryDurationMillis, at: performance.now() - e.queryDurationMillis });
  },
});
const V = { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION };
const short = (s: string) => s.replace(/\s+/g, ' ').replace(/\$\d+/g, '?').replace(/\(\?(, \?)+\)/g, '(?…)').slice(0, 110);

try {
  const cloud = await createRuntime(loadConfig({ ROLE: 'cloud', DATABASE_URL: base, LOG_LEVEL: 'silent', DATA_DIR: '/tmp', PAYMENT_PROVIDER: 'simulator', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' }), {
    handle: { db, dialect: 'postgres', pgSchema: schema, ping: async () => true, close: () => db.destroy() },
  });
  const tenants: Array<{ id: string; slug: string; products: Array<{ id: string; name: string; price_cents: number }>; key: string; device: string; seq: number; n: number }> = [];
  for (let t = 0; t < T; t++) {
    const slug = `pos-${t}`;
    const { tenant } = await cloud.services.tenants.create({ slug, name: `R ${t}`, admin_email: `a@${slug}.test`, admin_password: 'geheim-wachtwoord-1' });
    const products = [];
    for (const [name, price] of [['Friet', 395], ['Burger', 1450]] as const) {
      const p = await cloud.services.menu.createProduct(tenant.id, { name, price_cents: price });
      products.push({ id: p.id, name: p.name, price_cents: p.price_cents });
    }
    let key = '';
    let device = '';
    for (let d = 0; d < 5; d++) {
      const r = await cloud.services.sync.cloud.createDevice(tenant.id, `Kassa ${d + 1}`);
      if (d === 0) {
        key = r.sync_key;
        device = r.device.id;
      }
    }
    tenants.push({ id: tenant.id, slug, products, key, device, seq: 0, n: 0 });
  }
  // Each till says hello once (as the bench's appliances do before they poll).
  for (const t of tenants) {
    const r = await cloud.app.inject({ method: 'GET', url: `/api/v1/sync/hello?protocol_version=${V.protocol_version}&schema_version=${V.schema_version}`, headers: { authorization: `Bearer ${t.key}` } });
    if (r.statusCode !== 200) throw new Error(`hello ${r.statusCode} ${r.body}`);
  }
  await cloud.app.consumers.idle();

  const order = async (i: number) => {
    const t = tenants[i % tenants.length]!;
    const r = await cloud.app.inject({
      method: 'POST',
      url: `/api/v1/public/order/${t.slug}`,
      headers: { 'content-type': 'application/json' },
      payload: { items: [{ product_id: t.products[0]!.id, quantity: 1 }, { product_id: t.products[1]!.id, quantity: 1 }], customer: { name: `Gast ${i}`, phone: `06 ${String(10_000_000 + i).slice(-8)}` }, type: 'pickup' },
    });
    if (r.statusCode !== 201) throw new Error(`public order ${r.statusCode} ${r.body}`);
    return JSON.parse(r.body) as { checkout_url: string };
  };
  const pay = async (checkout: string) => {
    const r = await cloud.app.inject({ method: 'POST', url: `/api/v1/payments/simulator/${checkout.split('/').pop()}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'uitkomst=betaald' });
    if (r.statusCode !== 303) throw new Error(`callback ${r.statusCode} ${r.body}`);
  };
  const push = async (i: number) => {
    const t = tenants[i % tenants.length]!;
    const at = new Date().toISOString();
    const id = newId();
    const p = t.products[i % 2]!;
    const n = ++t.n;
    const items = [{ id: newId(), product_id: p.id, name: p.name, quantity: 2, unit_price_cents: p.price_cents, total_cents: 2 * p.price_cents, notes: null }];
    const o = { id, number: `K-${n}`, status: 'new', source: 'pos', table_id: null, customer: null, notes: null, items, total_cents: 2 * p.price_cents, payment_status: 'open', created_at: at, updated_at: at };
    const history = (from: string | null, to: string) => ({ id: newId(), tenant_id: t.id, order_id: id, from_status: from, to_status: to, user_id: null, source: 'pos', created_at: at });
    const ops = [
      { op_id: newId(), device_seq: t.seq + 1, entity: 'order', entity_id: id, kind: 'order.created', payload: { order: o, history: history(null, 'new'), business_day: at.slice(0, 10), origin: t.device, idempotency_key: null, request_hash: null, created_by: null }, created_at: at },
      { op_id: newId(), device_seq: t.seq + 2, entity: 'order', entity_id: id, kind: 'order.status_changed', payload: { order: { ...o, status: 'accepted' }, from: 'new', to: 'accepted', history: history('new', 'accepted') }, created_at: at },
    ];
    const r = await cloud.app.inject({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }, payload: { ...V, ops } });
    if (r.statusCode !== 200) throw new Error(`push ${r.statusCode} ${r.body}`);
    t.seq += 2;
  };

  // Warm-up: one of each per restaurant (first-use caches), not counted.
  for (let i = 0; i < T; i++) {
    await pay((await order(i)).checkout_url);
    await push(i);
  }
  await cloud.app.consumers.idle();

  const measure = async (name: string, fn: (i: number) => Promise<void>) => {
    log = [];
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await phase.run(name, () => fn(i));
    const wall = performance.now() - t0;
    await cloud.app.consumers.idle();
    await new Promise((r) => setTimeout(r, 200));
    await cloud.app.consumers.idle();
    const rows = log;
    log = null;
    return { name, wall, rows };
  };
  const results = [];
  const checkouts: string[] = [];
  results.push(
    await measure('public order', async (i) => {
      checkouts.push((await order(T + i)).checkout_url);
    }),
  );
  results.push(await measure('callback', async (i) => pay(checkouts[i]!)));
  results.push(await measure('push', push));

  for (const { name, wall, rows } of results) {
    // Statements by text: the request's own and (inside its async context, but their own transactions) the consumers'.
    const byText = new Map<string, { n: number; ms: number }>();
    let ms = 0;
    let tx = 0;
    let own = 0;
    let ownTx = 0;
    let ownMs = 0;
    for (const s of rows) {
      const mine = !s.phase.endsWith('consumer');
      if (mine) {
        own++;
        ownMs += s.ms;
        if (/^commit/i.test(s.sql)) ownTx++;
      }
      const k = `${mine ? 'req ' : 'cons'} ${short(s.sql)}`;
      const x = byText.get(k) ?? { n: 0, ms: 0 };
      x.n++;
      x.ms += s.ms;
      byText.set(k, x);
      ms += s.ms;
      if (/^commit/i.test(s.sql)) tx++;
    }
    console.log(
      `\n${name}: ${N} in ${wall.toFixed(0)} ms (${(wall / N).toFixed(2)} ms each, one at a time); the request's own: ${(own / N).toFixed(2)} statements, ${(ownTx / N).toFixed(2)} commits, ${(ownMs / N).toFixed(2)} ms; ` +
        `with the change consumers it woke: ${(rows.length / N).toFixed(2)} statements, ${(tx / N).toFixed(2)} commits, ${(ms / N).toFixed(2)} ms`,
    );
    for (const [k, x] of [...byText].sort((a, b) => b[1].n - a[1].n || b[1].ms - a[1].ms)) console.log(`  ${(x.n / N).toFixed(2).padStart(6)}/req ${(x.ms / x.n).toFixed(3).padStart(7)} ms  ${k}`);
  }
  if (process.env.TRACE) {
    log = [];
    const t0 = performance.now();
    await phase.run('trace', () => order(5 * T + 2 * N));
    const answered = performance.now() - t0;
    await cloud.app.consumers.idle();
    await new Promise((r) => setTimeout(r, 200));
    const rows = log;
    log = null;
    console.log(`\none public order, answered after ${answered.toFixed(1)} ms:`);
    for (const s of rows) console.log(`  ${(s.at - t0).toFixed(1).padStart(7)} +${s.ms.toFixed(2).padStart(6)} ${s.phase.endsWith('consumer') ? 'cons' : 'req '} ${short(s.sql)}`);
  }
  await cloud.close();
} finally {
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
}
