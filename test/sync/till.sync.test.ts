import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../sync/protocol.js';
import { SCHEMA_VERSION } from '../../server/db/migrations/index.js';
import type { Runtime } from '../../server/runtime.js';
import { ManualClock } from '../../server/shared/clock.js';
import { seedMenu } from '../helpers/factories.js';
import { createAppliance, FakeTransport, quiesce, replicatedState, twoNodes } from './harness.js';
import { opByOp, ownOps, pushChunk, tableRows, watchBatches } from './chunk.js';

/**
 * The till across sync (issue 25 item 10, CONTRACT §19, docs/till.md "Across sync"): till payments
 * and discounts are ledger rows with their own ids (a payment pushed twice counts once; payments
 * made on both sides of an outage are both kept and an over-payment is a visible conflict), the
 * order's figures are recomputed from the union, the guest at the till and a bill's move are last
 * writer wins, receipts are numbered where the till is and copied to the cloud; afterwards both
 * sides hold the same rows and both journals verify.
 */
async function joined() {
  const clock = new ManualClock('2026-11-20T17:00:00Z');
  const nodes = await twoNodes({ clock });
  const { cloud, tenant, appliance } = nodes;
  const menu = await seedMenu(cloud, tenant.id);
  const zone = await cloud.services.floor.createZone(tenant.id, { name: 'binnen' });
  const tables = [];
  for (const name of ['T1', 'T2', 'T3']) tables.push(await cloud.services.floor.createTable(tenant.id, { zone_id: zone.id, name, seats: 4, x: 0, y: 0 }));
  await appliance.engine.syncOnce(); // bootstrap: tenant, users, menu, floor
  await quiesce(appliance);
  const actor = (via: 'pos' | 'web' = 'pos') => ({ tenantId: tenant.id, userId: null, via });
  const admin = { tenantId: tenant.id, userId: null, via: 'pos' as const, role: 'admin' as const };
  return { ...nodes, clock, menu, tables, actor, admin };
}

type Nodes = Awaited<ReturnType<typeof joined>>;

/** Both sides hold the same replicated rows, and both verify every journal chain. */
async function converged(n: Nodes): Promise<void> {
  await quiesce(n.appliance);
  expect(await n.appliance.engine.pendingCount()).toBe(0);
  expect(await replicatedState(n.appliance, n.tenant.id)).toEqual(await replicatedState(n.cloud, n.tenant.id));
  for (const rt of [n.appliance, n.cloud]) expect((await rt.services.journal.verify(n.tenant.id)).verified).toBe(true);
}

const paymentsOf = (rt: Runtime, orderId: string) => rt.handle.db.selectFrom('order_payments').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
const journalMoney = async (rt: Runtime, tenantId: string) =>
  (await rt.handle.db.selectFrom('journal_entries').select(['kind', 'amount_cents']).where('tenant_id', '=', tenantId).where('kind', '=', 'payment').execute()).reduce((s, e) => s + Number(e.amount_cents), 0);
const conflicts = (n: Nodes) => n.cloud.handle.db.selectFrom('sync_ops').select(['op_id', 'result']).where('tenant_id', '=', n.tenant.id).where('status', '=', 'conflict').execute();

describe('the till across sync', () => {
  it('a till payment made on the appliance reaches the cloud with its receipt; pushed twice, it counts once', async () => {
    const n = await joined();
    const { cloud, appliance, tenant, transport, menu, actor } = n;
    transport.offline = true;
    const { order } = await appliance.services.orders.create(actor(), { items: [{ product_id: menu.burger.id, quantity: 2 }] });
    await appliance.services.till.payOrder(actor(), order.id, { amount_cents: 1000, method: 'pin' });
    const last = await appliance.services.till.payOrder(actor(), order.id, { amount_cents: 1900, tip_cents: 100, method: 'contant', received_cents: 3000 });
    expect(last.order.payment_status).toBe('paid');
    const receipt = await appliance.services.till.orderReceipt(tenant.id, order.id);
    expect(receipt.receipt_number).toMatch(/^\d{4}-000001$/);
    transport.offline = false;
    await converged(n);

    const onCloud = await cloud.services.orders.get(tenant.id, order.id);
    expect([onCloud.payment_status, onCloud.total_cents]).toEqual(['paid', 2900]);
    expect((await paymentsOf(cloud, order.id)).map((p) => [p.method, p.amount_cents, p.tip_cents, p.change_cents])).toEqual(
      (await paymentsOf(appliance, order.id)).map((p) => [p.method, p.amount_cents, p.tip_cents, p.change_cents]),
    );
    // The cloud shows the appliance's receipt number (a read-only copy: numbered where the till is).
    const copy = await cloud.services.till.orderReceipt(tenant.id, order.id);
    expect(copy.receipt_number).toBe(receipt.receipt_number);
    expect(copy.payments.map((p) => p.amount_cents).sort()).toEqual([1000, 1900]);
    expect(await journalMoney(cloud, tenant.id)).toBe(2900);

    // The same payment op pushed again (a lost answer), and the same payment under a new op id: counted once.
    const op = await appliance.handle.db.selectFrom('change_log').selectAll().where('entity', '=', 'order_payment').orderBy('seq').executeTakeFirstOrThrow();
    const wire = { op_id: op.op_id, device_seq: Number(op.seq), entity: op.entity, entity_id: op.entity_id, kind: op.kind, payload: JSON.parse(op.payload) as object, created_at: op.created_at };
    const push = (ops: object[]) =>
      cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops } });
    const again = await push([wire]);
    expect(again.statusCode).toBe(200);
    expect(again.json().results[0]).toMatchObject({ duplicate: true });
    const lastSeq = Number((await appliance.handle.db.selectFrom('change_log').select((eb) => eb.fn.max('seq').as('s')).executeTakeFirstOrThrow()).s);
    const twin = await push([{ ...wire, op_id: '01900000-0000-7000-8000-00000000aa01', device_seq: lastSeq + 1 }]);
    expect(twin.json().results[0]).toMatchObject({ status: 'applied' });
    expect((await paymentsOf(cloud, order.id)).reduce((s, p) => s + p.amount_cents, 0)).toBe(2900);
  });

  it('payments on both sides of an outage are both kept; the over-payment is a visible conflict and both sides sum to the same money', async () => {
    const n = await joined();
    const { cloud, appliance, tenant, transport, menu, actor } = n;
    const { order } = await appliance.services.orders.create(actor(), { items: [{ product_id: menu.burger.id, quantity: 1 }] });
    await quiesce(appliance);
    transport.offline = true;
    await appliance.services.till.payOrder(actor(), order.id, { amount_cents: 1450, method: 'pin' });
    await cloud.services.till.payOrder(actor(), order.id, { amount_cents: 1450, method: 'contant' });
    transport.offline = false;
    await converged(n);

    for (const rt of [cloud, appliance]) {
      const ps = await paymentsOf(rt, order.id);
      expect(ps.map((p) => p.method).sort()).toEqual(['contant', 'pin']);
      expect((await rt.services.orders.get(tenant.id, order.id)).payment_status).toBe('paid');
      expect(await journalMoney(rt, tenant.id)).toBe(2900);
    }
    const c = await conflicts(n);
    expect(c).toHaveLength(1);
    expect(c[0]!.result).toContain('€ 14,50 te veel betaald');
  });

  it('each side paid a part during an outage: the union pays the order, and the settle job marks it paid on both sides', async () => {
    const n = await joined();
    const { cloud, appliance, tenant, transport, menu, actor } = n;
    const { order } = await appliance.services.orders.create(actor(), { items: [{ product_id: menu.burger.id, quantity: 1 }] });
    await quiesce(appliance);
    transport.offline = true;
    await appliance.services.till.payOrder(actor(), order.id, { amount_cents: 1000, method: 'pin' });
    await cloud.services.till.payOrder(actor(), order.id, { amount_cents: 450, method: 'contant' });
    transport.offline = false;
    await converged(n);
    expect((await appliance.services.orders.get(tenant.id, order.id)).payment_status).toBe('open');
    expect(await appliance.services.till.settleSynced()).toEqual([order.id]);
    expect(await appliance.services.till.settleSynced()).toEqual([]);
    await converged(n);
    for (const rt of [cloud, appliance]) expect((await rt.services.orders.get(tenant.id, order.id)).payment_status).toBe('paid');
    expect(await cloud.services.till.settleSynced()).toEqual([]);
    const number = (await appliance.services.till.orderReceipt(tenant.id, order.id)).receipt_number;
    expect(number).toMatch(/^\d{4}-000001$/);
    expect((await cloud.services.till.orderReceipt(tenant.id, order.id)).receipt_number).toBe(number);
    expect(await conflicts(n)).toEqual([]);
  });

  it('discounts given on both sides during an outage both count; a discount after the other side was paid in full flags the over-payment', async () => {
    const n = await joined();
    const { cloud, appliance, tenant, transport, menu, actor, admin } = n;
    const a = (await appliance.services.orders.create(actor(), { items: [{ product_id: menu.burger.id, quantity: 4 }] })).order; // 58,00
    const b = (await appliance.services.orders.create(actor(), { items: [{ product_id: menu.burger.id, quantity: 2 }] })).order; // 29,00
    await quiesce(appliance);
    transport.offline = true;
    await appliance.services.till.addDiscount(admin, a.id, { kind: 'percent', value: 10, reason: 'Vaste gast' }); // 5,80
    await cloud.services.till.addDiscount(admin, a.id, { kind: 'amount', value: 500, reason: 'Wachttijd' }); // 5,00
    await appliance.services.till.payOrder(actor(), b.id, { amount_cents: 2900, method: 'pin' });
    await cloud.services.till.addDiscount(admin, b.id, { kind: 'percent', value: 10, reason: 'Koud eten' }); // 2,90 off on the cloud, which did not know it was paid
    transport.offline = false;
    await converged(n);

    for (const rt of [cloud, appliance]) {
      const oa = await rt.services.orders.get(tenant.id, a.id);
      expect([oa.discounts.length, oa.discount_cents, oa.total_cents]).toEqual([2, 1080, 4720]);
      expect(oa.vat.reduce((s, v) => s + v.gross_cents, 0)).toBe(4720);
      const ob = await rt.services.orders.get(tenant.id, b.id);
      expect([ob.discount_cents, ob.total_cents, ob.payment_status]).toEqual([290, 2610, 'paid']);
      // Both payments' money is kept: 29,00 paid, 26,10 due.
      expect((await paymentsOf(rt, b.id)).reduce((s, p) => s + p.amount_cents, 0)).toBe(2900);
    }
    const c = await conflicts(n);
    expect(c).toHaveLength(1);
    expect(c[0]!.result).toContain('€ 2,90 te veel betaald');
    // A newcomer bootstrapped from the cloud (snapshot) holds the same till rows: discounts, payments, receipts, figures.
    const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Nieuwe kassa');
    const late = await createAppliance(new FakeTransport(() => cloud, sync_key), { clock: n.clock });
    await quiesce(late);
    expect(await replicatedState(late, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a bill moved on the appliance moves on the cloud with its rounds and orders; moved onto an occupied table it merges there on both sides', async () => {
    const n = await joined();
    const { cloud, appliance, tenant, transport, menu, actor, tables } = n;
    const [t1, t2, t3] = tables;
    const o1 = (await appliance.services.orders.create(actor(), { table_id: t1!.id, items: [{ product_id: menu.friet.id, quantity: 2 }] })).order;
    const o3 = (await cloud.services.orders.create(actor('web'), { table_id: t3!.id, items: [{ product_id: menu.cola.id, quantity: 1 }] })).order;
    await quiesce(appliance);
    transport.offline = true;
    const bill = await appliance.services.floor.tableBill(tenant.id, t1!.id);
    const moved = await appliance.services.floor.moveBill(actor(), bill.id, t2!.id);
    expect(moved.table_id).toBe(t2!.id);
    // A second order at the new table, still offline.
    const o2 = (await appliance.services.orders.create(actor(), { table_id: t2!.id, items: [{ product_id: menu.burger.id, quantity: 1 }] })).order;
    transport.offline = false;
    await converged(n);
    for (const rt of [cloud, appliance]) {
      const b = await rt.services.floor.tableBill(tenant.id, t2!.id);
      expect(b.id).toBe(bill.id);
      expect(b.orders.map((o) => o.id).sort()).toEqual([o1.id, o2.id].sort());
      expect((await rt.services.orders.get(tenant.id, o1.id)).table_id).toBe(t2!.id);
      await expect(rt.services.floor.tableBill(tenant.id, t1!.id)).rejects.toThrow();
    }

    // Onto T3, whose open bill the cloud opened: merged into it on both sides.
    transport.offline = true;
    const there = await appliance.services.floor.tableBill(tenant.id, t3!.id);
    const merged = await appliance.services.floor.moveBill(actor(), bill.id, t3!.id);
    expect(merged.id).toBe(there.id);
    transport.offline = false;
    await converged(n);
    for (const rt of [cloud, appliance]) {
      const b = await rt.services.floor.tableBill(tenant.id, t3!.id);
      expect(b.id).toBe(there.id);
      expect(b.merged_bills).toEqual([bill.id]);
      expect(b.orders.map((o) => o.id).sort()).toEqual([o1.id, o2.id, o3.id].sort());
      const rounds = await rt.handle.db.selectFrom('bill_rounds').select('table_id').where('tenant_id', '=', tenant.id).execute();
      expect(new Set(rounds.map((r) => r.table_id))).toEqual(new Set([t3!.id]));
    }
  });

  it('the guest attached at the till: last writer wins (in cloud apply order), the same on both sides', async () => {
    const n = await joined();
    const { cloud, appliance, tenant, transport, menu, actor } = n;
    const { order } = await appliance.services.orders.create(actor(), { items: [{ product_id: menu.cola.id, quantity: 1 }] });
    await quiesce(appliance);
    transport.offline = true;
    await cloud.services.till.attachCustomer(actor(), order.id, { phone: '06 11111111', name: 'Ans' });
    await appliance.services.till.attachCustomer(actor(), order.id, { phone: '06 22222222', name: 'Bert' });
    transport.offline = false;
    await converged(n);
    for (const rt of [cloud, appliance]) {
      const o = await rt.services.orders.get(tenant.id, order.id);
      expect(o.customer).toEqual({ name: 'Bert', phone: '+31622222222' });
    }
    const rows = await cloud.handle.db.selectFrom('orders').select('customer_id').where('id', '=', order.id).executeTakeFirstOrThrow();
    expect(rows.customer_id).not.toBeNull();
    expect(await conflicts(n)).toEqual([]);
  });
  it('one push chunk of paid orders (receipts and journal entries read once per chunk; one sent twice, a number and a chain position taken) ends as applying its ops one by one', async () => {
    const n = await joined();
    const { cloud, appliance, tenant, transport, menu, actor, device } = n;
    transport.offline = true;
    for (let i = 0; i < 3; i++) {
      const { order } = await appliance.services.orders.create(actor(), { items: [{ product_id: menu.burger.id, quantity: 1 + i }] });
      await appliance.services.till.payOrder(actor(), order.id, { amount_cents: order.total_cents, method: 'pin' });
      await appliance.services.till.orderReceipt(tenant.id, order.id);
    }
    const made = await ownOps(appliance, device.id);
    const receipts = made.filter((o) => o.entity === 'receipt');
    const entries = made.filter((o) => o.entity === 'journal_entry');
    expect(receipts.length).toBeGreaterThanOrEqual(3);
    expect(entries.length).toBeGreaterThanOrEqual(3);
    let seq = made[made.length - 1]!.device_seq;
    const op = (base: (typeof made)[number], payload: unknown, i: number) => ({ ...base, op_id: `01900000-0000-7000-8000-0000000ab0${i}0`, device_seq: ++seq, payload });
    const r0 = receipts[0]!.payload as { receipt: Record<string, unknown> };
    const e0 = entries[0]!.payload as { entry: Record<string, unknown> };
    const other = '01900000-0000-7000-8000-00000000cafe';
    const all = [
      ...made,
      // The same receipt and entry again (another op id): applied, nothing written twice.
      op(receipts[0]!, r0, 1),
      op(entries[0]!, e0, 2),
    ];
    const reference = await opByOp(cloud, tenant.id, device.id, all, ['receipts', 'journal_entries']);
    expect(reference.outcomes.map((o) => o.status)).toEqual(all.map(() => 'applied'));
    const applies = watchBatches(['receipt', 'journal_entry']);
    const pushed = await pushChunk(cloud, transport.key, tenant.id, all);
    expect(applies).toEqual({ batched: receipts.length + entries.length + 2, unbatched: 0 });
    expect(pushed).toEqual(JSON.parse(JSON.stringify(reference.outcomes)));
    expect(await tableRows(cloud.handle.db, tenant.id, ['receipts', 'journal_entries'])).toEqual(reference.rows);

    // A receipt with a number another receipt holds, and an entry on a taken chain position: each rejected, in a chunk and one by one alike.
    const clashes = [
      op(receipts[1]!, { receipt: { ...r0, id: other, order_id: null } }, 3),
      { ...op(entries[1]!, { entry: { ...e0, id: other } }, 4), entity_id: other },
    ];
    clashes[0]!.entity_id = other;
    const reference2 = await opByOp(cloud, tenant.id, device.id, clashes, ['receipts', 'journal_entries']);
    expect(reference2.outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await pushChunk(cloud, transport.key, tenant.id, clashes)).toEqual(JSON.parse(JSON.stringify(reference2.outcomes)));
    expect(await tableRows(cloud.handle.db, tenant.id, ['receipts', 'journal_entries'])).toEqual(reference2.rows);
  });
});
