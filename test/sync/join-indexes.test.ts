import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { migrateToLatest, openDb, type Db } from '../../server/db/connection.js';
import { getMeta } from '../../server/db/meta.js';
import { dropJoinIndexes, JOIN_INDEX_TABLES, JOIN_INDEXES_KEY, restoreJoinIndexes } from '../../sync/join-indexes.js';
import { orderBody, seedMenu } from '../helpers/factories.js';
import { createAppliance, createCloud, FakeTransport, replicatedState } from './harness.js';

/**
 * Issue 29 point 3, session 17: a snapshot join drops the big tables' non-unique indexes at its first
 * page and builds them at its last (sync/join-indexes.ts); a crash between the pages never leaves the
 * appliance without them: every start creates again what the join recorded.
 */

type IndexRow = { name: string; tbl_name: string; sql: string };
const indexes = async (db: Db): Promise<IndexRow[]> =>
  (await sql<IndexRow>`select name, tbl_name, sql from sqlite_master where type = 'index' and sql is not null order by name`.execute(db)).rows;

/** The indexes of a database made by the migrations alone: what an appliance must have after a join. */
async function migratedIndexes(): Promise<IndexRow[]> {
  const h = openDb({ sqliteFile: ':memory:' });
  try {
    await migrateToLatest(h.db);
    return await indexes(h.db);
  } finally {
    await h.close();
  }
}

function tmpFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'join-indexes-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'restaurant.sqlite');
}

/** A cloud tenant with orders (orders, items, status history), a device, and an appliance on a file asking for small snapshot pages. */
async function joiningOnFile(file: string, snapshotLimit = 3) {
  const cloud = await createCloud();
  const tenant = await cloud.seedTenant();
  const menu = await seedMenu(cloud, tenant.id);
  const web = { tenantId: tenant.id, userId: null, via: 'web' as const };
  for (let i = 0; i < 6; i++) await cloud.services.orders.create(web, orderBody(menu));
  const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Nieuwe kassa');
  const transport = new FakeTransport(() => cloud, sync_key);
  // Pages of 3 rows: the join takes several pages, so a crash can fall between them.
  const open = () => createAppliance(transport, { handle: openDb({ sqliteFile: file }), snapshotLimit, autoClose: false });
  return { cloud, tenant, transport, open };
}

describe('a snapshot join’s indexes', () => {
  it('are dropped from the first page to the last (unique ones kept, the drop and its record committed together) and are all there, as migrated, after the join', async () => {
    const file = tmpFile();
    const { cloud, tenant, transport, open } = await joiningOnFile(file);
    const appliance = await open();
    onTestFinished(() => appliance.close());
    // What another connection sees committed when each page reaches its cursor (WAL: the pages before it).
    const reader = new SqliteDatabase(file, { readonly: true });
    onTestFinished(() => {
      reader.close();
    });
    const committed: Array<{ names: string[]; recorded: string | undefined }> = [];
    appliance.setFailpoint((name) => {
      if (name !== 'pull.after_apply_before_cursor') return;
      committed.push({
        names: (reader.prepare(`select name from sqlite_master where type = 'index' and sql is not null`).all() as Array<{ name: string }>).map((r) => r.name),
        recorded: (reader.prepare(`select value from meta where key = ?`).get(JOIN_INDEXES_KEY) as { value: string } | undefined)?.value,
      });
    });
    await appliance.engine.syncOnce();
    const pages = transport.calls.filter((c) => c.path === '/api/v1/sync/snapshot').length;
    expect(pages).toBeGreaterThan(2);
    const migrated = await migratedIndexes();
    const dropped = migrated.filter((r) => JOIN_INDEX_TABLES.includes(r.tbl_name) && !/^create unique/i.test(r.sql) && r.name !== 'stock_movements_pair');
    expect(dropped.map((r) => r.name)).toEqual(expect.arrayContaining(['order_items_order', 'order_status_history_order', 'orders_status', 'stock_movements_created']));
    const unique = migrated.filter((r) => /^create unique/i.test(r.sql)).map((r) => r.name);
    // Before the first page committed: everything in place, nothing recorded.
    expect(committed[0]!.names.sort()).toEqual(migrated.map((r) => r.name).sort());
    expect(committed[0]!.recorded).toBeUndefined();
    // After the first page and until the last one commits: the non-unique ones missing and recorded; unique ones and other tables' in place.
    for (const page of committed.slice(1, pages)) {
      for (const d of dropped) expect(page.names).not.toContain(d.name);
      expect(page.names).toEqual(expect.arrayContaining([...unique, 'stock_movements_pair', 'bills_table', 'change_log_entity']));
      expect(JSON.parse(page.recorded!)).toEqual(dropped.map((d) => ({ name: d.name, sql: d.sql })).sort((a, b) => a.name.localeCompare(b.name)));
    }
    // The last page's transaction built them again and forgot the record.
    expect(await indexes(appliance.handle.db)).toEqual(migrated);
    expect(await getMeta(appliance.handle.db, JOIN_INDEXES_KEY)).toBeUndefined();
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('come back at the next start after a crash between pages; the join then goes on and ends like one without a crash', async () => {
    const file = tmpFile();
    const { cloud, tenant, open } = await joiningOnFile(file);
    const first = await open();
    let pages = 0;
    first.setFailpoint((name) => {
      // The second page's transaction dies before its cursor (a crash): the first page, and its dropped indexes, are committed.
      if (name === 'pull.after_apply_before_cursor' && ++pages === 2) throw new Error('crash');
    });
    await expect(first.engine.syncOnce()).rejects.toThrow('crash');
    const state = await first.engine.readState();
    expect(state?.snapshot_cursor).not.toBe('');
    expect(state?.snapshot_cursor).not.toBeNull();
    const migrated = await migratedIndexes();
    expect((await indexes(first.handle.db)).map((r) => r.name)).not.toContain('order_items_order');
    expect(await getMeta(first.handle.db, JOIN_INDEXES_KEY)).toBeDefined();
    await first.close();

    // The restart: createRuntime creates the recorded indexes before anything else.
    const second = await open();
    onTestFinished(() => second.close());
    expect(await indexes(second.handle.db)).toEqual(migrated);
    expect(await getMeta(second.handle.db, JOIN_INDEXES_KEY)).toBeUndefined();
    // The join goes on from its cursor (its indexes in place: no second drop mid-join) and converges.
    await second.engine.syncOnce();
    expect((await second.engine.readState())?.snapshot_cursor).toBeNull();
    expect(await indexes(second.handle.db)).toEqual(migrated);
    expect(await replicatedState(second, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a crash in the first page’s transaction drops nothing; a restore with nothing recorded, or with indexes already there, changes nothing', async () => {
    const file = tmpFile();
    const { open } = await joiningOnFile(file);
    const first = await open();
    first.setFailpoint((name) => {
      if (name === 'pull.after_apply_before_cursor') throw new Error('crash');
    });
    await expect(first.engine.syncOnce()).rejects.toThrow('crash');
    const migrated = await migratedIndexes();
    expect(await indexes(first.handle.db)).toEqual(migrated);
    expect(await getMeta(first.handle.db, JOIN_INDEXES_KEY)).toBeUndefined();
    expect(await restoreJoinIndexes(first.handle.db)).toEqual([]);
    // Dropped by hand (a second call finds nothing left to drop), one created again before the restore: the restore creates only the missing ones.
    const dropped = await first.handle.db.transaction().execute((trx) => dropJoinIndexes(trx));
    expect(dropped).toContain('order_items_order');
    expect(await first.handle.db.transaction().execute((trx) => dropJoinIndexes(trx))).toEqual([]);
    await sql.raw(migrated.find((r) => r.name === 'order_items_order')!.sql).execute(first.handle.db);
    expect((await restoreJoinIndexes(first.handle.db)).sort()).toEqual(dropped.filter((n) => n !== 'order_items_order').sort());
    expect(await indexes(first.handle.db)).toEqual(migrated);
    expect(await getMeta(first.handle.db, JOIN_INDEXES_KEY)).toBeUndefined();
    await first.close();
  });

  it('a snapshot of one page keeps them (no schema change at all)', async () => {
    const file = tmpFile();
    const { cloud, tenant, transport, open } = await joiningOnFile(file, 1000);
    const appliance = await open();
    onTestFinished(() => appliance.close());
    const schemaVersion = async () => Number((await sql<{ schema_version: number }>`pragma schema_version`.execute(appliance.handle.db)).rows[0]!.schema_version);
    const before = await schemaVersion();
    await appliance.engine.syncOnce();
    expect(transport.calls.filter((c) => c.path === '/api/v1/sync/snapshot')).toHaveLength(1);
    expect(await schemaVersion()).toBe(before);
    expect(await indexes(appliance.handle.db)).toEqual(await migratedIndexes());
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('does nothing on PostgreSQL (the cloud) and on a database without a meta table yet', async () => {
    const cloud = await createCloud();
    if (cloud.handle.dialect === 'postgres') {
      expect(await cloud.handle.db.transaction().execute((trx) => dropJoinIndexes(trx))).toEqual([]);
      expect(await restoreJoinIndexes(cloud.handle.db)).toEqual([]);
    }
    const h = openDb({ sqliteFile: ':memory:' });
    onTestFinished(() => h.close());
    expect(await restoreJoinIndexes(h.db)).toEqual([]);
  });
});
