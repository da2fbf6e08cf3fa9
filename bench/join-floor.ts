/**
 * The storage floor of a snapshot join (issue 29, the join row's "measured limit that stops it"; the
 * push's is bench/sync-floor.ts): how long better-sqlite3 alone takes to write the rows a new
 * appliance ends up with after joining a kept cloud's history, with nothing of ours in between: no
 * HTTP, no JSON, no payload checks, no applies, no Kysely. Same pragmas (`openSqlite`: WAL,
 * synchronous=FULL, foreign keys on, the 4 MiB page cache), the schema made by the real migrations,
 * the same number of transactions as the join, prepared multi-row inserts (up to 500 rows per
 * statement, as `insertRows`), rows in the joined file's order, tables parents first.
 *
 * The rows: a joined appliance's SQLite file. Made once per kept cloud (not timed) by joining it here
 * in process, as the sync bench's tsx mode does (`SyncEngine.syncOnce`, snapshot bootstrap), and kept
 * beside the kept file as `<file>.joined.sqlite` (+ `.joined.json`: the join's transaction count);
 * delete both to make them again. Then, per run, a fresh migrated file is loaded twice:
 * - `indexes`: with every index of the schema in place (what the join does today);
 * - `after`: the loaded tables' non-unique secondary indexes dropped before the load (not timed) and
 *   created again in the last transaction (timed): building them after the load instead of inserting
 *   into their B-trees row by row.
 *
 *   BENCH_SYNC_SCENARIOS=7d BENCH_SYNC_JOINS=snapshot BENCH_SYNC_KEEP_CLOUD=/tmp/kept.json npx tsx bench/sync-catchup.bench.ts
 *   BENCH_FLOOR_FROM=/tmp/kept.json npx tsx bench/join-floor.ts      # BENCH_PG_URL (the kept cloud's); BENCH_FLOOR_REPEAT=3
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { migrateToLatest, openDb, openSqlite } from '../server/db/connection.js';
import { createRuntime } from '../server/runtime.js';
import { syncRegistry } from '../server/modules/sync-descriptors.js';
import { SyncEngine } from '../sync/engine.js';
import { httpTransport } from '../sync/transport.js';
import { buildCompiledChildren } from './lib/compiled.js';
import { machine, table } from './lib/format.js';
import { cloudAdminCookie, sqliteCounter, startCloud, TimedTransport } from './lib/sync.js';
import { benchConfig } from './lib/tmp.js';

const from = process.env.BENCH_FLOOR_FROM;
if (!from) throw new Error('bench: BENCH_FLOOR_FROM=<file written by the sync bench with BENCH_SYNC_KEEP_CLOUD> is needed');
const repeat = Math.max(1, Math.min(5, Number(process.env.BENCH_FLOOR_REPEAT ?? 1)));
const joinedFile = `${from}.joined.sqlite`;
const joinedInfo = `${from}.joined.json`;
/** Bound parameters per statement at most (SQLite's default limit 32,766). */
const MAX_PARAMS = 32_766;
const ROWS_PER_INSERT = 500;
const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
const sec = (ms: number) => (ms / 1000).toFixed(2);

interface JoinInfo {
  transactions: number;
  statements: number;
  snapshotPages: number;
  pullPages: number;
  rows: number;
  ms: number;
}

/** Joins the kept cloud once in this process (snapshot bootstrap), keeping the appliance's file: the rows to load. */
async function makeJoinedFile(): Promise<JoinInfo> {
  const kept = JSON.parse(fs.readFileSync(from!, 'utf8')) as { scenario: string; schema: string };
  await buildCompiledChildren();
  process.env.BENCH_CLOUD_SCHEMA = kept.schema;
  const { server } = await startCloud({ compiled: true });
  const tmp = benchConfig('join-floor-source');
  try {
    const cookie = await cloudAdminCookie(server.url);
    const res = await fetch(`${server.url}/api/v1/sync/devices`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Nieuwe kassa (join-floor)' }) });
    const { sync_key } = (await res.json()) as { sync_key: string };
    const rt = await createRuntime(tmp.config);
    const transport = new TimedTransport(httpTransport(server.url, sync_key, { timeoutMs: 120_000 }));
    const counter = sqliteCounter();
    counter.reset();
    const t0 = performance.now();
    const engine = new SyncEngine({ db: rt.handle.db, changes: rt.changes, clock: rt.clock, transport, bootstrap: 'snapshot', registry: syncRegistry });
    const { pulled } = await engine.syncOnce();
    const ms = performance.now() - t0;
    const counts = counter.get();
    await rt.close();
    fs.copyFileSync(tmp.config.sqliteFile!, joinedFile);
    const info: JoinInfo = { ...counts, snapshotPages: transport.get('/api/v1/sync/snapshot').calls, pullPages: transport.get('/api/v1/sync/pull').calls, rows: pulled, ms };
    fs.writeFileSync(joinedInfo, JSON.stringify(info));
    return info;
  } finally {
    tmp.cleanup();
    await server.stop();
  }
}

interface TableRows {
  name: string;
  columns: string[];
  rows: unknown[][];
}

/** The joined file's rows, table by table, parents before children (foreign keys), each table in its rowid order. */
function readRows(file: string): TableRows[] {
  const src = new SqliteDatabase(file, { readonly: true });
  try {
    const names = (src.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_migration%' order by name`).all() as Array<{ name: string }>).map((r) => r.name);
    const parents = new Map(names.map((t) => [t, (src.pragma(`foreign_key_list(${q(t)})`) as Array<{ table: string }>).map((f) => f.table).filter((p) => p !== t)]));
    const order: string[] = [];
    const seen = new Set<string>();
    const visit = (t: string) => {
      if (seen.has(t)) return;
      seen.add(t);
      for (const p of parents.get(t) ?? []) visit(p);
      order.push(t);
    };
    for (const t of names) visit(t);
    const out: TableRows[] = [];
    for (const name of order) {
      const columns = (src.pragma(`table_xinfo(${q(name)})`) as Array<{ name: string; hidden: number }>).filter((c) => c.hidden === 0).map((c) => c.name);
      const withoutRowid = (src.prepare(`select sql from sqlite_master where type = 'table' and name = ?`).get(name) as { sql: string }).sql.toLowerCase().includes('without rowid');
      const rows = src.prepare(`select ${columns.map(q).join(', ')} from ${q(name)}${withoutRowid ? '' : ' order by rowid'}`).raw(true).all() as unknown[][];
      if (rows.length > 0) out.push({ name, columns, rows });
    }
    return out;
  } finally {
    src.close();
  }
}

interface RunResult {
  ms: number;
  cpuMs: number;
  commitMs: number;
  indexMs: number;
  indexes: number;
  statements: number;
  perTable: Map<string, number>;
}

/** One load into a fresh migrated file: `after` drops the loaded tables' non-unique indexes first and creates them in the last transaction. */
async function load(tables: TableRows[], transactions: number, mode: 'indexes' | 'after'): Promise<RunResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ck-bench-join-floor-'));
  try {
    const file = path.join(dir, 'restaurant.sqlite');
    const h = openDb({ sqliteFile: file });
    await migrateToLatest(h.db);
    await h.close();
    const conn = openSqlite(file);
    try {
      // Rows the migrations wrote in the loaded tables (if any) go first, not timed: the load writes the joined file's.
      for (const t of [...tables].reverse()) conn.prepare(`delete from ${q(t.name)}`).run();
      const loaded = new Set(tables.map((t) => t.name));
      const secondary: Array<{ name: string; sql: string }> = [];
      if (mode === 'after') {
        for (const r of conn.prepare(`select name, tbl_name, sql from sqlite_master where type = 'index' and sql is not null`).all() as Array<{ name: string; tbl_name: string; sql: string }>) {
          if (!loaded.has(r.tbl_name) || /^\s*create\s+unique\b/i.test(r.sql)) continue;
          secondary.push({ name: r.name, sql: r.sql });
          conn.prepare(`drop index ${q(r.name)}`).run();
        }
      }
      conn.pragma('wal_checkpoint(TRUNCATE)');
      const total = tables.reduce((s, t) => s + t.rows.length, 0);
      const perTx = Math.ceil(total / transactions);
      const statements = new Map<string, SqliteDatabase.Statement>();
      const insert = (t: TableRows, n: number) => {
        const key = `${t.name}\u0000${n}`;
        let st = statements.get(key);
        if (!st) {
          const one = `(${t.columns.map(() => '?').join(', ')})`;
          st = conn.prepare(`insert into ${q(t.name)} (${t.columns.map(q).join(', ')}) values ${Array.from({ length: n }, () => one).join(', ')}`);
          statements.set(key, st);
        }
        return st;
      };
      const begin = conn.prepare('begin');
      const commit = conn.prepare('commit');
      const perTable = new Map<string, number>();
      let commitMs = 0;
      let indexMs = 0;
      let count = 0;
      // The rows as one sequence (tables parents first), cut into `transactions` equal parts.
      let ti = 0;
      let ri = 0;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let k = 0; k < transactions; k++) {
        begin.run();
        let budget = k === transactions - 1 ? Infinity : perTx;
        while (budget > 0 && ti < tables.length) {
          const t = tables[ti]!;
          const t1 = performance.now();
          const perStatement = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(MAX_PARAMS / t.columns.length)));
          const end = Math.min(t.rows.length, ri + budget);
          while (ri < end) {
            const n = Math.min(perStatement, end - ri);
            const params: unknown[] = [];
            for (let i = ri; i < ri + n; i++) for (const v of t.rows[i]!) params.push(v);
            insert(t, n).run(params);
            count += 1;
            budget -= n;
            ri += n;
          }
          perTable.set(t.name, (perTable.get(t.name) ?? 0) + performance.now() - t1);
          if (ri >= t.rows.length) {
            ti += 1;
            ri = 0;
          }
        }
        if (k === transactions - 1) {
          const t2 = performance.now();
          for (const ix of secondary) conn.prepare(ix.sql).run();
          indexMs = performance.now() - t2;
        }
        const t3 = performance.now();
        commit.run();
        commitMs += performance.now() - t3;
      }
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const n = (conn.prepare(`select count(*) as n from ${q(tables.at(-1)!.name)}`).get() as { n: number }).n;
      if (n !== tables.at(-1)!.rows.length) throw new Error(`bench: ${tables.at(-1)!.name} has ${n} rows after the load, not ${tables.at(-1)!.rows.length}`);
      return { ms, cpuMs: (cpu.user + cpu.system) / 1000, commitMs, indexMs, indexes: secondary.length, statements: count, perTable };
    } finally {
      conn.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const info: JoinInfo = fs.existsSync(joinedFile) && fs.existsSync(joinedInfo) ? (JSON.parse(fs.readFileSync(joinedInfo, 'utf8')) as JoinInfo) : await makeJoinedFile();
console.log(`join floor: ${machine()}`);
console.log(
  `the joined appliance (${joinedFile}): ${info.rows} snapshot rows and changes in ${info.snapshotPages} snapshot pages + ${info.pullPages} pull pages, ${info.statements} statements in ${info.transactions} transactions (joined here in ${sec(info.ms)} s, in process under tsx)`,
);
const tables = readRows(joinedFile);
const total = tables.reduce((s, t) => s + t.rows.length, 0);
console.log(`${total} rows in ${tables.length} tables, loaded in ${info.transactions} transactions`);
for (let k = 0; k < repeat; k++) {
  for (const mode of ['indexes', 'after'] as const) {
    const r = await load(tables, info.transactions, mode);
    console.log(
      `run ${k + 1}/${repeat}, ${mode === 'indexes' ? 'the schema\'s indexes in place' : `${r.indexes} non-unique indexes created after the load`}: ${sec(r.ms)} s (CPU ${sec(r.cpuMs)} s; ${r.statements} inserts, commits ${sec(r.commitMs)} s${mode === 'after' ? `, index builds ${sec(r.indexMs)} s` : ''}; load average ${os.loadavg()[0]!.toFixed(2)})`,
    );
    const top = [...r.perTable].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(table([['table', 'rows', 'ms'], ...top.map(([name, ms]) => [name, tables.find((t) => t.name === name)!.rows.length, ms.toFixed(0)])]));
  }
}
