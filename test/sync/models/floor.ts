import fc from 'fast-check';
import { expect } from 'vitest';
import { floorId } from '../../../server/modules/floor/floor.rules.js';
import { model, type SideHandle, type World } from './types.js';

/**
 * Floor and reservations in the sync convergence property (issue 11, docs/floor.md, docs/reservations.md):
 * orders on tables taken on both sides (two sides opening the same table's bill during an outage),
 * orders paid on either side, staff payments and closings at the table, manual statuses, bookings
 * racing for the same tables at overlapping times on both sides, cancellations, the status job.
 *
 * Invariants after the quiet sync (besides identical replicated tables):
 * - at most one open bill per table on each side; every bill that is not open is closed or merged
 *   into a bill of the same table, and every merged bill carries its Dutch note;
 * - every order taken on a table is a round of exactly one bill, whose table is the order's;
 * - money is never doubled: an order paid on both sides paid its bill once (one payment, id from the
 *   order), never more than the order's total; a payment belongs to a bill of the tenant;
 * - no table is held twice at once by bookings unless the later one carries a visible conflict note.
 */
type Cmd =
  | { t: 'order'; table: number; product: number }
  | { t: 'payOrder'; order: number }
  | { t: 'payBill'; table: number; part: number }
  | { t: 'closeBill'; table: number }
  | { t: 'override'; table: number; status: 'vrij' | 'bezet' | 'gereserveerd' | null }
  | { t: 'book'; time: number; party: number }
  | { t: 'cancel'; booking: number }
  | { t: 'job' };

interface State {
  tables: string[];
  tableOrders: string[];
  bookings: string[];
}

const TIMES = ['18:00', '18:30', '19:00', '20:30'];

export const floorModel = model<Cmd, State>({
  name: 'floor',
  commands: [
    { weight: 3, arbitrary: fc.record({ t: fc.constant('order' as const), table: fc.nat(2), product: fc.nat(2) }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('payOrder' as const), order: fc.nat(9) }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('payBill' as const), table: fc.nat(2), part: fc.integer({ min: 1, max: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('closeBill' as const), table: fc.nat(2) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('override' as const), table: fc.nat(2), status: fc.constantFrom('vrij' as const, 'bezet' as const, 'gereserveerd' as const, null) }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('book' as const), time: fc.nat(TIMES.length - 1), party: fc.integer({ min: 1, max: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('cancel' as const), booking: fc.nat(5) }) },
    { weight: 1, arbitrary: fc.constant({ t: 'job' as const }) },
  ],

  async init(world: World): Promise<State> {
    const { floor } = world.cloud.services;
    const zone = await floor.createZone(world.tenantId, { name: 'binnen' });
    const tables: string[] = [];
    for (const [name, seats] of [['T1', 2], ['T2', 4], ['T3', 2]] as const) tables.push((await floor.createTable(world.tenantId, { zone_id: zone.id, name, seats, x: 0, y: 0 })).id);
    // The appliance already knows the floor (as after any sync): the same rows, which the cloud's
    // table.created changes, pulled later, adopt unchanged. Otherwise most appliance commands of a
    // short run would only meet an unknown table.
    const zoneRow = await world.cloud.handle.db.selectFrom('floor_zones').selectAll().where('id', '=', zone.id).executeTakeFirstOrThrow();
    await world.appliance.db.insertInto('floor_zones').values(zoneRow).execute();
    for (const row of await world.cloud.handle.db.selectFrom('floor_tables').selectAll().where('tenant_id', '=', world.tenantId).execute()) {
      await world.appliance.db.insertInto('floor_tables').values(row).execute();
    }
    return { tables, tableOrders: [], bookings: [] };
  },

  async run(cmd: Cmd, on: SideHandle, state: State, world: World): Promise<void> {
    const { floor, orders, reservations } = on.services;
    const actor = { tenantId: world.tenantId, userId: null, via: on.side === 'cloud' ? ('web' as const) : ('pos' as const) };
    switch (cmd.t) {
      case 'order': {
        const { order } = await orders.create(actor, { items: [{ product_id: world.products[cmd.product]!, quantity: 1 }], table_id: state.tables[cmd.table]! });
        state.tableOrders.push(order.id);
        world.orders.push(order.id);
        break;
      }
      case 'payOrder':
        if (state.tableOrders.length) await orders.markPaid({ ...actor, via: 'pos' }, state.tableOrders[cmd.order % state.tableOrders.length]!);
        break;
      case 'payBill': {
        const bill = await floor.tableBill(world.tenantId, state.tables[cmd.table]!);
        if (bill.open_cents > 0) await floor.payBill({ ...actor, via: 'pos' }, bill.id, { amount_cents: Math.max(1, Math.floor(bill.open_cents / cmd.part)), tip_cents: 50 });
        break;
      }
      case 'closeBill': {
        const bill = await floor.tableBill(world.tenantId, state.tables[cmd.table]!);
        await floor.closeBill({ ...actor, via: 'pos' }, bill.id);
        break;
      }
      case 'override':
        await floor.setOverride(world.tenantId, state.tables[cmd.table]!, cmd.status);
        break;
      case 'book': {
        const input = { date: '2026-11-20', time: TIMES[cmd.time]!, party_size: cmd.party, name: `Gast ${state.bookings.length}`, phone: '0612345678' };
        const r = on.side === 'cloud' ? await reservations.bookPublic((await on.services.tenants.byId(world.tenantId))!.slug, input) : await reservations.bookStaff({ tenantId: world.tenantId, userId: null }, input);
        state.bookings.push(r.id);
        break;
      }
      case 'cancel':
        if (state.bookings.length) await reservations.update({ tenantId: world.tenantId, userId: null }, state.bookings[cmd.booking % state.bookings.length]!, { status: 'cancelled' });
        break;
      case 'job':
        await floor.refreshStatuses();
        break;
    }
  },

  async check(state: State, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void> {
    for (const s of [sides.cloud, sides.appliance]) {
      const bills = await s.db.selectFrom('bills').selectAll().where('tenant_id', '=', world.tenantId).execute();
      const byId = new Map(bills.map((b) => [b.id, b]));
      // One open bill per table; merged bills point at a bill of the same table and say so.
      const open = bills.filter((b) => b.status === 'open').map((b) => b.table_id);
      expect(new Set(open).size).toBe(open.length);
      for (const b of bills) {
        expect(state.tables).toContain(b.table_id);
        if (b.status === 'merged') {
          expect(byId.get(b.merged_into!)?.table_id).toBe(b.table_id);
          expect(b.conflict).toMatch(/samengevoegd/);
        } else {
          expect(b.merged_into).toBeNull();
        }
      }
      // Every order taken on a table is a round of exactly one bill of that table.
      const rounds = await s.db.selectFrom('bill_rounds').selectAll().where('tenant_id', '=', world.tenantId).execute();
      const orders = await s.db.selectFrom('orders').select(['id', 'table_id', 'total_cents', 'payment_status']).where('tenant_id', '=', world.tenantId).where('table_id', 'is not', null).execute();
      expect(rounds.map((r) => r.order_id).sort()).toEqual(orders.map((o) => o.id).sort());
      for (const o of orders) {
        const round = rounds.find((r) => r.order_id === o.id)!;
        expect(round.id).toBe(floorId('bill-round', o.id));
        expect(byId.get(round.bill_id)?.table_id).toBe(o.table_id);
      }
      for (const id of state.tableOrders) expect(orders.some((o) => o.id === id)).toBe(true);
      // Money never doubled: an order's own payment exists once, at most its total, only for a paid order.
      const payments = await s.db.selectFrom('bill_payments').selectAll().where('tenant_id', '=', world.tenantId).execute();
      for (const p of payments) {
        expect(byId.has(p.bill_id)).toBe(true);
        expect(p.amount_cents).toBeGreaterThan(0);
        if (p.source === 'order') {
          const o = orders.find((x) => x.id === p.order_id)!;
          expect(p.id).toBe(floorId('bill-payment-order', o.id));
          expect(o.payment_status).toBe('paid');
          expect(p.amount_cents).toBeLessThanOrEqual(o.total_cents);
        }
      }
      // No table held twice at once, unless the booking that lost carries a visible conflict.
      const holding = (await s.db.selectFrom('reservations').selectAll().where('tenant_id', '=', world.tenantId).execute()).filter((r) => r.status === 'booked' || r.status === 'seated');
      for (const a of holding) {
        for (const b of holding) {
          if (a.id >= b.id || a.table_id !== b.table_id) continue;
          if (a.starts_at < b.ends_at && b.starts_at < a.ends_at) expect(a.conflict !== null || b.conflict !== null, `${a.id} and ${b.id} share a table`).toBe(true);
        }
      }
      for (const id of state.bookings) expect(holding.some((r) => r.id === id) || (await s.db.selectFrom('reservations').select('id').where('id', '=', id).executeTakeFirst()) !== undefined).toBe(true);
    }
  },
});
