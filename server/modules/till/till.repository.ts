import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { OrderPaymentsTable, ReceiptsTable } from '../../db/database.js';

export type OrderPaymentRow = OrderPaymentsTable;
export type ReceiptRow = ReceiptsTable;

/** The till's queries (issue 25): payments on orders without a table, receipts. */
export const tillRepository = {
  orderPayments: (db: Executor, tenantId: string, orderId: string) =>
    db.selectFrom('order_payments').selectAll().where('tenant_id', '=', tenantId).where('order_id', '=', orderId).orderBy('created_at').orderBy('id').execute(),
  insertOrderPayment: (db: Executor, row: OrderPaymentRow) => db.insertInto('order_payments').values(row).execute(),
  findOrderPayment: (db: Executor, id: string) => db.selectFrom('order_payments').selectAll().where('id', '=', id).executeTakeFirst(),

  receiptOfBill: (db: Executor, tenantId: string, billId: string) =>
    db.selectFrom('receipts').selectAll().where('tenant_id', '=', tenantId).where('bill_id', '=', billId).executeTakeFirst(),
  receiptOfOrder: (db: Executor, tenantId: string, orderId: string) =>
    db.selectFrom('receipts').selectAll().where('tenant_id', '=', tenantId).where('order_id', '=', orderId).executeTakeFirst(),
  /** The last number of a series; read under the restaurant's write lock (changes.write), so max + 1 is gapless. */
  lastSeq: async (db: Executor, tenantId: string, series: string): Promise<number> => {
    const r = await db
      .selectFrom('receipts')
      .select(sql<number | null>`max(seq)`.as('last'))
      .where('tenant_id', '=', tenantId)
      .where('series', '=', series)
      .executeTakeFirst();
    return Number(r?.last ?? 0);
  },
  insertReceipt: (db: Executor, row: ReceiptRow) => db.insertInto('receipts').values(row).execute(),
};
