// One cloud node (ROLE=cloud) on an existing PostgreSQL schema that the bench seeded
// (BENCH_NODE_DATABASE_URL, with its search_path), optionally in a cluster (BENCH_NODE_REDIS_URL,
// BENCH_NODE_REDIS_PREFIX: several nodes of one deployment share Redis for commit notices and
// socket fan-out, docs/adr/0004-cloud-scale-out.md). The payment simulator is chosen explicitly.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../server/db/database.js';
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { serveUntilStopped } from '../lib/child.js';
import { recordServerTimes } from '../lib/server-times.js';
import { tracePool, traceRequests } from '../lib/request-trace.js';

const url = process.env.BENCH_NODE_DATABASE_URL;
if (!url) throw new Error('bench: BENCH_NODE_DATABASE_URL is required');
const redis = process.env.BENCH_NODE_REDIS_URL;
const config = loadConfig({
  ROLE: 'cloud',
  DATABASE_URL: url,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'silent',
  // The load generator is one IP for a thousand restaurants' guests and appliances.
  RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
  DATA_DIR: '/tmp',
  PAYMENT_PROVIDER: 'simulator',
  ...(redis ? { REDIS_URL: redis, REDIS_KEY_PREFIX: process.env.BENCH_NODE_REDIS_PREFIX ?? 'bench:' } : {}),
});
// The shipped handle (server/db/connection.ts openDb: a pg.Pool of 10), built here so the bench can
// see the pool: how many requests wait for a connection (BENCH_NODE_POOL changes its size: an experiment).
// BENCH_NODE_ASYNC_COMMIT=1, a what-if and not shippable for orders: every commit of this node
// without waiting for its WAL fsync, to see how much of the node's time is the shared disk.
// (The URL's own `options` (the search_path) would override a separate one: both go together here.)
const parsed = new URL(url);
const options = [parsed.searchParams.get('options'), process.env.BENCH_NODE_ASYNC_COMMIT === '1' ? '-c synchronous_commit=off' : null].filter(Boolean).join(' ');
parsed.searchParams.delete('options');
const pool = new pg.Pool({ connectionString: parsed.toString(), max: Number(process.env.BENCH_NODE_POOL ?? 10), ...(options ? { options } : {}) });
pool.on('error', () => {});
// Per request: pool waits and statements (bench/lib/request-trace.ts).
tracePool(pool);
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
const rt = await createRuntime(config, {
  handle: { db, dialect: 'postgres', connection: { databaseUrl: url }, ping: async () => true, close: () => db.destroy() },
});
let waiting = { samples: 0, sum: 0, max: 0 };
setInterval(() => {
  waiting.samples += 1;
  waiting.sum += pool.waitingCount;
  waiting.max = Math.max(waiting.max, pool.waitingCount);
}, 100).unref();
process.on('message', (m: { type?: string; action?: string }) => {
  if (m?.type !== 'server-times') return;
  if (m.action === 'reset') waiting = { samples: 0, sum: 0, max: 0 };
  else process.send!({ type: 'pool', size: pool.options.max, waitingAvg: waiting.sum / Math.max(1, waiting.samples), waitingMax: waiting.max });
});
traceRequests(rt.app, rt.app.server);
await rt.app.listen({ port: 0, host: '127.0.0.1' });
recordServerTimes(rt.app.server);
const addr = rt.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
serveUntilStopped({ port: addr.port, info: { clustered: Boolean(redis) } }, async () => {
  // Open long-polls keep Fastify's close waiting (up to their wait); don't let them hold the bench.
  await Promise.race([rt.close(), new Promise((r) => setTimeout(r, 3_000))]);
});
