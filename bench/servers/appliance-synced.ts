// The real appliance (ROLE=local, SQLite with WAL + synchronous=FULL) paired with the bench cloud
// child (BENCH_CLOUD_URL, BENCH_SYNC_KEY): its own SyncWorker runs as in production (HTTP transport,
// long-poll), so web orders placed in the cloud arrive through sync. Once bootstrapped (the cloud's
// tenant, staff and menu are here) it lays out a floor (BENCH_TABLES tables in one zone) and a stock
// location, logs the staff user in and reports the cookie and the ids the load generator needs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { serveUntilStopped } from '../lib/child.js';
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

// Server-side time per endpoint (request received → answer finished, on this process's clock) and
// the event loop's delay: what the appliance itself spends, apart from the load generator's own
// queueing on a shared machine. IPC {type:'server-times', action:'reset'|'get'} → {type:'server-times', times, loop}.
const times = new Map<string, number[]>();
const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
rt.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
  const t0 = performance.now();
  res.once('finish', () => {
    const key = `${req.method} ${(req.url ?? '').split('?')[0]!.replace('/api/v1', '').replace(ID, ':id')}`;
    const l = times.get(key) ?? [];
    l.push(performance.now() - t0);
    times.set(key, l);
  });
});
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
process.on('message', (m: { type?: string; action?: string }) => {
  if (m?.type !== 'server-times') return;
  if (m.action === 'reset') {
    times.clear();
    loop.reset();
    cpu0 = process.cpuUsage();
    at0 = performance.now();
  } else {
    const cpu = process.cpuUsage(cpu0);
    process.send!({
      type: 'server-times',
      times: Object.fromEntries(times),
      // The histogram's samples include its own 10 ms timer interval: the delay is what comes on top.
      loop: { p50: Math.max(0, loop.percentile(50) / 1e6 - 10), p99: Math.max(0, loop.percentile(99) / 1e6 - 10), max: Math.max(0, loop.max / 1e6 - 10) },
      cpuShare: (cpu.user + cpu.system) / 1000 / (performance.now() - at0),
    });
  }
});
let cpu0 = process.cpuUsage();
let at0 = performance.now();
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
