import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { conflict } from '../../../../server/shared/errors.js';
import { newId } from '../../../../server/shared/ids.js';
import type { ChangeRecord } from '../../../../server/db/change-log.js';
import { setupFloor, type FloorSetup } from './helpers.js';

/**
 * A bill paid in full closes and its orders become paid in ONE transaction (docs/floor.md, "Closing"),
 * whoever closes it on this node (staff at the table, a cancellation or a counter payment settling the
 * rest, the minute job); and the once-per-start repair of bills a crash left closed-as-paid with unpaid
 * orders, which leaves bills closed by staff and closes that came through sync alone.
 */

const PHONE = '06 12345678';

async function setup() {
  const s = await setupFloor(await createTestApp());
  /** Every commit of this restaurant, as `kind:entity_id` per transaction. */
  const commits: string[][] = [];
  s.t.changes.on('committed', (tenantId: string, records: ChangeRecord[]) => {
    if (tenantId === s.r.id) commits.push(records.map((r) => `${r.kind}:${r.entity_id}`));
  });
  /** A test seam: the orders' `paid` hooks run inside the writer; this one fails for the ids in `failFor`. */
  const failFor = new Set<string>();
  s.t.services.orders.on('paid', async (_w, _actor, order) => {
    if (failFor.has(order.id)) throw conflict('Testfout: deze bestelling weigert betaald te worden.');
  });
  return { ...s, commits, failFor };
}

/** An order of 20,50 (a burger and two colas) on a table, for a guest with a loyalty phone. */
async function order(s: FloorSetup, tableId: string): Promise<{ id: string; total_cents: number }> {
  const res = await s.t.req({
    method: 'POST',
    url: '/api/v1/orders',
    cookie: s.staff,
    payload: { items: [{ product_id: s.menu.burger.id, quantity: 1 }, { product_id: s.menu.cola.id, quantity: 2 }], table_id: tableId, customer: { phone: PHONE } },
  });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json();
}

const payBill = (s: FloorSetup, billId: string, amount: number) =>
  s.t.req({ method: 'POST', url: `/api/v1/floorplan/bills/${billId}/payments`, cookie: s.staff, payload: { amount_cents: amount } });
const patchOrder = (s: FloorSetup, id: string, payload: object) => s.t.req({ method: 'PATCH', url: `/api/v1/orders/${id}`, cookie: s.admin, payload });

async function orderRow(t: TestApp, id: string) {
  return t.handle.db.selectFrom('orders').select(['status', 'payment_status']).where('id', '=', id).executeTakeFirstOrThrow();
}
async function changesOf(t: TestApp, tenantId: string, kind: string, entityId?: string): Promise<ChangeRecord[]> {
  return (await t.changes.readSince(tenantId, 0, 100_000)).filter((c) => c.kind === kind && (entityId === undefined || c.entity_id === entityId));
}
async function earned(t: TestApp, orderId: string): Promise<number> {
  const rows = await t.handle.db.selectFrom('loyalty_transactions').select('id').where('order_id', '=', orderId).where('type', '=', 'earn').execute();
  return rows.length;
}
async function paymentsOnBill(t: TestApp, billId: string): Promise<number> {
  return (await t.handle.db.selectFrom('bill_payments').select('id').where('bill_id', '=', billId).execute()).length;
}

describe('a bill paid in full: the close and its orders’ payment are one transaction', () => {
  it('staff pay the rest: bill.closed and every unpaid order’s order.paid commit together; a cancelled order is skipped, an order paid at the counter is not paid twice', async () => {
    const s = await setup();
    const a = await order(s, s.floor.t1.id);
    const b = await order(s, s.floor.t1.id);
    const c = await order(s, s.floor.t1.id);
    const d = await order(s, s.floor.t1.id);
    const bill = await s.t.services.floor.tableBill(s.r.id, s.floor.t1.id);
    // c is paid at the counter (it pays its part of the bill); d is cancelled.
    expect((await patchOrder(s, c.id, { payment_status: 'paid' })).statusCode).toBe(200);
    expect((await patchOrder(s, d.id, { status: 'cancelled' })).statusCode).toBe(200);
    expect((await payBill(s, bill.id, 1000)).statusCode).toBe(201);
    s.commits.length = 0;

    const rest = await payBill(s, bill.id, 3 * 2050 - 2050 - 1000);
    expect(rest.statusCode).toBe(201);
    expect(rest.json().bill).toMatchObject({ status: 'closed', close_reason: 'paid', open_cents: 0 });
    // One commit holds the payment, the close and both orders' order.paid: no state in between was ever visible.
    const withClose = s.commits.filter((c) => c.some((k) => k.startsWith('bill.closed:')));
    expect(withClose).toHaveLength(1);
    const one = withClose[0]!;
    expect(one.filter((k) => k.startsWith('bill.payment_recorded:'))).toHaveLength(1);
    expect(one.filter((k) => k.startsWith('order.paid:')).sort()).toEqual([`order.paid:${a.id}`, `order.paid:${b.id}`].sort());
    expect(s.commits.flat().filter((k) => k.startsWith('order.paid:'))).toHaveLength(2);
    for (const o of [a, b]) {
      expect(await orderRow(s.t, o.id)).toEqual({ status: 'new', payment_status: 'paid' });
      const paid = await changesOf(s.t, s.r.id, 'order.paid', o.id);
      expect(paid).toHaveLength(1);
      expect((paid[0]!.payload as { payment: unknown }).payment).toEqual({ provider: 'tafel', by: s.r.staffId, via: 'pos' });
      expect(await earned(s.t, o.id)).toBe(1);
    }
    // Paid before at the counter: still its one order.paid and one award; the cancelled order stays unpaid.
    expect(await changesOf(s.t, s.r.id, 'order.paid', c.id)).toHaveLength(1);
    expect(await earned(s.t, c.id)).toBe(1);
    expect(await orderRow(s.t, d.id)).toEqual({ status: 'cancelled', payment_status: 'open' });
    expect(await changesOf(s.t, s.r.id, 'order.paid', d.id)).toHaveLength(0);
  });

  it('an order that cannot be marked paid inside the transaction rolls the whole payment back: nothing is half done', async () => {
    const s = await setup();
    const a = await order(s, s.floor.t2.id);
    const b = await order(s, s.floor.t2.id);
    const bill = await s.t.services.floor.tableBill(s.r.id, s.floor.t2.id);
    expect((await payBill(s, bill.id, 100)).statusCode).toBe(201);
    const seqBefore = await s.t.changes.lastSeq(s.r.id);
    // Both orders are marked inside the payment's transaction; b's `paid` hook fails (after a was marked, if a came first).
    s.failFor.add(b.id);
    const failed = await payBill(s, bill.id, 4100 - 100);
    expect(failed.statusCode).toBe(500);
    expect(failed.json().code).toBe('INTERNAL');
    // Rolled back as a whole: no payment, the bill open, neither order paid (a's update and award too), no change recorded.
    expect(await s.t.changes.lastSeq(s.r.id)).toBe(seqBefore);
    expect(await paymentsOnBill(s.t, bill.id)).toBe(1);
    expect(await s.t.services.floor.getBill(s.r.id, bill.id)).toMatchObject({ status: 'open', close_reason: null, paid_cents: 100, open_cents: 4000 });
    for (const o of [a, b]) {
      expect(await orderRow(s.t, o.id)).toMatchObject({ payment_status: 'open' });
      expect(await earned(s.t, o.id)).toBe(0);
    }
    // The same payment again, once the order can be paid: all of it, once.
    s.failFor.clear();
    const ok = await payBill(s, bill.id, 4100 - 100);
    expect(ok.statusCode).toBe(201);
    expect(ok.json().bill).toMatchObject({ status: 'closed', close_reason: 'paid', paid_cents: 4100 });
    for (const o of [a, b]) {
      expect(await orderRow(s.t, o.id)).toMatchObject({ payment_status: 'paid' });
      expect(await changesOf(s.t, s.r.id, 'order.paid', o.id)).toHaveLength(1);
      expect(await earned(s.t, o.id)).toBe(1);
    }
  });

  it('the rest settled by a cancellation or by a counter payment: the other orders become paid in that same transaction', async () => {
    const s = await setup();
    // T1: 20,50 taken at the table for a; then b is cancelled: the bill is paid in full and a is paid.
    const a = await order(s, s.floor.t1.id);
    const b = await order(s, s.floor.t1.id);
    const bill1 = await s.t.services.floor.tableBill(s.r.id, s.floor.t1.id);
    expect((await payBill(s, bill1.id, 2050)).statusCode).toBe(201);
    expect(await orderRow(s.t, a.id)).toMatchObject({ payment_status: 'open' });
    s.commits.length = 0;
    expect((await patchOrder(s, b.id, { status: 'cancelled' })).statusCode).toBe(200);
    expect(await s.t.services.floor.getBill(s.r.id, bill1.id)).toMatchObject({ status: 'closed', close_reason: 'paid' });
    expect(await orderRow(s.t, a.id)).toMatchObject({ payment_status: 'paid' });
    expect(await orderRow(s.t, b.id)).toEqual({ status: 'cancelled', payment_status: 'open' });
    expect(s.commits.filter((c) => c.includes(`bill.closed:${bill1.id}`))).toEqual([expect.arrayContaining([`order.status_changed:${b.id}`, `order.paid:${a.id}`])]);

    // T2: 20,50 taken at the table; then c is paid at the counter: its payment completes the bill, d is paid too.
    const c = await order(s, s.floor.t2.id);
    const d = await order(s, s.floor.t2.id);
    const bill2 = await s.t.services.floor.tableBill(s.r.id, s.floor.t2.id);
    expect((await payBill(s, bill2.id, 2050)).statusCode).toBe(201);
    s.commits.length = 0;
    expect((await patchOrder(s, c.id, { payment_status: 'paid' })).statusCode).toBe(200);
    expect(await s.t.services.floor.getBill(s.r.id, bill2.id)).toMatchObject({ status: 'closed', close_reason: 'paid', paid_cents: 4100 });
    expect(s.commits).toHaveLength(1);
    expect(s.commits[0]).toEqual(expect.arrayContaining([`order.paid:${c.id}`, `bill.closed:${bill2.id}`, `order.paid:${d.id}`]));
    for (const o of [c, d]) {
      expect(await changesOf(s.t, s.r.id, 'order.paid', o.id)).toHaveLength(1);
      expect(await earned(s.t, o.id)).toBe(1);
    }
    expect((await changesOf(s.t, s.r.id, 'order.paid', d.id))[0]!.payload).toMatchObject({ payment: { provider: 'tafel', via: 'pos' } });
  });

  it('the minute job closing a bill settled through sync marks its orders paid in the same transaction', async () => {
    const s = await setup();
    const a = await order(s, s.floor.t3.id);
    const b = await order(s, s.floor.t3.id);
    const bill = await s.t.services.floor.tableBill(s.r.id, s.floor.t3.id);
    expect((await payBill(s, bill.id, 1000)).statusCode).toBe(201);
    // The rest paid on the other side of an outage arrives as a ledger row (sync runs no hooks).
    await s.t.handle.db
      .insertInto('bill_payments')
      .values({ id: newId(), tenant_id: s.r.id, bill_id: bill.id, amount_cents: 3100, tip_cents: 0, source: 'staff', payment_id: null, order_id: null, created_by: null, created_at: s.t.clock.now().toISOString(), method: 'overig', received_cents: null, change_cents: 0, items: '[]' })
      .execute();
    s.commits.length = 0;
    await s.t.services.floor.refreshStatuses();
    expect(await s.t.services.floor.getBill(s.r.id, bill.id)).toMatchObject({ status: 'closed', close_reason: 'paid' });
    expect(s.commits.filter((c) => c.includes(`bill.closed:${bill.id}`))).toEqual([expect.arrayContaining([`order.paid:${a.id}`, `order.paid:${b.id}`])]);
    for (const o of [a, b]) {
      expect(await changesOf(s.t, s.r.id, 'order.paid', o.id)).toHaveLength(1);
      expect((await changesOf(s.t, s.r.id, 'order.paid', o.id))[0]!.payload).toMatchObject({ payment: { provider: 'tafel', by: null, via: 'pos' } });
    }
  });
});

describe('repair: bills closed as paid with orders left unpaid (a crash between the two commits before)', () => {
  /** The first commit of the old code and nothing after: the rest paid and the bill closed as paid, its orders untouched. */
  async function crashedAfterClose(s: FloorSetup, billId: string, rest: number, origin?: string) {
    await s.t.changes.write(s.r.id, async (w) => {
      const payment = { id: newId(), tenant_id: s.r.id, bill_id: billId, amount_cents: rest, tip_cents: 0, source: 'staff' as const, payment_id: null, order_id: null, created_by: null, created_at: w.now, method: 'overig' as const, received_cents: null, change_cents: 0, items: '[]' };
      await w.trx.insertInto('bill_payments').values(payment).execute();
      await w.trx.updateTable('bills').set({ status: 'closed', closed_at: w.now, close_reason: 'paid', updated_at: w.now }).where('id', '=', billId).execute();
      const bill = await w.trx.selectFrom('bills').selectAll().where('id', '=', billId).executeTakeFirstOrThrow();
      const { tenant_id: _t, ...row } = bill;
      await w.record({ entity: 'bill', entityId: billId, kind: 'bill.closed', payload: { bill: row }, ...(origin ? { origin } : {}) });
    });
  }

  it('the first status job after a start marks the orders of bills this node closed as paid; bills closed by staff or through sync are left alone', async () => {
    const s = await setup();
    // T1: closed as paid here, then "crashed": a and b unpaid, c cancelled.
    const a = await order(s, s.floor.t1.id);
    const b = await order(s, s.floor.t1.id);
    const c = await order(s, s.floor.t1.id);
    await patchOrder(s, c.id, { status: 'cancelled' });
    const broken = await s.t.services.floor.tableBill(s.r.id, s.floor.t1.id);
    await crashedAfterClose(s, broken.id, 4100);
    // T2: closed by staff, the rest on the house: its order stays unpaid.
    const house = await order(s, s.floor.t2.id);
    const onTheHouse = await s.t.services.floor.tableBill(s.r.id, s.floor.t2.id);
    expect((await s.t.req({ method: 'POST', url: `/api/v1/floorplan/bills/${onTheHouse.id}/close`, cookie: s.staff })).statusCode).toBe(200);
    // T3: closed as paid by another node (its bill.closed came through sync): that node marks its orders.
    const synced = await order(s, s.floor.t3.id);
    const elsewhere = await s.t.services.floor.tableBill(s.r.id, s.floor.t3.id);
    await crashedAfterClose(s, elsewhere.id, 2050, 'andere-kassa');
    for (const o of [a, b, house, synced]) expect(await orderRow(s.t, o.id)).toMatchObject({ payment_status: 'open' });

    s.commits.length = 0;
    await s.t.services.floor.refreshStatuses();
    // The repair: one transaction for the restaurant, a and b marked paid once (with their awards), nothing else.
    const repaired = s.commits.filter((x) => x.some((k) => k.startsWith('order.paid:')));
    expect(repaired).toHaveLength(1);
    expect(repaired[0]!.filter((k) => k.startsWith('order.paid:')).sort()).toEqual([`order.paid:${a.id}`, `order.paid:${b.id}`].sort());
    for (const o of [a, b]) {
      expect(await orderRow(s.t, o.id)).toMatchObject({ payment_status: 'paid' });
      expect(await changesOf(s.t, s.r.id, 'order.paid', o.id)).toHaveLength(1);
      expect((await changesOf(s.t, s.r.id, 'order.paid', o.id))[0]!.payload).toMatchObject({ payment: { provider: 'tafel', by: null, via: 'pos' } });
      expect(await earned(s.t, o.id)).toBe(1);
    }
    expect(await orderRow(s.t, c.id)).toEqual({ status: 'cancelled', payment_status: 'open' });
    expect(await orderRow(s.t, house.id)).toMatchObject({ payment_status: 'open' });
    expect(await orderRow(s.t, synced.id)).toMatchObject({ payment_status: 'open' });
    expect(await s.t.services.floor.getBill(s.r.id, onTheHouse.id)).toMatchObject({ status: 'closed', close_reason: 'staff' });

    // Once per start: the job's later runs do not repair again, and there is nothing left to repair.
    s.commits.length = 0;
    await s.t.services.floor.refreshStatuses();
    expect(s.commits.flat().filter((k) => k.startsWith('order.paid:'))).toEqual([]);
    expect(await s.t.services.floor.repairPaidBills()).toEqual([]);
  });

  it('a repair that fails rolls back its restaurant’s marks, and the statuses are still refreshed', async () => {
    const s = await setup();
    const a = await order(s, s.floor.t1.id);
    const b = await order(s, s.floor.t1.id);
    const bill = await s.t.services.floor.tableBill(s.r.id, s.floor.t1.id);
    await crashedAfterClose(s, bill.id, 4100);
    s.failFor.add(b.id);
    await expect(s.t.services.floor.refreshStatuses()).rejects.toThrow(/could not be marked paid/);
    for (const o of [a, b]) expect(await orderRow(s.t, o.id)).toMatchObject({ payment_status: 'open' });
    s.failFor.clear();
    expect((await s.t.services.floor.repairPaidBills()).sort()).toEqual([a.id, b.id].sort());
  });
});
