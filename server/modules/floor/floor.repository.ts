import { sql } from 'kysely';
import { ROWS_PER_INSERT, type Executor } from '../../db/connection.js';
import type { BillPaymentsTable, BillRoundsTable, BillsTable, FloorTablesTable, FloorTableStatusTable, FloorZonesTable, OrderStatus } from '../../db/database.js';

export type ZoneRow = FloorZonesTable;
export type TableRow = FloorTablesTable;
export type BillRow = BillsTable;
export type RoundRow = BillRoundsTable;
export type PaymentRow = BillPaymentsTable;
export type StatusRow = FloorTableStatusTable;

/** What a bill needs to know of an order: a read-only projection of the orders table (docs/floor.md, "Bills"). */
export interface OrderFigures {
  id: string;
  status: OrderStatus;
  payment_status: 'open' | 'paid';
  total_cents: number;
}

export const floorRepository = {
  // ── zones ──
  listZones: (db: Executor, tenantId: string, includeArchived: boolean) => {
    let q = db.selectFrom('floor_zones').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('position').orderBy('name').orderBy('id').execute();
  },
  findZone: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('floor_zones').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  insertZone: (db: Executor, row: ZoneRow) => db.insertInto('floor_zones').values(row).execute(),
  updateZone: (db: Executor, row: ZoneRow) => db.updateTable('floor_zones').set(row).where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute(),

  // ── tables ──
  listTables: (db: Executor, tenantId: string, includeArchived = false) => {
    let q = db.selectFrom('floor_tables').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('name').orderBy('id').execute();
  },
  findTable: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('floor_tables').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  findTables: (db: Executor, tenantId: string, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([] as TableRow[]) : db.selectFrom('floor_tables').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).execute(),
  /** The live table with this name, compared without case (a guest types "t5" for "T5"). */
  findTableByName: (db: Executor, tenantId: string, name: string) =>
    db
      .selectFrom('floor_tables')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('archived_at', 'is', null)
      .where(sql<string>`lower(name)`, '=', name.trim().toLowerCase())
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst(),
  countLiveTablesInZone: async (db: Executor, tenantId: string, zoneId: string) =>
    Number(
      (
        await db
          .selectFrom('floor_tables')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('zone_id', '=', zoneId)
          .where('archived_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).n,
    ),
  /** The live table whose pay-at-table code this is (codes are lower case; a guest may type capitals). */
  findTableByCode: (db: Executor, tenantId: string, code: string) =>
    db
      .selectFrom('floor_tables')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('archived_at', 'is', null)
      .where('public_code', '=', code.trim().toLowerCase())
      .executeTakeFirst(),
  insertTable: (db: Executor, row: TableRow) => db.insertInto('floor_tables').values(row).execute(),
  updateTable: (db: Executor, row: TableRow) => db.updateTable('floor_tables').set(row).where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute(),
  /** Tenants that have a live table (the status job's work list). */
  tenantsWithTables: async (db: Executor) =>
    (await db.selectFrom('floor_tables').select('tenant_id').where('archived_at', 'is', null).distinct().execute()).map((r) => r.tenant_id),

  // ── announced status (local-only) ──
  announced: (db: Executor, tenantId: string) => db.selectFrom('floor_table_status').selectAll().where('tenant_id', '=', tenantId).execute(),
  announcedOf: (db: Executor, tenantId: string, tableIds: string[]) =>
    tableIds.length === 0 ? Promise.resolve([] as StatusRow[]) : db.selectFrom('floor_table_status').selectAll().where('tenant_id', '=', tenantId).where('table_id', 'in', tableIds).execute(),
  announce: (db: Executor, row: StatusRow) =>
    db
      .insertInto('floor_table_status')
      .values(row)
      .onConflict((oc) => oc.column('table_id').doUpdateSet({ status: row.status, updated_at: row.updated_at }))
      .execute(),

  // ── orders on tables (read-only projection of the orders table) ──
  /** Tables with an active order (new … delivering): they are `bezet` whatever their bill says (CONTRACT §10). */
  tablesWithActiveOrders: async (db: Executor, tenantId: string) =>
    new Set(
      (
        await db
          .selectFrom('orders')
          .select('table_id')
          .where('tenant_id', '=', tenantId)
          .where(sql<boolean>`status in ('new', 'accepted', 'preparing', 'ready', 'delivering')`)
          .where('table_id', 'is not', null)
          .distinct()
          .execute()
      ).map((r) => r.table_id!),
    ),
  orderFigures: (db: Executor, tenantId: string, ids: string[]): Promise<OrderFigures[]> =>
    ids.length === 0
      ? Promise.resolve([])
      : db.selectFrom('orders').select(['id', 'status', 'payment_status', 'total_cents']).where('tenant_id', '=', tenantId).where('id', 'in', ids).execute(),

  // ── bills ──
  findBill: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('bills').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  findOpenBill: (db: Executor, tenantId: string, tableId: string) =>
    db.selectFrom('bills').selectAll().where('tenant_id', '=', tenantId).where('table_id', '=', tableId).where('status', '=', 'open').executeTakeFirst(),
  openBills: (db: Executor, tenantId: string) => db.selectFrom('bills').selectAll().where('tenant_id', '=', tenantId).where('status', '=', 'open').execute(),
  billsMergedInto: (db: Executor, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([] as BillRow[]) : db.selectFrom('bills').selectAll().where('merged_into', 'in', ids).execute(),
  insertBill: (db: Executor, row: BillRow) => db.insertInto('bills').values(row).execute(),
  updateBill: (db: Executor, row: BillRow) => db.updateTable('bills').set(row).where('id', '=', row.id).execute(),
  roundsOf: (db: Executor, billIds: string[]) =>
    billIds.length === 0 ? Promise.resolve([] as RoundRow[]) : db.selectFrom('bill_rounds').selectAll().where('bill_id', 'in', billIds).orderBy('created_at').orderBy('order_id').execute(),
  roundOfOrder: (db: Executor, tenantId: string, orderId: string) =>
    db.selectFrom('bill_rounds').selectAll().where('tenant_id', '=', tenantId).where('order_id', '=', orderId).executeTakeFirst(),
  paymentsOf: (db: Executor, billIds: string[]) =>
    billIds.length === 0 ? Promise.resolve([] as PaymentRow[]) : db.selectFrom('bill_payments').selectAll().where('bill_id', 'in', billIds).orderBy('created_at').orderBy('id').execute(),
  /**
   * Every restaurant's orders that are neither paid nor cancelled on a round of a bill closed as
   * paid, or merged into another: the candidates of the paid-bill repair (by restaurant and bill).
   */
  unpaidOrdersOnClosedBills: (db: Executor) =>
    db
      .selectFrom('bill_rounds')
      .innerJoin('orders', (j) => j.onRef('orders.id', '=', 'bill_rounds.order_id').onRef('orders.tenant_id', '=', 'bill_rounds.tenant_id'))
      .innerJoin('bills', (j) => j.onRef('bills.id', '=', 'bill_rounds.bill_id').onRef('bills.tenant_id', '=', 'bill_rounds.tenant_id'))
      .select(['bill_rounds.tenant_id', 'bill_rounds.bill_id'])
      .where('orders.payment_status', '=', 'open')
      .where('orders.status', '!=', 'cancelled')
      // Closed as paid, or merged into a bill that may be (its root decides); staff-closed and empty bills never qualify.
      .where((eb) => eb.or([eb.and([eb('bills.status', '=', 'closed'), eb('bills.close_reason', '=', 'paid')]), eb('bills.status', '=', 'merged')]))
      .distinct()
      .execute(),
  /**
   * Of these bills, those closed on the node with this origin: its own `bill.closed` in the change
   * log (a change replicated through sync keeps the origin of the node that made it).
   */
  billsClosedBy: async (db: Executor, tenantId: string, origin: string, billIds: string[]): Promise<string[]> => {
    const out = new Set<string>();
    for (let i = 0; i < billIds.length; i += ROWS_PER_INSERT) {
      const rows = await db
        .selectFrom('change_log')
        .select('entity_id')
        .where('tenant_id', '=', tenantId)
        .where('entity', '=', 'bill')
        .where('kind', '=', 'bill.closed')
        .where('origin', '=', origin)
        .where('entity_id', 'in', billIds.slice(i, i + ROWS_PER_INSERT))
        .execute();
      for (const r of rows) out.add(r.entity_id);
    }
    return [...out];
  },
  findPayment: (db: Executor, id: string) => db.selectFrom('bill_payments').selectAll().where('id', '=', id).executeTakeFirst(),
  /** (0025) The rounds of these bills now belong to `tableId` (a bill moved). */
  moveRounds: (db: Executor, tenantId: string, billIds: string[], tableId: string) =>
    billIds.length === 0 ? Promise.resolve() : db.updateTable('bill_rounds').set({ table_id: tableId }).where('tenant_id', '=', tenantId).where('bill_id', 'in', billIds).execute().then(() => undefined),
  insertRound: (db: Executor, row: RoundRow) => db.insertInto('bill_rounds').values(row).onConflict((oc) => oc.column('id').doNothing()).execute(),
  insertPayment: (db: Executor, row: PaymentRow) => db.insertInto('bill_payments').values(row).onConflict((oc) => oc.column('id').doNothing()).execute(),
};
