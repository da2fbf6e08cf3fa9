import pg from 'pg';
import { openDb, type DbHandle } from '../../server/db/connection.js';
import { newId } from '../../server/shared/ids.js';

export type Lane = 'sqlite' | 'postgres';
export const lane: Lane = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDb {
  handle: DbHandle;
  /** How to open a second handle on the same database (another "node", or a restart). */
  reopen(): DbHandle;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test: an in-memory/temporary SQLite file, or a new PostgreSQL schema. */
export async function freshDb(opts: { sqliteFile?: string; poolSize?: number } = {}): Promise<TestDb> {
  if (lane === 'postgres') {
    const schema = `t_${newId().replace(/-/g, '').slice(-20)}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const open = () => openDb({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: opts.poolSize ?? 3 });
    return {
      handle: open(),
      reopen: open,
      drop: async () => {
        const c = new pg.Client({ connectionString: PG_URL });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      },
    };
  }
  const file = opts.sqliteFile ?? ':memory:';
  return { handle: openDb({ sqliteFile: file }), reopen: () => openDb({ sqliteFile: file }), drop: async () => {} };
}
