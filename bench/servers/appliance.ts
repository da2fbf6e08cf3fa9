// (c) The real appliance: createRuntime on its own copy of the seeded SQLite file (WAL + synchronous=FULL), listening.
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { openSqlite, type DbHandle } from '../../server/db/connection.js';
import type { Database } from '../../server/db/database.js';
import { createRuntime } from '../../server/runtime.js';
import { serveUntilStopped } from '../lib/child.js';
import { assertDurability, fromTemplateEnv, SEED } from '../lib/seed.js';
import { benchConfig } from '../lib/tmp.js';

const template = fromTemplateEnv();
const { config, cleanup } = benchConfig('appliance', template.dir);
const stmtCache = process.env.BENCH_STMT_CACHE === '1';
const rt = await createRuntime(config, stmtCache ? { handle: cachingHandle(config.sqliteFile) } : {});
await assertDurability(rt);
const s = template.seeded;
const login = await rt.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: s.slug, pin: s.pin } });
const token = login.cookies.find((c) => c.name === 'ck_token');
if (!token) throw new Error(`bench: login failed (${login.statusCode}): ${login.body}`);
await rt.app.listen({ port: 0, host: '127.0.0.1' });
const addr = rt.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
serveUntilStopped(
  { port: addr.port, cookie: `ck_token=${token.value}`, postBody: s.postBody, info: { file: config.sqliteFile, stmtCache, ...SEED } },
  async () => {
    await rt.close();
    cleanup();
  },
);

/**
 * What-if (BENCH_STMT_CACHE=1), not the shipped code: openDb's SQLite handle, but Kysely's
 * `prepare(sql)` answers a cached better-sqlite3 statement per SQL text instead of compiling a new
 * one for every query (Kysely's SqliteDriver has no statement cache). Same file, same pragmas.
 */
function cachingHandle(file: string): DbHandle {
  const conn = openSqlite(file);
  const cache = new Map<string, SqliteDatabase.Statement>();
  const database = {
    prepare(sqlText: string) {
      let st = cache.get(sqlText);
      if (!st) {
        st = conn.prepare(sqlText);
        if (cache.size >= 1000) cache.delete(cache.keys().next().value!);
        cache.set(sqlText, st);
      }
      return st;
    },
    close: () => conn.close(),
  };
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: 'sqlite', ping: async () => true, close: () => db.destroy() };
}
