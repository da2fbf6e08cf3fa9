/**
 * What a sync pull costs the cloud (issue 28 point 14), measured in a way the machine's load does not
 * change: SQL statements per pull (Kysely's query log on the node's own PostgreSQL handle), and the
 * node process's CPU time per pull as a second, load-sensitive figure. In-process (app.inject, no
 * sockets), one cloud runtime on a fresh PostgreSQL schema, BENCH_PULL_TENANTS restaurants (default
 * 40) with 5 appliances each.
 *
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/db npx tsx bench/sync-pull-cost.ts
 *
 * Three kinds of pull, each device in turn (20 at a time), BENCH_PULL_ROUNDS rounds (default 5):
 * - idle: `wait=0` with the cursor at the tenant's end (nothing new);
 * - idle long-poll that times out: `wait=20` (ms), nothing new (the first read, the wait, the
 *   revocation check and the second read: an idle appliance's every 20 s in production);
 * - woken: one commit per restaurant, then its 5 appliances pull from the cursor before it.
 * The contacts a node holds in memory are written at the end (flushContacts, when the build has it)
 * and counted with the idle pulls.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../server/config.js';
import type { Database } from '../server/db/database.js';
import { createRuntime } from '../server/runtime.js';
import { SCHEMA_VERSION } from '../server/db/migrations/index.js';
import { PROTOCOL_VERSION } from '../sync/protocol.js';

const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TENANTS = Number(process.env.BENCH_PULL_TENANTS ?? 40);
const ROUNDS = Number(process.env.BENCH_PULL_ROUNDS ?? 5);
const V = `protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}`;

const schema = `bench_pull_${process.pid}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`create schema ${schema}`);
let counting = false;
const counts = new Map<string, number>();
const pool = new pg.Pool({ connectionString: PG_URL, max: 10, options: `-c search_path=${schema}` });
pool.on('error', () => {});
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool }),
  log: (e) => {
    if (!counting) return;
    const k = e.query.sql.replace(/\s+/g, ' ').replace(/\$\d+(, \$\d+)*/g, '$…').slice(0, 90);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  },
});
const handle = { db, dialect: 'postgres' as const, pgSchema: schema, ping: async () => true, close: () => db.destroy() };
const rt = await createRuntime(loadConfig({ ROLE: 'cloud', DATABASE_URL: PG_URL, LOG_LEVEL: 'silent', DATA_DIR: '/tmp', PAYMENT_PROVIDER: 'simulator' }), { handle });
const cloud = rt.services.sync.cloud as typeof rt.services.sync.cloud & { flushContacts?: () => Promise<void> };

try {
  const devices: Array<{ tenant: string; key: string; cursor: number }> = [];
  for (let i = 0; i < TENANTS; i++) {
    const { tenant } = await rt.services.tenants.create({ slug: `pull-${i}`, name: `Pull ${i}`, admin_email: `a${i}@pull.test`, admin_password: 'geheim-wachtwoord-1' });
    const cursor = await rt.changes.lastSeq(tenant.id);
    for (let d = 0; d < 5; d++) devices.push({ tenant: tenant.id, key: (await cloud.createDevice(tenant.id, `Apparaat ${d}`)).sync_key, cursor });
  }
  const pull = async (dev: (typeof devices)[number], wait: number, cursor = dev.cursor) => {
    const res = await rt.app.inject({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=${cursor}&wait=${wait}`, headers: { authorization: `Bearer ${dev.key}` } });
    if (res.statusCode !== 200) throw new Error(res.body);
    return res.json<{ changes: unknown[]; next_cursor: number }>();
  };
  const each = async (fn: (dev: (typeof devices)[number]) => Promise<unknown>) => {
    for (let i = 0; i < devices.length; i += 20) await Promise.all(devices.slice(i, i + 20).map(fn));
  };
  // Warm-up: every device once (keys, marks, connections), not counted.
  await each((dev) => pull(dev, 0));
  await cloud.flushContacts?.();

  const measure = async (name: string, pulls: number, fn: () => Promise<void>) => {
    counts.clear();
    counting = true;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    counting = false;
    const n = [...counts.values()].reduce((a, b) => a + b, 0);
    console.log(`${name}: ${pulls} pulls, ${n} statements = ${(n / pulls).toFixed(2)} per pull; node CPU ${((cpu.user + cpu.system) / 1000 / pulls).toFixed(3)} ms per pull; wall ${(ms / pulls).toFixed(2)} ms per pull`);
    for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`   ${String(v).padStart(6)}  ${k}`);
  };

  await measure('idle (wait=0)', ROUNDS * devices.length, async () => {
    for (let r = 0; r < ROUNDS; r++) await each((dev) => pull(dev, 0));
    await cloud.flushContacts?.();
  });
  await measure('idle long-poll timing out (wait=20 ms)', ROUNDS * devices.length, async () => {
    for (let r = 0; r < ROUNDS; r++) await each((dev) => pull(dev, 20));
    await cloud.flushContacts?.();
  });
  // Woken: a commit per restaurant (not counted), then its appliances pull what it brought.
  let woken = 0;
  counts.clear();
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < TENANTS; i++) await rt.services.tenants.patchSettings(devices[i * 5]!.tenant, { max_party_size: 10 + r });
    await measure(`woken, round ${r + 1} (one commit per restaurant, then its 5 appliances pull it)`, devices.length, async () => {
      await each(async (dev) => {
        const page = await pull(dev, 0);
        if (page.changes.length === 0) throw new Error('a woken pull got nothing');
        woken += page.changes.length;
        dev.cursor = page.next_cursor;
      });
      await cloud.flushContacts?.();
    });
  }
  console.log(`(${woken} changes delivered to woken pulls)`);
} finally {
  await rt.close();
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
}
