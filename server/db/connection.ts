import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteAdapter, sql, type DatabaseIntrospector, type Transaction } from 'kysely';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';
import { guardedSqliteKysely } from './sqlite-guard.js';
import { classify, TableWatch, type StatementEffect, type TableVersions } from './table-watch.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Repositories take either: the caller owns the transaction. */
export type Executor = Db | Tx;

/**
 * Rows per multi-row INSERT (sync batches, the change log): few statements for a push chunk or a
 * pull page, far below either database's limit on bound parameters (PostgreSQL 65,535; SQLite
 * 32,766) for tables of up to 60 columns.
 */
export const ROWS_PER_INSERT = 500;

let pgModule: typeof import('pg') | undefined;
/**
 * node-postgres, loaded when the first PostgreSQL handle is opened: the appliance (SQLite) never
 * loads it, which shortens its start (issue 29 point 5). Its type parsers are process-wide, so a
 * handle made elsewhere (a bench or test passing its own pool to createRuntime) gets them from
 * createRuntime calling this too: without them int8 and numeric come back as strings.
 */
export function pgLib(): typeof import('pg') {
  if (!pgModule) {
    pgModule = createRequire(import.meta.url)('pg') as typeof import('pg');
    // bigint (int8) and numeric come back from pg as strings; every value we store fits a JS number.
    pgModule.types.setTypeParser(20, (v) => Number(v));
    pgModule.types.setTypeParser(1700, (v) => Number(v));
  }
  return pgModule;
}

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  /** The PostgreSQL schema this handle is pinned to, if any. */
  pgSchema?: string;
  /** PostgreSQL: how this handle was opened, so another thread can open its own pool on the same database and schema. */
  connection?: OpenDbOptions;
  /**
   * SQLite only: which tables may have changed (every statement of this handle is seen; another
   * process's commits through `data_version`), for the per-tenant read caches (db/read-cache.ts).
   * Undefined on PostgreSQL: those caches read through.
   */
  tables?: TableVersions;
  /** A cheap round trip, for /health. */
  ping(): Promise<boolean>;
  /** SQLite only: the whole database as bytes (better-sqlite3 `serialize()`), for `OpenDbOptions.sqliteImage`. */
  serialize?(): Buffer;
  /** SQLite only: a consistent online copy of the database into `destFile` (server/backup.ts). */
  backup?(destFile: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDbOptions {
  databaseUrl?: string;
  sqliteFile?: string;
  /**
   * SQLite: open this serialized database (a `serialize()` of a handle) in memory instead of a file;
   * tests open a migrated template this way instead of migrating every fresh database.
   */
  sqliteImage?: Buffer;
  /** PostgreSQL schema to use (tests give each app its own). */
  pgSchema?: string;
  pgPoolSize?: number;
}

export function openSqlite(file: string): SqliteDatabase.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const conn = new SqliteDatabase(file);
  if (file !== ':memory:') conn.pragma('journal_mode = WAL');
  // FULL: in WAL mode NORMAL can lose the last commits on power loss (ARCHITECTURE §3).
  conn.pragma('synchronous = FULL');
  conn.pragma('foreign_keys = ON');
  conn.pragma('busy_timeout = 5000');
  // A file's page cache: 4 MiB (better-sqlite3 builds SQLite with 16 MiB). A snapshot join or a
  // catch-up fills the whole cache and that memory stays with the process (the joining appliance
  // peaked at 197–200 MiB, with 2–4 MiB at 180–185 and the same CPU: bench/README.md "Session 16,
  // mem"); pages beyond it come from the OS's file cache. Not for ':memory:' (its pages are the database).
  if (file !== ':memory:') conn.pragma('cache_size = -4096');
  return conn;
}

/** An in-memory database from `serialize()`'s bytes, with the pragmas of openSqlite. */
function openSqliteImage(image: Buffer): SqliteDatabase.Database {
  const conn = new SqliteDatabase(image);
  conn.pragma('synchronous = FULL');
  conn.pragma('foreign_keys = ON');
  conn.pragma('busy_timeout = 5000');
  return conn;
}

/**
 * Kysely's SQLite driver prepares every query anew; an order runs a dozen statements, so reusing
 * prepared statements by SQL text saves real time per request (bench/README.md). better-sqlite3
 * statements run synchronously on the one connection, so sharing one between queries is safe.
 * Bounded: the least recently added statement goes first. Every statement's effect (which table it
 * writes, a transaction's begin and end) is shown to `watch` just before it runs (db/table-watch.ts).
 */
function withStatementCache(conn: SqliteDatabase.Database, watch: TableWatch, max = 500) {
  const cache = new Map<string, { st: SqliteDatabase.Statement; effect: StatementEffect }>();
  return {
    prepare(sqlText: string) {
      let e = cache.get(sqlText);
      if (!e) {
        e = { st: conn.prepare(sqlText), effect: classify(sqlText) };
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sqlText, e);
      }
      watch.seen(e.effect);
      return e.st;
    },
    close: () => {
      cache.clear();
      conn.close();
    },
  };
}

export function openDb(opts: OpenDbOptions): DbHandle {
  if (opts.databaseUrl) {
    const pool = new (pgLib().Pool)({
      connectionString: opts.databaseUrl,
      max: opts.pgPoolSize ?? 10,
      ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      pgSchema: opts.pgSchema,
      connection: { databaseUrl: opts.databaseUrl, pgSchema: opts.pgSchema },
      ping: async () => {
        try {
          await sql`select 1`.execute(db);
          return true;
        } catch {
          return false;
        }
      },
      close: () => db.destroy(),
    };
  }
  const file = opts.sqliteFile ?? ':memory:';
  const conn = opts.sqliteImage ? openSqliteImage(opts.sqliteImage) : openSqlite(file);
  const dataVersion = conn.prepare('pragma data_version').pluck();
  const tables = new TableWatch(() => dataVersion.get() as number, () => conn.inTransaction);
  // One connection: a query that would wait for its own transaction throws instead of hanging (sqlite-guard.ts).
  const db = guardedSqliteKysely<Database>({ database: withStatementCache(conn, tables) });
  return {
    db,
    dialect: 'sqlite',
    tables,
    // better-sqlite3's online backup API: pages copied in steps while writers go on; the copy is
    // the database as of one moment (SQLite restarts a step when a write changes copied pages).
    serialize: () => conn.serialize(),
    backup: async (destFile: string) => {
      await conn.backup(destFile);
    },
    ping: async () => {
      try {
        conn.prepare('select 1').get();
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.destroy(),
  };
}

/**
 * The database as the migrator sees it, with its introspection limited to one PostgreSQL schema.
 * Kysely's own introspector lists the tables of every schema on the server and calls
 * has_schema_privilege(name) on each, which fails (3F000) when another schema is dropped at that
 * moment: with a schema per test database, parallel test files broke each other's start-up.
 * The migrator only asks whether its own tables exist, so names are all this one needs to answer.
 */
function schemaScoped(db: Db, schema: string): Db {
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables: async () => {
      const { rows } = await sql<{ name: string; type: string }>`
        select table_name as name, table_type as type from information_schema.tables where table_schema = ${schema}`.execute(db);
      return rows.map((r) => ({ name: r.name, schema, isView: r.type === 'VIEW', columns: [] }));
    },
    getMetadata: async () => ({ tables: await introspection.getTables() }),
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Whether the database has exactly this build's migrations applied (false when it cannot tell). */
async function allApplied(db: Db, schema: string | undefined): Promise<boolean> {
  try {
    const table = schema ? sql`${sql.id(schema, 'kysely_migration')}` : sql`kysely_migration`;
    const rows = (await sql<{ name: string }>`select name from ${table}`.execute(db)).rows;
    const known = Object.keys(migrations);
    return rows.length === known.length && rows.every((r) => Object.hasOwn(migrations, r.name));
  } catch {
    return false;
  }
}

export async function migrateToLatest(db: Db, opts: { pgSchema?: string } = {}): Promise<void> {
  // On PostgreSQL always name the schema (from the handle, or the connection's search_path as in
  // `?options=-c search_path=...`): otherwise Kysely finds another schema's migration table.
  let schema = opts.pgSchema;
  if (!schema && !(db.getExecutor().adapter instanceof SqliteAdapter)) {
    schema = (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s;
  }
  // A migrated database (every start but the first): one read of the applied names instead of the
  // migrator's table and lock set-up (issue 29 point 5). Anything else (no table yet, a migration
  // missing, one this build does not know) goes through the migrator, which says what is wrong.
  if (await allApplied(db, schema)) return;
  const migrator = new Migrator({
    db: schema ? schemaScoped(db, schema) : db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration failed${failed ? ` at ${failed.migrationName}` : ''}`, { cause: error });
  }
}
