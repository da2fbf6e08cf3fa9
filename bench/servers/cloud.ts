// The real cloud (ROLE=cloud) on PostgreSQL in a fresh schema, listening on 127.0.0.1, for the sync
// benches: one tenant (admin, a staff user, a menu of 20 products), one registered appliance device.
// IPC: {type:'web-orders', n, minutesApart} creates n orders through the cloud's services (the web
// orders that arrive during an outage) and answers {type:'web-orders-done', ms}. The schema is
// dropped when the child stops.
import pg from 'pg';
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { ManualClock } from '../../server/shared/clock.js';
import { serveUntilStopped } from '../lib/child.js';

const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const schema = `bench_sync_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`create schema ${schema}`);
const dropSchema = async () => {
  await admin.query(`drop schema if exists ${schema} cascade`).catch((err: unknown) => console.error(`bench cloud: could not drop schema ${schema}`, err));
  await admin.end().catch(() => {});
};
const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;

// The cloud's clock: real time, except that the outage generator moves it (web orders spread over the outage).
const clock = new ManualClock(new Date());
let manual = false;
const cloudClock = { now: () => (manual ? clock.now() : new Date()) };

let rt: Awaited<ReturnType<typeof createRuntime>>;
try {
  // WEBHOOK_ALLOW_PRIVATE: the benches' webhook receiver listens on 127.0.0.1.
  const config = loadConfig({ ROLE: 'cloud', DATABASE_URL: url, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000', DATA_DIR: '/tmp', WEBHOOK_ALLOW_PRIVATE: '1' });
  rt = await createRuntime(config, { clock: cloudClock });
} catch (err) {
  await dropSchema();
  throw err;
}
const { tenant } = await rt.services.tenants.create({ slug: 'bench', name: 'Bench Bistro', admin_email: 'admin@bench.test', admin_password: 'geheim-wachtwoord-1' });
const pin = '1234';
const staff = await rt.services.users.create(tenant.id, { name: 'Sanne', role: 'staff', pin });
const products: Array<{ id: string; price_cents: number }> = [];
for (let i = 0; i < 20; i++) {
  products.push(await rt.services.menu.createProduct(tenant.id, { name: `Gerecht ${i + 1}`, price_cents: 350 + 75 * i }));
}
const { sync_key, device } = await rt.services.sync.cloud.createDevice(tenant.id, 'Kassa');
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
