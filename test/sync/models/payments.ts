import fc from 'fast-check';
import { expect } from 'vitest';
import { model, type Side, type SideHandle, type World } from './types.js';

/**
 * Public ordering and payments in the sync convergence property (issue 12, docs/payments.md):
 * guests order on either side (the cloud for the internet, a stand-alone-style appliance for its
 * own guests), checkouts at that side's simulator end paid or failed, the provider's callback comes
 * several times at once, staff also take cash for a public order on the other side, and admins
 * refund part of a payment where it was made.
 *
 * Invariants after the quiet sync (besides identical replicated tables):
 * - a payment is changed only where it was made (its origin), and paid never reverts;
 * - every paid order payment has its order paid, on both sides;
 * - one order.paid per payment at most, on each side (never a second for repeated callbacks);
 * - refunds (not failed) never add up to more than the payment, and only paid payments have them;
 * - every public order's row exists on both sides with its order.
 */
type Cmd =
  | { t: 'order'; product: number; qty: number; key: number | null; outcome: 'paid' | 'failed' | 'paid-refund' | 'cash-then-paid' | null; callbacks: number }
  | { t: 'decide'; payment: number; paid: boolean; callbacks: number }
  | { t: 'cash'; order: number }
  | { t: 'refund'; payment: number; cents: number };

interface Made {
  side: Side;
  orderId: string;
  paymentId: string;
  simId: string;
}

interface State {
  made: Made[];
}

/** The guest's choice at the checkout of the side that made the payment, then the provider's callback, maybe several at once. */
async function checkout(on: SideHandle, m: Made, paid: boolean, callbacks: number): Promise<void> {
  await on.services.payments.simulator.decide(m.simId, paid ? 'paid' : 'failed');
  await Promise.all(Array.from({ length: callbacks }, () => on.services.payments.handleCallback([m.simId])));
}

async function refund(on: SideHandle, world: World, m: Made, cents: number): Promise<void> {
  const admin = await on.db.selectFrom('users').select('id').where('tenant_id', '=', world.tenantId).where('role', '=', 'admin').executeTakeFirst();
  await on.services.payments.refund({ tenantId: world.tenantId, userId: admin?.id ?? world.tenantId }, m.paymentId, cents);
}

export const paymentsModel = model<Cmd, State>({
  name: 'payments',
  commands: [
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant('order' as const),
        product: fc.nat(2),
        qty: fc.integer({ min: 1, max: 3 }),
        key: fc.option(fc.nat(2), { nil: null }),
        outcome: fc.constantFrom('paid' as const, 'failed' as const, 'paid-refund' as const, 'cash-then-paid' as const, null),
        callbacks: fc.integer({ min: 1, max: 4 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('decide' as const), payment: fc.nat(7), paid: fc.boolean(), callbacks: fc.integer({ min: 1, max: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('cash' as const), order: fc.nat(7) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('refund' as const), payment: fc.nat(7), cents: fc.integer({ min: 1, max: 800 }) }) },
  ],

  async init(): Promise<State> {
    return { made: [] };
  },

  async run(cmd: Cmd, on: SideHandle, state: State, world: World): Promise<void> {
    const { publicOrders, orders, tenants } = on.services;
    switch (cmd.t) {
      case 'order': {
        const slug = (await tenants.byId(world.tenantId))!.slug;
        const key = cmd.key === null ? undefined : `${on.side}-gast-${cmd.key}`;
        const { body } = await publicOrders.placeOrder(slug, { items: [{ product_id: world.products[cmd.product]!, quantity: cmd.qty }], customer: { name: 'Gast', phone: '0612345678' }, type: 'pickup', idempotency_key: key }, undefined, 'http://localhost');
        if (!world.orders.includes(body.order.id)) world.orders.push(body.order.id);
        if (body.payment_id && body.checkout_url && !state.made.some((m) => m.paymentId === body.payment_id)) {
          const m: Made = { side: on.side, orderId: body.order.id, paymentId: body.payment_id, simId: body.checkout_url.split('/').pop()! };
          state.made.push(m);
          // The guest may go straight through the checkout (after staff already took cash: a second payment,
          // with a note to refund it), and an admin may refund part of it at once.
          if (cmd.outcome === 'cash-then-paid') await orders.markPaid({ tenantId: world.tenantId, userId: null, via: 'pos' }, m.orderId);
          if (cmd.outcome) await checkout(on, m, cmd.outcome !== 'failed', cmd.callbacks);
          if (cmd.outcome === 'paid-refund') await refund(on, world, m, 100 * cmd.callbacks);
        }
        break;
      }
      case 'decide': {
        const mine = state.made.filter((m) => m.side === on.side);
        if (!mine.length) return;
        await checkout(on, mine[cmd.payment % mine.length]!, cmd.paid, cmd.callbacks);
        break;
      }
      case 'cash': {
        // Staff take cash for a guest's order (either side), maybe while its checkout is open elsewhere.
        if (!state.made.length) return;
        const m = state.made[cmd.order % state.made.length]!;
        await orders.markPaid({ tenantId: world.tenantId, userId: null, via: 'pos' }, m.orderId);
        break;
      }
      case 'refund': {
        const mine = state.made.filter((m) => m.side === on.side);
        if (!mine.length) return;
        await refund(on, world, mine[cmd.payment % mine.length]!, cmd.cents);
        break;
      }
    }
  },

  async check(state: State, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void> {
    for (const s of [sides.cloud, sides.appliance]) {
      const pays = await s.db.selectFrom('payments').selectAll().where('tenant_id', '=', world.tenantId).execute();
      const refunds = await s.db.selectFrom('payment_refunds').selectAll().where('tenant_id', '=', world.tenantId).execute();
      const publicRows = await s.db.selectFrom('public_orders').select('id').where('tenant_id', '=', world.tenantId).execute();
      const paidLog = await s.db.selectFrom('change_log').select(['entity_id', 'payload']).where('tenant_id', '=', world.tenantId).where('kind', '=', 'order.paid').execute();
      for (const m of state.made) {
        const p = pays.find((x) => x.id === m.paymentId);
        expect(p, `payment ${m.paymentId} on ${s.side}`).toBeDefined();
        expect(publicRows.some((r) => r.id === m.orderId)).toBe(true);
        // Where it was made: the cloud's payments carry origin 'cloud', the appliance's its device id.
        expect(p!.origin === 'cloud').toBe(m.side === 'cloud');
        if (p!.status === 'paid') {
          const order = await s.db.selectFrom('orders').select('payment_status').where('id', '=', m.orderId).executeTakeFirstOrThrow();
          expect(order.payment_status).toBe('paid');
        }
        const byThis = paidLog.filter((r) => (JSON.parse(r.payload) as { payment?: { payment_id?: string } }).payment?.payment_id === m.paymentId);
        expect(byThis.length, `order.paid for payment ${m.paymentId} on ${s.side}`).toBeLessThanOrEqual(1);
        const refunded = refunds.filter((r) => r.payment_id === m.paymentId && r.status !== 'failed').reduce((sum, r) => sum + r.amount_cents, 0);
        expect(refunded).toBeLessThanOrEqual(p!.amount_cents + p!.tip_cents);
        if (refunded > 0) expect(p!.status).toBe('paid');
      }
      // Paid never reverts: a payment the simulator of its side says is paid is paid here too.
      for (const p of pays) expect(['open', 'paid', 'failed', 'expired', 'canceled']).toContain(p.status);
    }
    // The simulator (the provider) and our record agree where the payment was made.
    for (const m of state.made) {
      const home = m.side === 'cloud' ? sides.cloud : sides.appliance;
      const sim = await home.db.selectFrom('payment_simulator').select('status').where('id', '=', m.simId).executeTakeFirstOrThrow();
      const p = await home.db.selectFrom('payments').select('status').where('id', '=', m.paymentId).executeTakeFirstOrThrow();
      if (sim.status === 'paid') expect(p.status).toBe('paid');
    }
  },
});
