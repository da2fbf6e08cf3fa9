import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openDb, type DbHandle, type Executor } from '../../../server/db/connection.js';
import { selfWaitMarks, SqliteSelfWaitError } from '../../../server/db/sqlite-guard.js';
import { createTestApp } from '../../helpers/app.js';

/**
 * The SQLite self-wait guard (server/db/sqlite-guard.ts, issue 28): a query through the root `db`
 * awaited inside a transaction of the same database used to hang for good on SQLite (PATCH
 * /reservations, till.issueIn); now it throws at once, and legitimate uses are untouched.
 */
function sqliteHandle(): DbHandle {
  const h = openDb({ sqliteFile: ':memory:' });
  onTestFinished(() => h.close());
  return h;
}

async function withTable(h: DbHandle) {
  await sql`create table t (v integer)`.execute(h.db);
  await sql`insert into t (v) values (1), (2)`.execute(h.db);
}

describe('SQLite self-wait guard', () => {
  it('a root-db query inside the same database’s transaction throws at once instead of hanging, and the transaction rolls back', { timeout: 2000 }, async () => {
    const h = sqliteHandle();
    await withTable(h);
    const started = Date.now();
    await expect(
      h.db.transaction().execute(async (trx) => {
        await sql`insert into t (v) values (3)`.execute(trx);
        await sql`select count(*) as n from t`.execute(h.db); // the old hang: the root db, not trx
      }),
    ).rejects.toThrow(SqliteSelfWaitError);
    expect(Date.now() - started).toBeLessThan(500);
    // The error names the situation, and the connection is free again afterwards.
    await expect(h.db.transaction().execute(() => sql`select v from t`.execute(h.db))).rejects.toThrow(/SQLite self-wait: .*root db.*transaction/);
    const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(h.db);
    expect(rows[0]!.n).toBe(2); // the insert of the failed transaction was rolled back
  });

  it('also deep inside: a nested helper, db.connection(), and through another database’s transaction', { timeout: 2000 }, async () => {
    const a = sqliteHandle();
    const b = sqliteHandle();
    await withTable(a);
    await withTable(b);
    const readWithRootDb = async () => {
      await Promise.resolve();
      return (await sql<{ n: number }>`select count(*) as n from t`.execute(a.db)).rows[0]!.n;
    };
    await expect(a.db.transaction().execute(async () => [await readWithRootDb()])).rejects.toThrow(SqliteSelfWaitError);
    await expect(a.db.connection().execute(async () => readWithRootDb())).rejects.toThrow(SqliteSelfWaitError);
    // a's transaction, inside it b's (legitimate), inside that a's root db again: still the self-wait.
    await expect(a.db.transaction().execute(() => b.db.transaction().execute(() => readWithRootDb()))).rejects.toThrow(SqliteSelfWaitError);
  });

  it('leaves legitimate use alone: queries through the transaction, another database inside it, other flows waiting their turn, work after the commit', { timeout: 5000 }, async () => {
    const a = sqliteHandle();
    const b = sqliteHandle();
    await withTable(a);
    await withTable(b);
    const n = async (exec: Executor) => (await sql<{ n: number }>`select count(*) as n from t`.execute(exec)).rows[0]!.n;
    let later: Promise<number> | undefined;
    const inside = await a.db.transaction().execute(async (trx) => {
      await sql`insert into t (v) values (3)`.execute(trx);
      const own = await n(trx);
      const other = await n(b.db); // another database: its own connection
      // Started here but not awaited by the transaction: runs once the transaction has let go.
      later = new Promise((resolve) => setTimeout(() => resolve(n(a.db)), 20));
      return [own, other];
    });
    expect(inside).toEqual([3, 2]);
    expect(await later).toBe(3);
    // Two independent flows at once: the second waits for the first's transaction, as before.
    const slow = a.db.transaction().execute(async (trx) => {
      await new Promise((r) => setTimeout(r, 30));
      await sql`insert into t (v) values (4)`.execute(trx);
    });
    const [, seen] = await Promise.all([slow, n(a.db)]);
    expect(seen).toBe(4);
    // The same flow after its transaction: the root db again.
    expect(await n(a.db)).toBe(4);
    // Many flows at once get the connection one at a time, in the order they asked (session 15: handed over, not raced for).
    const order: number[] = [];
    const holder = a.db.transaction().execute(async () => new Promise((r) => setTimeout(r, 20)));
    await Promise.all([
      holder,
      ...[0, 1, 2, 3, 4].map((i) => a.db.transaction().execute(async (trx) => order.push(i) && n(trx))),
      n(a.db),
    ]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('costs nothing while no transaction holds the connection (session 13): single root statements are not marked, the storage (Node 20: promise hooks for every promise) is on only while a transaction or db.connection() holds it, and off again by the end of that turn of the event loop (session 15)', async () => {
    const a = sqliteHandle();
    const b = sqliteHandle();
    await withTable(a);
    await withTable(b);
    const n = async (exec: Executor) => (await sql<{ n: number }>`select count(*) as n from t`.execute(exec)).rows[0]!.n;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await turn(); // the tests before this one ran transactions
    expect(await Promise.all([n(a.db), n(a.db), n(b.db)])).toEqual([2, 2, 2]);
    expect(selfWaitMarks()).toEqual({ held: 0, storageOn: false });
    const seen = await a.db.transaction().execute(async (trx) => {
      const inside = selfWaitMarks();
      const nested = await b.db.transaction().execute(async () => selfWaitMarks().held);
      return { inside, nested, own: await n(trx), after: selfWaitMarks().held };
    });
    expect(seen).toEqual({ inside: { held: 1, storageOn: true }, nested: 2, own: 2, after: 1 });
    expect(selfWaitMarks().held).toBe(0);
    // A transaction that starts before the turn ends finds the storage still on (no switching per transaction).
    await a.db.transaction().execute(async () => expect(selfWaitMarks()).toEqual({ held: 1, storageOn: true }));
    await turn();
    expect(selfWaitMarks()).toEqual({ held: 0, storageOn: false });
    await a.db.connection().execute(async () => expect(selfWaitMarks().held).toBe(1));
    // A failed transaction lets go too, and the guard still finds the next self-wait after the storage was off.
    await expect(a.db.transaction().execute(async () => n(a.db))).rejects.toThrow(SqliteSelfWaitError);
    await turn();
    expect(selfWaitMarks()).toEqual({ held: 0, storageOn: false });
    await expect(a.db.transaction().execute(async () => [await Promise.resolve(), await n(a.db)])).rejects.toThrow(SqliteSelfWaitError);
    await turn();
    expect(selfWaitMarks()).toEqual({ held: 0, storageOn: false });
  });

  it('a transaction runs its statements straight on the connection (session 15) as Kysely would: in call order, errors as rejections, nothing after the end, plugins too', async () => {
    const h = sqliteHandle();
    await withTable(h);
    let kept: Executor | undefined;
    const out = await h.db.transaction().execute(async (trx) => {
      kept = trx;
      // Started together: they run in the order they were called, each on the transaction's connection.
      const [a, b, c] = await Promise.all([
        sql`insert into t (v) values (3)`.execute(trx),
        sql<{ n: number }>`select count(*) as n from t`.execute(trx),
        trx.selectFrom('t' as never).select(sql<number>`max(v)`.as('m')).execute(),
      ]);
      // A failing statement is a rejected promise, not a throw at the call, and leaves the transaction usable.
      let failed: Promise<unknown> | undefined;
      expect(() => (failed = trx.executeQuery(CompiledQuery.raw('select * from no_such_table')))).not.toThrow();
      await expect(failed).rejects.toThrow(/no such table/);
      // An executor with a plugin (Kysely's own) still runs on the transaction's connection.
      const viaPlugin = await trx.withPlugin({ transformQuery: (a) => a.node, transformResult: async (a) => a.result }).selectFrom('t' as never).select(sql<number>`count(*)`.as('n')).execute();
      return { a: a.rows.length, b: b.rows[0]!.n, c, viaPlugin };
    });
    expect(out).toEqual({ a: 0, b: 3, c: [{ m: 3 }], viaPlugin: [{ n: 3 }] });
    await expect(sql`select 1`.execute(kept!)).rejects.toThrow('Transaction is already committed');
    await expect(
      h.db.transaction().execute(async (trx) => {
        kept = trx;
        await sql`insert into t (v) values (4)`.execute(trx);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(sql`select 1`.execute(kept!)).rejects.toThrow('Transaction is already rolled back');
    expect((await sql<{ n: number }>`select count(*) as n from t`.execute(h.db)).rows[0]!.n).toBe(3);
    // Settings go through Kysely's own builder, guarded as before.
    expect(await h.db.transaction().setIsolationLevel('serializable').execute(async (trx) => (await sql<{ n: number }>`select count(*) as n from t`.execute(trx)).rows[0]!.n)).toBe(3);
    await expect(h.db.transaction().setAccessMode('read write').execute(() => sql`select 1`.execute(h.db))).rejects.toThrow(SqliteSelfWaitError);
  });

  it('the settings-cache pattern of issue 28: cachedSettings inside changes.write after a settings change', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    await t.services.tenants.patchSettings(r.id, { slot_minutes: 15 }); // empties the cache
    const started = Date.now();
    const inWrite = t.changes.write(r.id, async () => (await t.services.tenants.cachedSettings(r.id)).slot_minutes);
    if (t.handle.dialect === 'sqlite') {
      await expect(inWrite).rejects.toThrow(SqliteSelfWaitError);
      expect(Date.now() - started).toBeLessThan(500);
      // The right way: through the transaction.
      expect(await t.changes.write(r.id, async (w) => (await t.services.tenants.cachedSettingsIn(w.trx, r.id)).slot_minutes)).toBe(15);
    } else {
      expect(await inWrite).toBe(15); // PostgreSQL takes another pool connection
    }
  });
});
