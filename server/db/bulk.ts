import { PostgresAdapter, sql } from 'kysely';
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
