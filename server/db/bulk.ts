import { CompiledQuery, PostgresAdapter, sql } from 'kysely';
import type { Executor } from './connection.js';
import type { Database } from './database.js';

/**
 * Multi-row writes in one bound parameter (issue 29 point 2; bench/README.md "Sync catch-up,
 * session 10: the push"). SQL has no multi-row UPDATE with different values per row; on PostgreSQL
 * the rows travel as ONE json text parameter, turned into rows of the table's own type by
 * `json_populate_recordset(null::<table>, $1)` (the table's column types do the conversions), and
 * one statement updates them all. Elsewhere (SQLite: one process, no round trips, statements
 * prepared once) a statement per row.
 *
 * Rows hold plain JSON values (strings, numbers, booleans, null; JSON columns as their text);
 * `undefined` counts as not given.
 */

type Row = Record<string, unknown>;
type Table = keyof Database & string;

export const isPostgres = (db: Executor): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** Rows per json statement on PostgreSQL: bounded by bytes of text, not by parameters. */
export const ROWS_PER_JSON_STATEMENT = 2_000;

function parts<T>(xs: ReadonlyArray<T>, size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

/**
 * Updates rows by id: each row's given columns (besides `id`) are set on the row with that id.
 * Rows are grouped by the columns they carry: one statement per group on PostgreSQL (`update … from
 * json_populate_recordset`), one per row elsewhere. Rows that do not exist are left alone.
 */
export async function bulkUpdateById(db: Executor, table: Table, rows: ReadonlyArray<{ id: string } & Row>): Promise<void> {
  const groups = new Map<string, Array<{ id: string } & Row>>();
  for (const r of rows) {
    const key = Object.keys(r)
      .filter((k) => k !== 'id' && r[k] !== undefined)
      .sort()
      .join(',');
    if (key === '') continue;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(r);
  }
  for (const [key, group] of groups) {
    const cols = key.split(',');
    if (!isPostgres(db) || group.length === 1) {
      for (const { id, ...patch } of group) await db.updateTable(table as 'users').set(patch as never).where('id', '=', id).execute();
      continue;
    }
    const set = sql.join(cols.map((c) => sql`${sql.ref(c)} = v.${sql.ref(c)}`));
    for (const part of parts(group, ROWS_PER_JSON_STATEMENT)) {
      await sql`update ${sql.table(table)} as t set ${set} from json_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(part)}) as v where t.id = v.id`.execute(db);
    }
  }
}

/** What an `insertRows` does with a row whose key is taken: skip it, or overwrite the given columns (`set`; default every column but the key). */
export type OnConflict = { columns: readonly string[]; action: 'nothing' } | { columns: readonly string[]; action: 'update'; set?: readonly string[] };

/** A value that travels the same way through both paths of `insertRows` (anything else goes through Kysely). */
const plain = (v: unknown): boolean => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** Rows per SQLite statement of `insertRows` (PostgreSQL: ROWS_PER_JSON_STATEMENT in one parameter). */
const ROWS_PER_SQLITE_INSERT = 500;
/** SQL texts of `insertRows` on SQLite by shape (table, columns, rows, conflict): at most this many kept. */
const MAX_SQLITE_TEXTS = 200;
const sqliteTexts = new Map<string, string>();

/** String.prototype.isWellFormed / toWellFormed (Node 20; the compiler's lib is ES2023). */
type Es2024String = string & { isWellFormed(): boolean; toWellFormed(): string };
/** Whether the text has no lone surrogate (what PostgreSQL's json accepts as it is). */
export const isWellFormedText = (s: string): boolean => (s as Es2024String).isWellFormed();

/**
 * The row with every string as the driver would send it in UTF-8 (a lone surrogate becomes U+FFFD,
 * `String.prototype.toWellFormed`): JSON.stringify writes a lone surrogate as an escape that
 * PostgreSQL's json refuses, where a bound text parameter stores U+FFFD.
 */
export const wellFormedRow = <R extends Row>(r: R): R => {
  const out: Row = {};
  for (const k in r) {
    const v = r[k];
    out[k] = typeof v === 'string' ? (v as unknown as Es2024String).toWellFormed() : v;
  }
  return out as R;
};

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function conflictClause(conflict: OnConflict | undefined, columns: readonly string[]): string {
  if (!conflict) return '';
  const target = `on conflict (${conflict.columns.map(quote).join(', ')})`;
  const set = conflict.action === 'update' ? (conflict.set ?? columns.filter((c) => !conflict.columns.includes(c))) : [];
  if (set.length === 0) return ` ${target} do nothing`;
  return ` ${target} do update set ${set.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(', ')}`;
}

/**
 * A multi-row INSERT (optionally `on conflict … do nothing / do update`) without building it with
 * Kysely (issue 29 points 2 and 3; bench/README.md "Sync catch-up, session 12"): Kysely builds an
 * operation tree of every value of every row and compiles it to SQL text for each statement, which
 * for the 500-row inserts of a push chunk, a pull page or a snapshot page cost as much as the
 * database's own work (2.1 s of a week's snapshot join). Here the SQL text is written directly:
 * - PostgreSQL: ONE statement per ROWS_PER_JSON_STATEMENT rows, the rows in one json text parameter
 *   (`insert … select … from json_populate_recordset(null::<table>, $1)`, as `bulkUpdateById`): the
 *   same text for any number of rows, the table's column types doing the conversions;
 * - SQLite: `values (?, …), …` per ROWS_PER_SQLITE_INSERT rows, its text kept per shape, so the
 *   connection's statement cache (connection.ts) prepares it once.
 * The rows, their order and the conflict handling are those of `insertInto(table).values(rows)`.
 * Rows that do not all carry the same columns (Kysely fills the missing ones with DEFAULT), or that
 * hold anything but strings, finite numbers and null, go through Kysely as before. Returns how many
 * rows were inserted (or updated, with `action: 'update'`).
 */
export async function insertRows(db: Executor, table: Table, rows: ReadonlyArray<Row>, conflict?: OnConflict): Promise<number> {
  return (await insertRowsReturning(db, table, rows, conflict)).affected;
}

/** `insertRows`, also returning the `returning` column of each row it inserted (or updated). */
export async function insertRowsReturning(db: Executor, table: Table, rows: ReadonlyArray<Row>, conflict?: OnConflict, returning?: string): Promise<{ affected: number; returned: unknown[] }> {
  const returned: unknown[] = [];
  if (rows.length === 0) return { affected: 0, returned };
  const columns = Object.keys(rows[0]!).filter((k) => rows[0]![k] !== undefined);
  if (!uniformRows(rows, columns) || columns.length === 0) return insertWithKysely(db, table, rows, conflict, returning);
  const cols = columns.map(quote).join(', ');
  const tail = conflictClause(conflict, columns) + (returning ? ` returning ${quote(returning)}` : '');
  const collect = (res: { rows: unknown[] }) => {
    if (returning) for (const r of res.rows as Row[]) returned.push(r[returning]);
  };
  let affected = 0;
  if (isPostgres(db)) {
    const text = `insert into ${quote(table)} (${cols}) select ${cols} from json_populate_recordset(null::${quote(table)}, $1)${tail}`;
    for (const part of parts(rows, ROWS_PER_JSON_STATEMENT)) {
      // Uniform rows: their defined keys are exactly `columns` (JSON.stringify leaves undefined out).
      let json = JSON.stringify(part);
      // A lone surrogate in a string: as the driver's UTF-8 encoding stores it (U+FFFD), where PostgreSQL's json would refuse its
      // escape. JSON.stringify writes one as `\udXXX` (and a pair as itself), so text without `\ud` has none: one search of
      // the text instead of a check per string (a literal backslash before "ud" only costs the same rows made again).
      if (json.includes('\\ud')) json = JSON.stringify(part.map(wellFormedRow));
      const res = await db.executeQuery(CompiledQuery.raw(text, [json]));
      affected += Number(res.numAffectedRows ?? 0n);
      collect(res);
    }
    return { affected: returning ? returned.length : affected, returned };
  }
  for (const part of parts(rows, ROWS_PER_SQLITE_INSERT)) {
    const key = `${table}\u0000${cols}\u0000${part.length}\u0000${tail}`;
    let text = sqliteTexts.get(key);
    if (text === undefined) {
      const one = `(${columns.map(() => '?').join(', ')})`;
      text = `insert into ${quote(table)} (${cols}) values ${Array.from({ length: part.length }, () => one).join(', ')}${tail}`;
      if (sqliteTexts.size >= MAX_SQLITE_TEXTS) sqliteTexts.delete(sqliteTexts.keys().next().value!);
      sqliteTexts.set(key, text);
    }
    // Indexed loops: a week's snapshot join fills ≈ 2.5 million parameters here (for-of made an iterator result for each).
    const params: unknown[] = new Array(part.length * columns.length);
    let i = 0;
    for (let j = 0; j < part.length; j++) {
      const r = part[j]!;
      for (let k = 0; k < columns.length; k++) params[i++] = r[columns[k]!];
    }
    const res = await db.executeQuery(CompiledQuery.raw(text, params));
    affected += Number(res.numAffectedRows ?? 0n);
    collect(res);
  }
  return { affected: returning ? returned.length : affected, returned };
}

/**
 * Whether every row carries exactly `columns` (its defined keys), each a plain value (`plain`): then
 * `insertRows` writes the SQL itself. Indexed loops, no closure per row (it runs for every row of a
 * snapshot page's multi-row inserts).
 */
function uniformRows(rows: ReadonlyArray<Row>, columns: readonly string[]): boolean {
  for (let j = 0; j < rows.length; j++) {
    const r = rows[j]!;
    let n = 0;
    for (const k in r) {
      const v = r[k];
      if (v === undefined) continue;
      if (!plain(v)) return false;
      n++;
    }
    if (n !== columns.length) return false;
    for (let k = 0; k < columns.length; k++) if (r[columns[k]!] === undefined) return false;
  }
  return true;
}

/** `insertRows` as Kysely writes it (rows of differing columns, values other than plain JSON scalars). */
async function insertWithKysely(db: Executor, table: Table, rows: ReadonlyArray<Row>, conflict?: OnConflict, returning?: string): Promise<{ affected: number; returned: unknown[] }> {
  let affected = 0;
  const returned: unknown[] = [];
  for (const part of parts(rows, ROWS_PER_SQLITE_INSERT)) {
    let q = db.insertInto(table as 'users').values(part as never);
    if (conflict) {
      const cols = conflict.columns as never[];
      const set = conflict.action === 'update' ? (conflict.set ?? Object.keys(part[0]!).filter((c) => !conflict.columns.includes(c))) : [];
      q = set.length === 0 ? q.onConflict((oc) => oc.columns(cols).doNothing()) : q.onConflict((oc) => oc.columns(cols).doUpdateSet((eb) => Object.fromEntries(set.map((c) => [c, eb.ref(`excluded.${c}` as never)])) as never));
    }
    if (returning) {
      const found = (await q.returning(returning as never).execute()) as Row[];
      affected += found.length;
      for (const r of found) returned.push(r[returning]);
    } else {
      const res = await q.executeTakeFirst();
      affected += Number(res.numInsertedOrUpdatedRows ?? 0);
    }
  }
  return { affected, returned };
}

/** Keys per SQLite statement of `selectByKeys` (PostgreSQL: all in one array parameter). */
const KEYS_PER_SQLITE_SELECT = 500;

/**
 * The rows of `table` whose `key` column is one of `keys` and whose `scope` columns hold the given
 * values (a restaurant's `sync_ops` by op id, its change-log rows by op id): one statement whose
 * plan does not depend on the planner's statistics (bench/README.md "Sync push, session 14").
 * Written as `where tenant_id = $1 and op_id in (…)`, PostgreSQL chose, for a table that had no
 * statistics or where the tenant's rows looked few (a new restaurant's first catch-up, autovacuum
 * not yet caught up), to read ALL the tenant's rows through the index on `tenant_id` alone and
 * filter them by key: a push chunk's dedupe read of `sync_ops` scanned 91,000 rows at the end of a
 * week's catch-up (177 ms, growing with every chunk) instead of looking up its 480 ids (10 ms).
 * Here, on PostgreSQL, each key is looked up on its own (`unnest($1) … cross join lateral (…
 * offset 0)`: a nested loop over the keys, each an index lookup on (scope…, key) or (key, scope…)),
 * the keys in one array parameter; elsewhere (SQLite) `where … and key in (…)`, whose plan is that.
 * Keys are distinct text values; the rows come in no particular order.
 */
export async function selectByKeys<R>(db: Executor, table: Table, columns: readonly string[], scope: Readonly<Record<string, string>>, key: string, keys: Iterable<string>): Promise<R[]> {
  const wanted = [...new Set(keys)];
  if (wanted.length === 0) return [];
  const scopeCols = Object.keys(scope);
  if (isPostgres(db)) {
    const cols = columns.map(quote).join(', ');
    const where = [...scopeCols.map((c, i) => `${quote(c)} = $${i + 2}`), `${quote(key)} = u.k`].join(' and ');
    const text = `select t.* from unnest($1::text[]) as u(k) cross join lateral (select ${cols} from ${quote(table)} where ${where} offset 0) as t`;
    const res = await db.executeQuery<R>(CompiledQuery.raw(text, [wanted, ...scopeCols.map((c) => scope[c])]));
    return res.rows;
  }
  const out: R[] = [];
  for (const part of parts(wanted, KEYS_PER_SQLITE_SELECT)) {
    let q = db.selectFrom(table as 'sync_ops').select(columns as never);
    for (const c of scopeCols) q = q.where(c as never, '=', scope[c] as never);
    out.push(...((await q.where(key as never, 'in', part as never).execute()) as R[]));
  }
  return out;
}
