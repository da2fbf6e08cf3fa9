import type { Executor } from '../../db/connection.js';
import type { PublicOrdersTable } from '../../db/database.js';

export type PublicOrderRow = PublicOrdersTable;

export const publicRepository = {
  find: (db: Executor, tenantId: string, orderId: string) =>
    db.selectFrom('public_orders').selectAll().where('tenant_id', '=', tenantId).where('id', '=', orderId).executeTakeFirst(),

  /** Insert once per order; a repeat (retried request) changes nothing. True when this call inserted. */
  insertIfAbsent: async (db: Executor, row: PublicOrderRow): Promise<boolean> => {
    const r = await db.insertInto('public_orders').values(row).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  /** Public orders accepted at or after `since` (newest first): the ones an appliance silent since then has not seen. */
  since: (db: Executor, tenantId: string, since: string, limit: number) =>
    db.selectFrom('public_orders').selectAll().where('tenant_id', '=', tenantId).where('created_at', '>=', since).orderBy('created_at', 'desc').limit(limit).execute(),
};
