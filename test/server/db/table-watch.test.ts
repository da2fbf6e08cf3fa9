import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openDb } from '../../../server/db/connection.js';
import { classify, TableWatch } from '../../../server/db/table-watch.js';
import { createTestApp } from '../../helpers/app.js';
import { lane } from '../../helpers/db.js';

describe('which tables may have changed (server/db/table-watch.ts)', () => {
  it('places what Kysely and our raw statements send; what it cannot place moves every table on', () => {
    expect(classify('select * from "products" where "tenant_id" = ?')).toEqual({ kind: 'read' });
    expect(classify('insert into "products" ("id") values (?)')).toEqual({ kind: 'write', table: 'products' });
    expect(classify('insert or ignore into products (id) values (?)')).toEqual({ kind: 'write', table: 'products' });
    expect(classify('update "printers" set "stations" = ? where "id" = ?')).toEqual({ kind: 'write', table: 'printers' });
    expect(classify('delete from "recipes" where "id" = ?')).toEqual({ kind: 'write', table: 'recipes' });
    expect(classify('  UPDATE categories SET vat_rate = 21')).toEqual({ kind: 'write', table: 'categories' });
    expect(classify('begin')).toEqual({ kind: 'begin' });
    expect(classify('commit')).toEqual({ kind: 'end', keepsTransaction: false });
    expect(classify('rollback')).toEqual({ kind: 'end', keepsTransaction: false });
    expect(classify('rollback to "sp1"')).toEqual({ kind: 'end', keepsTransaction: true });
    expect(classify('with "x" as (select 1) select * from "x"')).toEqual({ kind: 'read' });
    expect(classify('with "x" as (select 1) update "products" set "name" = ?')).toEqual({ kind: 'unknown' });
    expect(classify('alter table "products" add column "x" text')).toEqual({ kind: 'unknown' });
    expect(classify('pragma synchronous = OFF')).toEqual({ kind: 'unknown' });
  });

  it('data_version is read once per transaction (its snapshot is fixed), on every stamp outside one, and again after SQLite ended a transaction by itself', () => {
    let reads = 0;
    let version = 1;
    let open = false;
    const watch = new TableWatch(
      () => {
        reads++;
        return version;
      },
      () => open,
    );
    watch.stamp(['products']);
    watch.stamp(['products']);
    expect(reads).toBe(2);
    open = true;
    watch.seen(classify('begin'));
    const first = watch.stamp(['products']);
    version = 2; // cannot happen inside one transaction; shows the read is not repeated
    expect(watch.stamp(['products'])).toBe(first);
    expect(watch.stamp(['printers'])).toBe(first);
    expect(reads).toBe(3);
    watch.seen(classify('commit'));
    open = false;
    const after = watch.stamp(['products']);
    expect(reads).toBe(4);
    expect(after).not.toBe(first);
    // A new transaction reads it again; one SQLite ended by itself (no commit seen) is not trusted either.
    open = true;
    watch.seen(classify('begin'));
    watch.stamp(['products']);
    expect(reads).toBe(5);
    open = false;
    version = 3;
    const ended = watch.stamp(['products']);
    expect(reads).toBe(6);
    expect(ended).not.toBe(after);
    // Without a way to ask SQLite: every stamp reads.
    const plain = new TableWatch(() => {
      reads++;
      return version;
    });
    plain.seen(classify('begin'));
    plain.stamp(['products']);
    plain.stamp(['products']);
    expect(reads).toBe(8);
  });

  it(`a write moves the stamp of its table only; inside a transaction the table cannot be cached until it ends; another connection's commit moves every stamp (${lane})`, async () => {
    if (lane === 'postgres') {
      // Other connections and nodes write on PostgreSQL: no watch, the caches read through.
      const t = await createTestApp();
      expect(t.handle.tables).toBeUndefined();
      return;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'table-watch-'));
    const file = path.join(dir, 'db.sqlite');
    const a = openDb({ sqliteFile: file });
    const b = openDb({ sqliteFile: file });
    onTestFinished(async () => {
      await a.close();
      await b.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    await sql`create table products (id text primary key, price_cents integer)`.execute(a.db);
    await sql`create table printers (id text primary key)`.execute(a.db);
    const watch = a.tables!;
    const s0 = watch.stamp(['products']);
    const p0 = watch.stamp(['printers']);
    expect(s0).not.toBeNull();
    await a.db.insertInto('products' as never).values({ id: 'p1', price_cents: 1 } as never).execute();
    const s1 = watch.stamp(['products']);
    expect(s1).not.toBe(s0);
    expect(watch.stamp(['printers'])).toBe(p0);
    await a.db.selectFrom('products' as never).selectAll().execute();
    expect(watch.stamp(['products'])).toBe(s1);

    let inside: number | null = 0;
    await a.db.transaction().execute(async (trx) => {
      await sql`update products set price_cents = 2`.execute(trx);
      inside = watch.stamp(['products']);
      expect(watch.stamp(['printers'])).toBe(p0);
    });
    expect(inside).toBeNull();
    const s2 = watch.stamp(['products']);
    expect(s2).not.toBeNull();
    expect(s2).not.toBe(s1);

    // Another connection (the CLI on the same file): SQLite's data_version.
    await sql`update products set price_cents = 3`.execute(b.db);
    const s3 = watch.stamp(['products']);
    expect(s3).not.toBe(s2);
    expect(watch.stamp(['printers'])).not.toBe(p0);
    expect(watch.stamp(['products'])).toBe(s3);

    // Inside a transaction that has read, another connection's commit is not in its snapshot: the
    // stamp stays (and the cache entry read in it is of that snapshot); the next read outside sees it.
    await a.db.transaction().execute(async (trx) => {
      expect((await sql<{ p: number }>`select price_cents as p from products`.execute(trx)).rows[0]!.p).toBe(3);
      const inTx = watch.stamp(['products']);
      expect(inTx).toBe(s3);
      await sql`update products set price_cents = 4`.execute(b.db);
      expect(watch.stamp(['products'])).toBe(inTx);
      expect((await sql<{ p: number }>`select price_cents as p from products`.execute(trx)).rows[0]!.p).toBe(3);
    });
    const s4 = watch.stamp(['products']);
    expect(s4).not.toBe(s3);
    expect((await sql<{ p: number }>`select price_cents as p from products`.execute(a.db)).rows[0]!.p).toBe(4);
  });
});
