/**
 * Profile of the cloud's push apply, per SQL statement (bench/README.md, "Sync catch-up"): a cloud
 * (ROLE=cloud) on PostgreSQL in a fresh schema (dropped at the end) and an in-memory appliance in
 * this process, joined in-process (app.inject, no HTTP). N orders (5 items, accepted, ready, paid,
 * completed: 5 ops each) are pushed; Kysely's query log gives the time per statement text.
 *
 *   N=200 npx tsx bench/sync-push-sql.ts
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../server/config.js';
import type { Database } from '../server/db/database.js';
import { createRuntime } from '../server/runtime.js';
import { SyncEngine } from '../sync/engine.js';
import { syncRegistry } from '../server/modules/sync-descriptors.js';
import { withQuery, type SyncTransport } from '../sync/transport.js';

const base = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_prof_${process.pid}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create schema ${schema}`);
const stats = new Map<string, { n: number; ms: number }>();
let on = false;
const pool = new pg.Pool({ connectionString: base, max: 10, options: `-c search_path=${schema}` });
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool }),
  log: (e) => {
    if (!on) return;
    const k = e.query.sql.slice(0, 70);
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
      const res = await cloud.app.inject({ method: req.method, url: withQuery(req.path, req.query), headers: { authorization: `Bearer ${sync_key}` }, ...(req.body !== undefined ? { payload: req.body as object } : {}) });
      return { status: res.statusCode, body: JSON.parse(res.body) as unknown };
    },
  };
  const app = await createRuntime(loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/x' }), { db: { sqliteFile: ':memory:' } });
  const engine = new SyncEngine({ db: app.handle.db, changes: app.changes, clock: app.clock, transport, registry: syncRegistry });
  await engine.syncOnce();
  const actor = { tenantId: tenant.id, userId: staff.id, via: 'pos' as const };
  const N = Math.max(1, Math.min(5000, Number(process.env.N ?? 200)));
  for (let i = 0; i < N; i++) {
    const { order } = await app.services.orders.create(actor, { items: Array.from({ length: 5 }, (_, k) => ({ product_id: prods[(i + k) % 10]!.id, quantity: 1 })) });
    await app.services.orders.setStatus(actor, order.id, 'accepted');
    await app.services.orders.setStatus(actor, order.id, 'ready');
    await app.services.orders.markPaid(actor, order.id);
    await app.services.orders.setStatus(actor, order.id, 'completed');
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
  for (const s of stats.values()) ((total += s.ms), (count += s.n));
  console.log(`push ${ops} ops ${pushMs.toFixed(0)} ms = ${(pushMs / ops).toFixed(2)} ms/op; sql ${count} statements (${(count / ops).toFixed(1)}/op) ${total.toFixed(0)} ms; pull ${pulled} in ${pullMs.toFixed(0)} ms`);
  for (const [k, s] of [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) console.log(`${s.ms.toFixed(0).padStart(6)} ms ${String(s.n).padStart(6)} ${(s.ms / s.n).toFixed(3)}  ${k}`);
  await app.close();
  await cloud.close();
} finally {
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
}
