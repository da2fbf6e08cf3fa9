import { sql } from 'kysely';
import type { Db, Executor } from '../server/db/connection.js';
import { isPostgres } from '../server/db/bulk.js';
import { getMeta } from '../server/db/meta.js';

/**
 * A snapshot join's indexes (issue 29 point 3; sync/README.md "Protocol" step 4): while a new
 * appliance joins by snapshot into its empty SQLite database, the big tables' non-unique secondary
 * indexes are dropped at the first page and built again, once, over the loaded rows in the
 * transaction of the last page, instead of being updated row by row (bench/join-floor.ts measures
 * both). Unique indexes (also partial ones) enforce rules and stay, as do the primary keys.
 *
 * Crash-safe: the dropped indexes' definitions (their `create index` text from sqlite_master) are
 * recorded in `meta` in the transaction that drops them, and every start (`restoreJoinIndexes`,
 * createRuntime, before the migrations) and the last page create again whatever is recorded and not
 * there, then forget the record. So a crash mid-join never leaves an appliance without its indexes
 * after the join; the join then goes on from its cursor with the indexes in place.
 *
 * Only on SQLite (the appliance); nothing on PostgreSQL.
 */

/** The meta key holding the dropped indexes: JSON `[{ name, sql }]`. */
export const JOIN_INDEXES_KEY = 'snapshot_join_dropped_indexes';

/**
 * The tables whose non-unique indexes a join drops: the biggest of a week's snapshot (bench/README.md
 * "Session 17, join"). Not `stock_movements_pair`: the stock apply reads a pair's ledger through it
 * during the join (its levels), which without it would scan the whole ledger.
 */
export const JOIN_INDEX_TABLES: readonly string[] = ['orders', 'order_items', 'order_status_history', 'stock_movements', 'journal_entries', 'receipts', 'loyalty_transactions'];
/** Indexes of those tables that the join's own reads use: kept. */
const KEPT = new Set(['stock_movements_pair']);

type Recorded = Array<{ name: string; sql: string }>;

function parse(text: string | undefined): Recorded {
  if (!text) return [];
  const v = JSON.parse(text) as unknown;
  return Array.isArray(v) ? (v as Recorded).filter((x) => x && typeof x.name === 'string' && typeof x.sql === 'string') : [];
}

/**
 * In the first snapshot page's transaction: drops the join tables' non-unique indexes and records
 * their definitions (added to any recorded before). Returns the names dropped. No-op on PostgreSQL.
 */
export async function dropJoinIndexes(trx: Executor): Promise<string[]> {
  if (isPostgres(trx)) return [];
  const found = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name in (${sql.join([...JOIN_INDEX_TABLES])}) order by name`.execute(trx);
  const dropping = found.rows.filter((r) => !KEPT.has(r.name) && !/^\s*create\s+unique\b/i.test(r.sql));
  if (dropping.length === 0) return [];
  const recorded = parse(await getMeta(trx, JOIN_INDEXES_KEY));
  const names = new Set(recorded.map((r) => r.name));
  const all = [...recorded, ...dropping.filter((r) => !names.has(r.name)).map((r) => ({ name: r.name, sql: r.sql }))];
  await trx
    .insertInto('meta')
    .values({ key: JOIN_INDEXES_KEY, value: JSON.stringify(all) })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(all) }))
    .execute();
  for (const r of dropping) await sql`drop index ${sql.id(r.name)}`.execute(trx);
  return dropping.map((r) => r.name);
}

/**
 * Creates the recorded indexes that are not there and forgets the record (the last snapshot page's
 * transaction, and every start). Returns the names created. No-op on PostgreSQL, on a database
 * without a `meta` table yet (a new one) and when nothing is recorded.
 */
export async function restoreJoinIndexes(db: Executor): Promise<string[]> {
  if (isPostgres(db)) return [];
  const meta = await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = 'meta'`.execute(db);
  if (Number(meta.rows[0]?.n ?? 0) === 0) return [];
  const text = await getMeta(db, JOIN_INDEXES_KEY);
  if (text === undefined) return [];
  const recorded = parse(text);
  const created: string[] = [];
  const work = async (trx: Executor) => {
    const present = new Set((await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(trx)).rows.map((r) => r.name));
    for (const r of recorded) {
      if (present.has(r.name)) continue;
      await sql.raw(r.sql).execute(trx);
      created.push(r.name);
    }
    await trx.deleteFrom('meta').where('key', '=', JOIN_INDEXES_KEY).execute();
  };
  // In the caller's transaction when it has one (the last page), else in one of its own.
  if (db.isTransaction) await work(db);
  else await (db as Db).transaction().execute(work);
  return created;
}
