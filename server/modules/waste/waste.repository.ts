import type { Executor } from '../../db/connection.js';
import type { WasteEntriesTable } from '../../db/database.js';

export type WasteRow = WasteEntriesTable;

/** The only Kysely of waste. Periods are business days (the tenant's calendar dates). */
export const wasteRepository = {
  insert: (db: Executor, row: WasteRow) => db.insertInto('waste_entries').values(row).execute(),

  /** A photo's bytes kept in the database (the cloud's store). */
  insertBlob: (db: Executor, row: { id: string; tenant_id: string; content_type: string; bytes: Buffer; created_at: string }) =>
    db.insertInto('upload_blobs').values(row).onConflict((oc) => oc.column('id').doNothing()).execute(),
  findBlob: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('upload_blobs').select(['content_type', 'bytes']).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  /** Sync: the restaurant of the entry with this id, of any restaurant. */
  entryTenant: (db: Executor, id: string) => db.selectFrom('waste_entries').select('tenant_id').where('id', '=', id).executeTakeFirst(),

  /** Sync snapshot: the restaurant's entries by id after `after`, at most `limit`. */
  snapshotPage: (db: Executor, tenantId: string, after: string | null, limit: number) => {
    let q = db.selectFrom('waste_entries').selectAll().where('tenant_id', '=', tenantId);
    if (after !== null) q = q.where('id', '>', after);
    return q.orderBy('id').limit(limit).execute();
  },

  find: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('waste_entries').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  list: (db: Executor, tenantId: string, from: string, to: string, limit: number, offset: number) =>
    db
      .selectFrom('waste_entries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),

  count: async (db: Executor, tenantId: string, from: string, to: string) =>
    Number(
      (
        await db
          .selectFrom('waste_entries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('business_day', '>=', from)
          .where('business_day', '<=', to)
          .executeTakeFirstOrThrow()
      ).n,
    ),

  byReason: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('waste_entries')
      .select((eb) => ['reason', eb.fn.countAll<number>().as('entries'), eb.fn.sum<number>('cost_cents').as('cost_cents')])
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .groupBy('reason')
      .execute(),

  byProduct: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('waste_entries')
      .select((eb) => ['product_id', eb.fn.countAll<number>().as('entries'), eb.fn.sum<number>('quantity').as('quantity'), eb.fn.sum<number>('cost_cents').as('cost_cents')])
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .groupBy('product_id')
      .execute(),

  byDay: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('waste_entries')
      .select((eb) => ['business_day', eb.fn.sum<number>('cost_cents').as('cost_cents')])
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .groupBy('business_day')
      .execute(),
};
