import type { Executor } from '../../db/connection.js';

export interface SalesRow {
  product_id: string;
  name: string;
  quantity: number;
  revenue_cents: number;
}

/** The only Kysely of analytics: sales of completed orders per product over business days. */
export const analyticsRepository = {
  salesByProduct: async (db: Executor, tenantId: string, from: string, to: string): Promise<SalesRow[]> => {
    const rows = await db
      .selectFrom('order_items')
      .innerJoin('orders', 'orders.id', 'order_items.order_id')
      .select((eb) => [
        'order_items.product_id',
        eb.fn.max('order_items.name').as('name'),
        eb.fn.sum<number>('order_items.quantity').as('quantity'),
        eb.fn.sum<number>('order_items.total_cents').as('revenue_cents'),
      ])
      .where('orders.tenant_id', '=', tenantId)
      .where('orders.status', '=', 'completed')
      .where('orders.business_day', '>=', from)
      .where('orders.business_day', '<=', to)
      .groupBy('order_items.product_id')
      .execute();
    return rows.map((r) => ({ product_id: r.product_id, name: String(r.name), quantity: Number(r.quantity), revenue_cents: Number(r.revenue_cents) }));
  },

};
