// One cloud node (ROLE=cloud) on an existing PostgreSQL schema that the bench seeded
// (BENCH_NODE_DATABASE_URL, with its search_path), optionally in a cluster (BENCH_NODE_REDIS_URL,
// BENCH_NODE_REDIS_PREFIX: several nodes of one deployment share Redis for commit notices and
// socket fan-out, docs/adr/0004-cloud-scale-out.md). The payment simulator is chosen explicitly.
import { loadConfig } from '../../server/config.js';
import { createRuntime } from '../../server/runtime.js';
import { serveUntilStopped } from '../lib/child.js';

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
const rt = await createRuntime(config);
await rt.app.listen({ port: 0, host: '127.0.0.1' });
const addr = rt.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
serveUntilStopped({ port: addr.port, info: { clustered: Boolean(redis) } }, async () => {
  // Open long-polls keep Fastify's close waiting (up to their wait); don't let them hold the bench.
  await Promise.race([rt.close(), new Promise((r) => setTimeout(r, 3_000))]);
});
