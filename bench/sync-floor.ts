/**
 * The storage floor of a catch-up's push (issue 29, "the measured limit that stops it"): how long
 * PostgreSQL alone takes to write the rows a 7-day push left in the cloud, with nothing of ours in
 * the way: no HTTP, no JSON, no validation, no client round trip. A run of the sync bench keeps its
 * cloud (BENCH_SYNC_KEEP_CLOUD=<file>: the schema and the last transaction id before the push); this
 * script makes a fresh schema through the real migrations (same tables, indexes, constraints and
 * foreign keys), copies the rows that were there before the push (not timed), checkpoints, and then
 * copies the rows written after it (xmin after the push's start: the push, the web shop during the
 * catch-up, the webhook sender's marks), one `insert … select` per table in foreign-key order, each
 * committed on its own (synchronous_commit on, as the cloud). That is a lower bound for writing those
 * rows: every row is written once, server-side, in one statement per table, while the push writes
 * per chunk and updates an order's row at each status.
 *
 *   BENCH_SYNC_SCENARIOS=7d BENCH_SYNC_JOINS=none BENCH_SYNC_KEEP_CLOUD=/tmp/kept.json npx tsx bench/sync-catchup.bench.ts
 *   BENCH_FLOOR_FROM=/tmp/kept.json npx tsx bench/sync-floor.ts      # BENCH_PG_URL; BENCH_FLOOR_REPEAT=3; BENCH_FLOOR_DROP_SOURCE=1
 */
import fs from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../server/db/database.js';
import { migrateToLatest } from '../server/db/connection.js';
import { machine, table } from './lib/format.js';
import { cpuMsOf } from './lib/pg-cpu.js';

const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const from = process.env.BENCH_FLOOR_FROM;
if (!from) throw new Error('bench: BENCH_FLOOR_FROM=<file written by the sync bench with BENCH_SYNC_KEEP_CLOUD> is needed');
const kept = JSON.parse(fs.readFileSync(from, 'utf8')) as { scenario: string; schema: string; pushXid?: number };
if (kept.pushXid === undefined) throw new Error(`bench: ${from} names no pushXid (kept by an older sync bench)`);
const pushXid = kept.pushXid;
const source = kept.schema;
const repeat = Math.max(1, Math.min(5, Number(process.env.BENCH_FLOOR_REPEAT ?? 1)));
const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The source schema's tables in foreign-key order (parents first), with the columns an insert may name. */
async function tablesInOrder(client: pg.Client): Promise<Array<{ name: string; columns: string[]; identityAlways: boolean }>> {
  const tables = (await client.query<{ t: string }>(`select tablename as t from pg_tables where schemaname = $1 and tablename not like 'kysely_migration%' order by 1`, [source])).rows.map((r) => r.t);
  const deps = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  const fks = await client.query<{ child: string; parent: string }>(
    `select c.relname as child, p.relname as parent from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
     join pg_namespace n on n.oid = c.relnamespace where k.contype = 'f' and n.nspname = $1`,
    [source],
  );
  for (const { child, parent } of fks.rows) if (child !== parent) deps.get(child)?.add(parent);
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: string, path: string[]) => {
    if (state.get(t) === 'done') return;
    if (state.get(t) === 'visiting') throw new Error(`bench: a foreign-key cycle: ${[...path, t].join(' → ')}`);
    state.set(t, 'visiting');
    for (const p of deps.get(t) ?? []) visit(p, [...path, t]);
    state.set(t, 'done');
    order.push(t);
  };
  for (const t of tables) visit(t, []);
  const out = [];
  for (const name of order) {
    const cols = await client.query<{ c: string; identity: string }>(
      `select attname as c, attidentity as identity from pg_attribute where attrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
      [source, name],
    );
    out.push({ name, columns: cols.rows.map((r) => ident(r.c)), identityAlways: cols.rows.some((r) => r.identity === 'a') });
  }
  return out;
}

async function once(client: pg.Client, tables: Awaited<ReturnType<typeof tablesInOrder>>): Promise<{ rows: Array<{ name: string; rows: number; ms: number }>; ms: number; cpu: number; before: number }> {
  const floor = `bench_floor_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await client.query(`create schema ${floor}`);
  const pool = new pg.Pool({ connectionString: PG_URL, max: 1, options: `-c search_path=${floor}` });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db, { pgSchema: floor });
    await db.destroy();
    const copy = (t: (typeof tables)[number], after: boolean) =>
      client.query(
        `insert into ${floor}.${ident(t.name)} (${t.columns.join(', ')}) ${t.identityAlways ? 'overriding system value ' : ''}select ${t.columns.join(', ')} from ${ident(source)}.${ident(t.name)} where ${after ? '' : 'not '}(xmin::text::bigint > $1)`,
        [pushXid],
      );
    // The rows that were there before the push (the menu, staff, the web orders of the outage): not timed.
    let before = 0;
    for (const t of tables) before += (await copy(t, false)).rowCount ?? 0;
    await client.query('checkpoint');
    await client.query(`analyze ${tables.map((t) => `${floor}.${ident(t.name)}`).join(', ')}`);
    const pid = Number((await client.query<{ p: number }>('select pg_backend_pid() as p')).rows[0]!.p);
    const rows: Array<{ name: string; rows: number; ms: number }> = [];
    const cpu0 = cpuMsOf(pid) ?? NaN;
    const t0 = performance.now();
    for (const t of tables) {
      const t1 = performance.now();
      const n = (await copy(t, true)).rowCount ?? 0;
      rows.push({ name: t.name, rows: n, ms: performance.now() - t1 });
    }
    const ms = performance.now() - t0;
    return { rows, ms, cpu: (cpuMsOf(pid) ?? NaN) - cpu0, before };
  } finally {
    await client.query(`drop schema if exists ${floor} cascade`);
  }
}

const client = new pg.Client({ connectionString: PG_URL });
await client.connect();
try {
  console.log(`sync floor: ${machine()}; the ${kept.scenario} run's cloud in schema ${source}, rows written after transaction ${pushXid}`);
  const tables = await tablesInOrder(client);
  for (let k = 0; k < repeat; k++) {
    const r = await once(client, tables);
    const total = r.rows.reduce((s, x) => s + x.rows, 0);
    const top = r.rows.filter((x) => x.rows > 0).sort((a, b) => b.ms - a.ms);
    console.log(`run ${k + 1}/${repeat}: ${total} rows written after the push's start copied in ${(r.ms / 1000).toFixed(2)} s (${Math.round(total / (r.ms / 1000))} rows/s; the backend's CPU ${(r.cpu / 1000).toFixed(2)} s), ${r.rows.filter((x) => x.rows > 0).length} tables; ${r.before} rows from before the push copied first (not timed)`);
    console.log(table([['table', 'rows', 'ms', 'rows/s'], ...top.map((x) => [x.name, x.rows, x.ms.toFixed(0), Math.round(x.rows / Math.max(x.ms, 0.001) * 1000)])]));
  }
  if (process.env.BENCH_FLOOR_DROP_SOURCE === '1') await client.query(`drop schema if exists ${ident(source)} cascade`);
} finally {
  await client.end();
}
