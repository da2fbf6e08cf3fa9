import { openDb, type DbHandle } from '../../server/db/connection.js';
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
 * A fresh database for one test: an in-memory/temporary SQLite file (empty), or a PostgreSQL schema of
 * its own, already migrated and without rows (`drop()` gives it back).
 */
export async function freshDb(opts: { sqliteFile?: string; poolSize?: number } = {}): Promise<TestDb> {
  if (lane === 'postgres') {
    // Already migrated (a reused, emptied schema when there is one: test/helpers/pg-schemas.ts).
    const open = (schema: string) => openDb({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: opts.poolSize ?? 3 });
    const { schema, handle, release } = await acquireSchema(PG_URL, open);
    return { handle, reopen: () => open(schema), drop: release };
  }
  const file = opts.sqliteFile ?? ':memory:';
  return { handle: openDb({ sqliteFile: file }), reopen: () => openDb({ sqliteFile: file }), drop: async () => {} };
}
