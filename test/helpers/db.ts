import { migrateToLatest, openDb, type DbHandle } from '../../server/db/connection.js';
import { acquireSchema } from './pg-schemas.js';

export type Lane = 'sqlite' | 'postgres';
export const lane: Lane = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDb {
  handle: DbHandle;
  /** How to open a second handle on the same database (another "node", or a restart). */
  reopen(): DbHandle;
  drop(): Promise<void>;
}

/**
 * The migrated, empty SQLite database as bytes, made once per test worker (module registry): every
 * fresh in-memory database starts as a copy of it instead of running the migrations again (what
 * createRuntime's migration check then sees is one read). TEST_SQLITE_TEMPLATE=0 turns it off.
 */
let sqliteTemplate: Promise<Buffer> | undefined;
function migratedSqliteImage(): Promise<Buffer> {
  sqliteTemplate ??= (async () => {
    const h = openDb({ sqliteFile: ':memory:' });
    try {
      await migrateToLatest(h.db);
      return h.serialize!();
    } finally {
      await h.close();
    }
  })();
  return sqliteTemplate;
}

/**
 * A fresh database for one test: an in-memory SQLite database, already migrated and without rows (a
 * copy of a migrated template), or the given SQLite file (as it is), or a PostgreSQL schema of its
 * own, already migrated and without rows (`drop()` gives it back).
 */
export async function freshDb(opts: { sqliteFile?: string; poolSize?: number } = {}): Promise<TestDb> {
  if (lane === 'postgres') {
    // Already migrated (a reused, emptied schema when there is one: test/helpers/pg-schemas.ts).
    const open = (schema: string) => openDb({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: opts.poolSize ?? 3 });
    const { schema, handle, release } = await acquireSchema(PG_URL, open);
    return { handle, reopen: () => open(schema), drop: release };
  }
  const file = opts.sqliteFile ?? ':memory:';
  if (!opts.sqliteFile && process.env.TEST_SQLITE_TEMPLATE !== '0') {
    return { handle: openDb({ sqliteImage: await migratedSqliteImage() }), reopen: () => openDb({ sqliteFile: file }), drop: async () => {} };
  }
  return { handle: openDb({ sqliteFile: file }), reopen: () => openDb({ sqliteFile: file }), drop: async () => {} };
}
