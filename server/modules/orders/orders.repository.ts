import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import { prepared } from '../../db/prepared.js';
import type { OrderItemsTable, OrdersTable, OrderStatusHistoryTable, OrderDiscountsTable } from '../../db/database.js';
import type { OrderSource, OrderStatus } from './orders.schemas.js';

export type OrderRow = OrdersTable;
export type OrderItemRow = OrderItemsTable;
export type HistoryRow = OrderStatusHistoryTable;
export type DiscountRow = OrderDiscountsTable;

export interface OrderFilter {
  statuses?: readonly OrderStatus[];
  source?: OrderSource;
}

/**
 * Active orders of the tenant. The status list is written as literals, exactly like the partial
 * index `orders_active` (migration 0005), so the planner can use that index: with bound parameters
 * it could not prove the index covers the query.
 */
const liveQuery = (db: Executor, tenantId: string) =>
  db
    .selectFrom('orders')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where(sql<boolean>`status in ('new', 'accepted', 'preparing', 'ready', 'delivering')`);

const liveFrom = prepared((db, tenantId: string, from: string, limit: number) =>
  liveQuery(db, tenantId).where('created_at', '>=', from).orderBy('created_at').orderBy('id').limit(limit),
);
const itemsOfQuery = prepared((db, orderIds: string[]) => db.selectFrom('order_items').selectAll().where('order_id', 'in', orderIds).orderBy('order_id').orderBy('position'));
// An order's own writes (every POST /orders), compiled once per shape (the number of lines).
const insertOrder = prepared((db, row: OrderRow) => db.insertInto('orders').values(row));
const insertItemRows = prepared((db, rows: OrderItemRow[]) => db.insertInto('order_items').values(rows));
const insertHistoryRow = prepared((db, row: HistoryRow) => db.insertInto('order_status_history').values(row));
const nextNumberQuery = prepared((db, tenantId: string, prefix: string, day: string) =>
  db
    .insertInto('order_counters')
    .values({ tenant_id: tenantId, prefix, business_day: day, last: 1 })
    .onConflict((oc) => oc.columns(['tenant_id', 'prefix', 'business_day']).doUpdateSet({ last: sql<number>`order_counters.last + 1` }))
    .returning('last'),
);
const discountsOfQuery = prepared((db, orderIds: string[]) => db.selectFrom('order_discounts').selectAll().where('order_id', 'in', orderIds).orderBy('created_at').orderBy('id'));

export const ordersRepository = {
  find: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  findMany: (db: Executor, tenantId: string, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([] as OrderRow[]) : db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).execute(),

  findByIdempotencyKey: (db: Executor, tenantId: string, key: string) =>
    db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).where('idempotency_key', '=', key).executeTakeFirst(),

  list: (db: Executor, tenantId: string, f: OrderFilter, order: 'asc' | 'desc', limit: number, offset: number) => {
    let q = db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId);
    if (f.statuses?.length) q = q.where('status', 'in', f.statuses);
    if (f.source) q = q.where('source', '=', f.source);
    return q.orderBy('created_at', order).orderBy('id', order).limit(limit).offset(offset).execute();
  },

  /** Active orders, oldest first (see liveQuery), from or before an instant. */
  live: (db: Executor, tenantId: string, limit: number, window: { from?: string; before?: string } = {}): Promise<OrderRow[]> => {
    // The kitchen board's read (every tablet, every reconnect): compiled once (db/prepared.ts).
    if (window.from && !window.before) return liveFrom(db, tenantId, window.from, limit);
    let q = liveQuery(db, tenantId);
    // created_at is ISO-8601 UTC text of one width (w.now), so text order is time order.
    if (window.from) q = q.where('created_at', '>=', window.from);
    if (window.before) q = q.where('created_at', '<', window.before);
    return q.orderBy('created_at').orderBy('id').limit(limit).execute();
  },

  count: async (db: Executor, tenantId: string, f: OrderFilter) => {
    let q = db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId);
    if (f.statuses?.length) q = q.where('status', 'in', f.statuses);
    if (f.source) q = q.where('source', '=', f.source);
    return Number((await q.executeTakeFirstOrThrow()).n);
  },

  itemsOf: (db: Executor, orderIds: string[]) => (orderIds.length === 0 ? Promise.resolve([] as OrderItemRow[]) : itemsOfQuery(db, orderIds)),

  historyOf: (db: Executor, tenantId: string, orderId: string) =>
    db.selectFrom('order_status_history').selectAll().where('tenant_id', '=', tenantId).where('order_id', '=', orderId).orderBy('created_at').orderBy('id').execute(),

  /** Fires with the name of who fired (the kitchen board shows it; staff cannot list users). */
  firesOf: (db: Executor, orderIds: string[]) =>
    orderIds.length === 0
      ? Promise.resolve([])
      : db.selectFrom('order_course_fires as f').leftJoin('users as u', 'u.id', 'f.user_id').selectAll('f').select('u.name as user_name').where('f.order_id', 'in', orderIds).orderBy('f.course').execute(),
  voidsOf: (db: Executor, orderIds: string[]) =>
    orderIds.length === 0
      ? Promise.resolve([])
      : db.selectFrom('order_item_voids as v').leftJoin('users as u', 'u.id', 'v.user_id').selectAll('v').select('u.name as user_name').where('v.order_id', 'in', orderIds).orderBy('v.created_at').orderBy('v.id').execute(),
  /** (0025) The discounts of these orders, oldest first. */
  discountsOf: (db: Executor, orderIds: string[]) => (orderIds.length === 0 ? Promise.resolve([] as DiscountRow[]) : discountsOfQuery(db, orderIds)),
  findDiscount: (db: Executor, id: string) => db.selectFrom('order_discounts').selectAll().where('id', '=', id).executeTakeFirst(),
  insertDiscount: (db: Executor, row: DiscountRow) => db.insertInto('order_discounts').values(row).execute(),
  setTable: (db: Executor, tenantId: string, ids: string[], tableId: string, now: string) =>
    db.updateTable('orders').set({ table_id: tableId, updated_at: now }).where('tenant_id', '=', tenantId).where('id', 'in', ids).execute(),
  insert: async (db: Executor, row: OrderRow) => {
    await insertOrder(db, row);
  },
  insertItems: async (db: Executor, rows: OrderItemRow[]) => {
    if (rows.length) await insertItemRows(db, rows);
  },
  insertHistory: async (db: Executor, row: HistoryRow) => {
    await insertHistoryRow(db, row);
  },
  /** These orders paid (one statement for a bill's orders). */
  markPaid: (db: Executor, tenantId: string, ids: string[], now: string) =>
    db.updateTable('orders').set({ payment_status: 'paid', updated_at: now }).where('tenant_id', '=', tenantId).where('id', 'in', ids).execute(),
  update: (db: Executor, tenantId: string, id: string, patch: Partial<OrderRow>) =>
    db.updateTable('orders').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute(),

  /** Next number of (tenant, prefix, day); the upsert holds the counter row's lock until commit. */
  nextNumber: async (db: Executor, tenantId: string, prefix: string, day: string): Promise<number> => {
    const [r] = await nextNumberQuery(db, tenantId, prefix, day);
    return Number(r!.last);
  },
};
