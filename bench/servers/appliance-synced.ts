// The real appliance (ROLE=local, SQLite with WAL + synchronous=FULL) paired with the bench cloud
// child (BENCH_CLOUD_URL, BENCH_SYNC_KEY): its own SyncWorker runs as in production (HTTP transport,
// long-poll), so web orders placed in the cloud arrive through sync. Once bootstrapped (the cloud's
// tenant, staff and menu are here) it lays out a floor (BENCH_TABLES tables in one zone) and a stock
// location, logs the staff user in and reports the cookie and the ids the load generator needs.
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { serveUntilStopped } from '../lib/child.js';
import { recordServerTimes } from '../lib/server-times.js';
import { assertDurability } from '../lib/seed.js';
import { benchConfig } from '../lib/tmp.js';

const cloudUrl = process.env.BENCH_CLOUD_URL;
const syncKey = process.env.BENCH_SYNC_KEY;
const tenantId = process.env.BENCH_TENANT_ID;
if (!cloudUrl || !syncKey || !tenantId) throw new Error('bench: BENCH_CLOUD_URL, BENCH_SYNC_KEY and BENCH_TENANT_ID are required');
const tables = Math.max(1, Math.min(200, Number(process.env.BENCH_TABLES ?? 30)));

const tmp = benchConfig('appliance-synced');
const config = loadConfig({
  ROLE: 'local',
  DATA_DIR: tmp.dataDir,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
  CLOUD_URL: cloudUrl,
  SYNC_KEY: syncKey,
});
const rt = await createRuntime(config);
await assertDurability(rt);
if (!rt.sync) throw new Error('bench: the appliance has no sync worker');
rt.sync.start();
const until = Date.now() + 120_000;
const db = rt.handle.db;
for (;;) {
  const products = await db.selectFrom('products').select(['id', 'price_cents']).where('tenant_id', '=', tenantId).execute();
  const users = await db.selectFrom('users').select('id').where('tenant_id', '=', tenantId).execute();
  if (products.length >= 20 && users.length >= 2) break;
  if (Date.now() > until) throw new Error('bench: the appliance did not bootstrap from the cloud within 120 s');
  await new Promise((r) => setTimeout(r, 100));
}
const products = await db.selectFrom('products').select(['id', 'price_cents']).where('tenant_id', '=', tenantId).orderBy('price_cents').execute();
const zone = await rt.services.floor.createZone(tenantId, { name: 'Binnen' });
const tableIds: string[] = [];
for (let i = 0; i < tables; i++) {
  const t = await rt.services.floor.createTable(tenantId, { zone_id: zone.id, name: `T${i + 1}`, seats: 4, x: (i % 6) * 120, y: Math.floor(i / 6) * 120 });
  tableIds.push(t.id);
}
const location = await rt.services.stock.createLocation(tenantId, { name: 'Koelcel' });
// Experiment (BENCH_APPLIANCE_SYNC=0): the sync worker stops once bootstrapped, to tell its share
// of the staff's latencies (its pushes, acks and pulls share the one SQLite connection).
if (process.env.BENCH_APPLIANCE_SYNC === '0') await rt.sync.stop();
const login = await rt.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: 'bench', pin: '1234' } });
const token = login.cookies.find((c) => c.name === 'ck_token');
if (!token) throw new Error(`bench: appliance login failed (${login.statusCode}): ${login.body}`);
await rt.app.listen({ port: 0, host: '127.0.0.1' });

// Server-side time per endpoint and the event loop's delay: what the appliance itself spends, apart
// from the load generator's own queueing on a shared machine (bench/lib/server-times.ts).
recordServerTimes(rt.app.server);
const addr = rt.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
serveUntilStopped(
  {
    port: addr.port,
    cookie: `ck_token=${token.value}`,
    info: { file: config.sqliteFile, tenantId, products, tables: tableIds, locationId: location.id },
  },
  async () => {
    await Promise.race([rt.sync?.stop(), new Promise((r) => setTimeout(r, 3_000))]);
    await rt.close();
    tmp.cleanup();
  },
);
