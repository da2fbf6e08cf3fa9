/**
 * Profile of the cloud's push apply, per SQL statement (bench/README.md, "Sync catch-up"): a cloud
 * (ROLE=cloud) on PostgreSQL in a fresh schema (dropped at the end) and an in-memory appliance in
 * this process, joined in-process (app.inject, no HTTP). N orders (5 items, accepted, ready, paid,
 * completed: 5 ops each) are pushed; Kysely's query log gives the time per statement text.
 *
 *   N=200 npx tsx bench/sync-push-sql.ts
 *   GEN=bench/gen/floor.ts N=100 npx tsx bench/sync-push-sql.ts   (another area's offline work; see GenEnv)
 *
 * Prints the statements per entity (each descriptor's apply, and the chunk's own work) and the
 * slowest statement texts.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../server/config.js';
import type { Database } from '../server/db/database.js';
import { createRuntime, type Runtime } from '../server/runtime.js';
import { MODULE_DESCRIPTORS } from '../server/modules/sync-descriptors.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import { SyncEngine } from '../sync/engine.js';
import { syncRegistry } from '../server/modules/sync-descriptors.js';
import { jsonBody, withQuery, type SyncTransport } from '../sync/transport.js';

const base = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_prof_${process.pid}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create schema ${schema}`);
const stats = new Map<string, { n: number; ms: number }>();
// Statements per entity: each descriptor's apply runs under its entity's name (AsyncLocalStorage); the rest is the chunk's own.
const applying = new AsyncLocalStorage<string>();
const byEntity = new Map<string, { n: number; ms: number; ops: number }>();
for (const d of MODULE_DESCRIPTORS) {
  const apply = d.apply;
  d.apply = (trx, change, ctx) => {
    if (on) {
      const w = byEntity.get(d.entity) ?? { n: 0, ms: 0, ops: 0 };
      w.ops++;
      byEntity.set(d.entity, w);
    }
    return applying.run(d.entity, () => apply.call(d, trx, change, ctx));
  };
}
/** What a generator (GEN=bench/gen/<area>.ts) gets: both runtimes, the engine, the tenant's staff member and 10 products. */
export interface GenEnv {
  cloud: Runtime;
  app: Runtime;
  engine: SyncEngine;
  tenantId: string;
  staffId: string;
  products: string[];
  actor: { tenantId: string; userId: string; via: 'pos' };
  N: number;
}
let on = false;
const pool = new pg.Pool({ connectionString: base, max: 10, options: `-c search_path=${schema}` });
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool }),
  log: (e) => {
    if (!on) return;
    const k = `${(applying.getStore() ?? 'chunk').padEnd(22)} ${e.query.sql.slice(0, 70)}`;
    const who = applying.getStore() ?? 'chunk (dedupe, change log, sync_ops, commit)';
    const w = byEntity.get(who) ?? { n: 0, ms: 0, ops: 0 };
    w.n++;
    w.ms += e.queryDurationMillis;
    byEntity.set(who, w);
    const s = stats.get(k) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += e.queryDurationMillis;
    stats.set(k, s);
  },
});
try {
  const cloud = await createRuntime(loadConfig({ ROLE: 'cloud', DATABASE_URL: base, LOG_LEVEL: 'silent', DATA_DIR: '/tmp' }), { handle: { db, dialect: 'postgres', pgSchema: schema, ping: async () => true, close: () => db.destroy() } });
  const { tenant } = await cloud.services.tenants.create({ slug: 'prof', name: 'Prof', admin_email: 'a@p.test', admin_password: 'geheim-wachtwoord-1' });
  const staff = await cloud.services.users.create(tenant.id, { name: 'S', role: 'staff', pin: '1234' });
  const prods: Array<{ id: string }> = [];
  for (let i = 0; i < 10; i++) prods.push(await cloud.services.menu.createProduct(tenant.id, { name: `p${i}`, price_cents: 100 + i }));
  const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'K');
  const transport: SyncTransport = {
    async send(req) {
      const res = await cloud.app.inject({ method: req.method, url: withQuery(req.path, req.query), headers: { authorization: `Bearer ${sync_key}`, ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(req.body !== undefined ? { payload: jsonBody(req.body) } : {}) });
      return { status: res.statusCode, body: JSON.parse(res.body) as unknown };
    },
  };
  const app = await createRuntime(loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/x' }), { db: { sqliteFile: ':memory:' } });
  const engine = new SyncEngine({ db: app.handle.db, changes: app.changes, clock: app.clock, transport, registry: syncRegistry });
  await engine.syncOnce();
  const actor = { tenantId: tenant.id, userId: staff.id, via: 'pos' as const };
  const N = Math.max(1, Math.min(5000, Number(process.env.N ?? 200)));
  if (process.env.GEN) {
    // Another area's offline work (bench/gen/<area>.ts): set up in the cloud, sync down, then generate on the appliance.
    const gen = (await import(path.resolve(process.env.GEN))) as { generate(env: GenEnv): Promise<void> };
    await gen.generate({ cloud, app, engine, tenantId: tenant.id, staffId: staff.id, products: prods.map((p) => p.id), actor, N });
  } else {
    for (let i = 0; i < N; i++) {
      const { order } = await app.services.orders.create(actor, { items: Array.from({ length: 5 }, (_, k) => ({ product_id: prods[(i + k) % 10]!.id, quantity: 1 })) });
      await app.services.orders.setStatus(actor, order.id, 'accepted');
      await app.services.orders.setStatus(actor, order.id, 'ready');
      await app.services.orders.markPaid(actor, order.id);
      await app.services.orders.setStatus(actor, order.id, 'completed');
    }
  }
  on = true;
  const t0 = performance.now();
  let ops = 0;
  for (;;) {
    const r = await engine.pushOnce();
    ops += r.sent;
    if (!r.more) break;
  }
  const pushMs = performance.now() - t0;
  on = false;
  const t1 = performance.now();
  let pulled = 0;
  for (;;) {
    const r = await engine.pullOnce();
    pulled += r.applied;
    if (!r.more) break;
  }
  const pullMs = performance.now() - t1;
  let total = 0;
  let count = 0;
  for (const s of stats.values()) {
    total += s.ms;
    count += s.n;
  }
  console.log(`push ${ops} ops ${pushMs.toFixed(0)} ms = ${(pushMs / ops).toFixed(2)} ms/op; sql ${count} statements (${(count / ops).toFixed(1)}/op) ${total.toFixed(0)} ms; pull ${pulled} in ${pullMs.toFixed(0)} ms`);
  for (const [k, s] of [...byEntity].sort((a, b) => b[1].n - a[1].n)) console.log(`${k.padEnd(48)} ${String(s.n).padStart(7)} statements ${s.ms.toFixed(0).padStart(6)} ms${s.ops ? `  ${s.ops} ops, ${(s.n / s.ops).toFixed(2)} statements/op` : ''}`);
  for (const [k, s] of [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) console.log(`${s.ms.toFixed(0).padStart(6)} ms ${String(s.n).padStart(6)} ${(s.ms / s.n).toFixed(3)}  ${k}`);
  await app.close();
  await cloud.close();
} finally {
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
}
