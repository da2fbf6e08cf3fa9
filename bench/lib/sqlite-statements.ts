import SqliteDatabase from 'better-sqlite3';

/** A better-sqlite3 statement as the wrappers see it (`source` is its SQL text). */
export interface SqliteStatement {
  readonly source: string;
}
type Method = (this: SqliteStatement, ...args: unknown[]) => unknown;

const METHODS = ['run', 'get', 'all', 'iterate'] as const;
const sources = new WeakMap<object, string>();

/**
 * A statement's SQL text. better-sqlite3 copies `source` out of the native statement on every read,
 * so it is asked once per prepared statement.
 */
export function sourceOf(stmt: SqliteStatement): string {
  let text = sources.get(stmt);
  if (text === undefined) sources.set(stmt, (text = stmt.source));
  return text;
}

/**
 * Wraps every statement execution of every better-sqlite3 connection in this process (the
 * Statement methods run/get/all/iterate, which Kysely's driver calls once per query): the benches'
 * one way of counting and timing SQLite statements. `wrap` gets the statement, the original call
 * and its arguments and returns what the call returns. Installed once per `marker` per process
 * (a second call with the same marker does nothing); wrappers of different markers nest.
 */
export function wrapStatements(marker: string, wrap: (stmt: SqliteStatement, call: () => unknown) => unknown): void {
  const probe = new SqliteDatabase(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, Method> & Record<symbol, boolean>;
  probe.close();
  const key = Symbol.for(`bench.sqlite.${marker}`);
  if (proto[key]) return;
  proto[key] = true;
  for (const name of METHODS) {
    const original = proto[name]!;
    proto[name] = function (this: SqliteStatement, ...args: unknown[]) {
      return wrap(this, () => original.apply(this, args));
    };
  }
}
