/**
 * Samples what PostgreSQL's backends of one database are doing (pg_stat_activity) every
 * BENCH_WAITS_MS (default 50) until stopped (SIGINT/SIGTERM) or BENCH_WAITS_SECONDS pass, then prints
 * per (state, wait event) how many backends were seen in it per sample, and for backends waiting on
 * a lock: the lock type, the statement waiting and the statement of the backend it waits for; and
 * per statement how many backends were running it without a wait (a sampling profile of the
 * database's CPU by statement).
 * Used beside bench/cloud-capacity.bench.ts to tell lock waits from I/O (WAL fsync) waits and CPU.
 *
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/db BENCH_WAITS_SECONDS=20 npx tsx bench/pg-waits.ts
 */
import pg from 'pg';

const url = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const every = Math.max(10, Number(process.env.BENCH_WAITS_MS ?? 50));
const seconds = Number(process.env.BENCH_WAITS_SECONDS ?? 600);
const c = new pg.Client({ connectionString: url });
await c.connect();
const db = (await c.query<{ d: string }>('select current_database() as d')).rows[0]!.d;
const states = new Map<string, number>();
const lockWaits = new Map<string, number>();
const running = new Map<string, number>(); // active and not waiting: on a CPU (or in the kernel), by statement
let samples = 0;
let stop = false;
process.on('SIGINT', () => (stop = true));
process.on('SIGTERM', () => (stop = true));
const short = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').replace(/\$\d+/g, '?').replace(/\(\?(, \?)+\)/g, '(?…)').slice(0, 90);
const until = Date.now() + seconds * 1000;
while (!stop && Date.now() < until) {
  const { rows } = await c.query<{ state: string | null; wet: string | null; we: string | null; query: string | null; blockers: number[]; bq: string | null; locktype: string | null }>(
    `select a.state, a.wait_event_type as wet, a.wait_event as we, a.query, pg_blocking_pids(a.pid) as blockers,
            (select b.query from pg_stat_activity b where b.pid = (pg_blocking_pids(a.pid))[1]) as bq,
            (select l.locktype || ':' || coalesce(l.relation::regclass::text, '') || ':' || l.mode from pg_locks l where l.pid = a.pid and not l.granted limit 1) as locktype
       from pg_stat_activity a where a.datname = $1 and a.pid <> pg_backend_pid() and a.backend_type = 'client backend'`,
    [db],
  );
  samples++;
  for (const r of rows) {
    const k = `${r.state ?? '?'} ${r.wet ?? '-'}:${r.we ?? '-'}`;
    states.set(k, (states.get(k) ?? 0) + 1);
    if (r.state === 'active' && !r.wet) running.set(short(r.query), (running.get(short(r.query)) ?? 0) + 1);
    if (r.wet === 'Lock') {
      const lk = `${r.locktype} | waiting: ${short(r.query)} | holder: ${short(r.bq)}`;
      lockWaits.set(lk, (lockWaits.get(lk) ?? 0) + 1);
    }
  }
  await new Promise((r) => setTimeout(r, every));
}
await c.end();
console.log(`pg-waits: ${samples} samples of database ${db} every ${every} ms; backends per sample:`);
for (const [k, n] of [...states].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / samples).toFixed(3).padStart(8)}  ${k}`);
console.log('running (active, no wait event: backends per sample, by statement):');
for (const [k, n] of [...running].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${(n / samples).toFixed(3).padStart(8)}  ${k}`);
console.log('lock waits (backends per sample):');
for (const [k, n] of [...lockWaits].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${(n / samples).toFixed(3).padStart(8)}  ${k}`);
