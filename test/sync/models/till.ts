import fc from 'fast-check';
import { expect } from 'vitest';
import { orderFigures, TILL_METHODS } from '../../../server/modules/till/till.rules.js';
import { model, type SideHandle, type World } from './types.js';

/**
 * The till in the sync convergence property (issue 25 item 10, docs/till.md "Across sync"): orders
 * without a table paid at the till in parts with a method (and tips) on either side, discounts on
 * the order or a line on either side (also on the same order on both sides of an outage, and after
 * the other side was paid in full), and day closes made on the appliance (forced, as its sync may be
 * behind; the cloud refuses them for a restaurant with an appliance).
 *
 * Invariants after the quiet sync, on both sides:
 * - every payment and discount a side answered is kept (in the union exactly once);
 * - per order: `discount_cents` and `total_cents` are the figures of its lines and the union of its
 *   discounts; the till payments are at most the total after discounts, or the over-payment is
 *   flagged (a visible conflict in the cloud's sync ops naming the order);
 * - money: each till payment is in the journal exactly once, both sides' journals verify and sum
 *   to the same money (the till payments' sum);
 * - every close made is on both sides, numbered 1, 2, … without gaps.
 */
type Cmd =
  | { t: 'order'; product: number; qty: number }
  | { t: 'pay'; order: number; part: number; method: number; tip: boolean }
  | { t: 'discount'; order: number; kind: 'percent' | 'amount'; value: number; line: boolean }
  | { t: 'close'; counted: number };

interface State {
  mine: string[];
  payments: Set<string>;
  discounts: Set<string>;
  closes: number;
}

export const tillModel = model<Cmd, State>({
  name: 'till',
  commands: [
    { weight: 2, arbitrary: fc.record({ t: fc.constant('order' as const), product: fc.nat(2), qty: fc.integer({ min: 1, max: 3 }) }) },
    // On few orders, so both sides often pay or discount the same one between syncs.
    { weight: 3, arbitrary: fc.record({ t: fc.constant('pay' as const), order: fc.nat(3), part: fc.integer({ min: 1, max: 2 }), method: fc.nat(TILL_METHODS.length - 1), tip: fc.boolean() }) },
    {
      weight: 2,
      arbitrary: fc.record({ t: fc.constant('discount' as const), order: fc.nat(3), kind: fc.constantFrom('percent' as const, 'amount' as const), value: fc.integer({ min: 5, max: 40 }), line: fc.boolean() }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('close' as const), counted: fc.nat(5000) }) },
  ],

  async init(): Promise<State> {
    return { mine: [], payments: new Set(), discounts: new Set(), closes: 0 };
  },

  async run(cmd: Cmd, on: SideHandle, state: State, world: World): Promise<void> {
    const actor = { tenantId: world.tenantId, userId: null, via: 'pos' as const };
    const pick = (n: number) => state.mine[n % state.mine.length]!;
    switch (cmd.t) {
      case 'order': {
        const { order } = await on.services.orders.create({ ...actor, via: on.side === 'cloud' ? 'web' : 'pos' }, { items: [{ product_id: world.products[cmd.product]!, quantity: cmd.qty }] });
        state.mine.push(order.id);
        world.orders.push(order.id);
        break;
      }
      case 'pay': {
        if (state.mine.length === 0) return;
        const id = pick(cmd.order);
        const order = await on.services.orders.get(world.tenantId, id);
        const paid = (await on.services.till.orderPayments(world.tenantId, id)).reduce((s, p) => s + p.amount_cents, 0);
        const open = order.total_cents - paid;
        if (open <= 0) return;
        const method = TILL_METHODS[cmd.method]!;
        const r = await on.services.till.payOrder(actor, id, { amount_cents: Math.max(1, Math.floor(open / cmd.part)), method, ...(cmd.tip ? { tip_cents: 50 } : {}) });
        state.payments.add(r.payment.id);
        break;
      }
      case 'discount': {
        if (state.mine.length === 0) return;
        const id = pick(cmd.order);
        const order = await on.services.orders.get(world.tenantId, id);
        const r = await on.services.till.addDiscount({ ...actor, role: 'admin' }, id, {
          kind: cmd.kind,
          value: cmd.kind === 'percent' ? cmd.value : cmd.value * 10,
          ...(cmd.line && order.items[0] ? { item_id: order.items[0].id } : {}),
          reason: 'Test',
        });
        state.discounts.add(r.discount.id);
        break;
      }
      case 'close': {
        // Made where the till is; the cloud refuses (409) for a restaurant with an appliance.
        await on.services.journal.closes.close({ tenantId: world.tenantId, userId: null }, { cash_counted_cents: cmd.counted, force: true });
        state.closes += 1;
        break;
      }
    }
  },

  async check(state: State, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void> {
    const flagged = (await sides.cloud.db.selectFrom('sync_ops').select('result').where('tenant_id', '=', world.tenantId).where('status', '=', 'conflict').execute())
      .map((r) => r.result)
      .filter((r) => r.includes('te veel betaald'));
    const totals: number[] = [];
    for (const s of [sides.cloud, sides.appliance]) {
      const payments = await s.db.selectFrom('order_payments').selectAll().where('tenant_id', '=', world.tenantId).execute();
      const discounts = await s.db.selectFrom('order_discounts').select('id').where('tenant_id', '=', world.tenantId).execute();
      for (const id of state.payments) expect(payments.filter((p) => p.id === id), `${s.side} payment ${id}`).toHaveLength(1);
      for (const id of state.discounts) expect(discounts.filter((d) => d.id === id), `${s.side} discount ${id}`).toHaveLength(1);
      for (const id of state.mine) {
        const order = await s.services.orders.get(world.tenantId, id);
        const f = orderFigures(
          order.items.map((i) => ({ id: i.id, total_cents: i.total_cents, vat_rate: i.vat_rate })),
          order.discounts.map((d) => ({ item_id: d.item_id, amount_cents: d.amount_cents })),
        );
        expect({ total: order.total_cents, discount: order.discount_cents }, `${s.side} figures of ${order.number}`).toEqual({ total: f.total_cents, discount: f.discount_cents });
        const paid = payments.filter((p) => p.order_id === id).reduce((sum, p) => sum + p.amount_cents, 0);
        if (paid > order.total_cents) expect(flagged.some((r) => r.includes(`Bestelling ${order.number} is`)), `${s.side} ${order.number} over-paid (${paid} > ${order.total_cents}) without a flag`).toBe(true);
      }
      // Each till payment is in the journal once; the journal verifies.
      const journal = await s.db.selectFrom('journal_entries').select(['ref_id', 'amount_cents']).where('tenant_id', '=', world.tenantId).where('kind', '=', 'payment').execute();
      for (const p of payments) expect(journal.filter((e) => e.ref_id === p.id).map((e) => Number(e.amount_cents)), `${s.side} journal of payment ${p.id}`).toEqual([p.amount_cents]);
      expect((await s.services.journal.verify(world.tenantId)).verified, `${s.side} journal verifies`).toBe(true);
      totals.push(journal.filter((e) => payments.some((p) => p.id === e.ref_id)).reduce((sum, e) => sum + Number(e.amount_cents), 0));
      // Every close made is here, numbered without gaps.
      const closes = await s.db.selectFrom('day_closes').select('number').where('tenant_id', '=', world.tenantId).orderBy('number').execute();
      expect(closes.map((c) => Number(c.number)), `${s.side} closes`).toEqual(Array.from({ length: state.closes }, (_, i) => i + 1));
    }
    // Both sides sum to the same money.
    expect(totals[0]).toBe(totals[1]);
  },
});
