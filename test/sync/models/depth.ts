import fc from 'fast-check';
import { expect } from 'vitest';
import { syncRegistry } from '../../../server/modules/sync-descriptors.js';
import type { Order } from '../../../server/modules/orders/orders.schemas.js';
import { model, type SideHandle, type World } from './types.js';

/**
 * Menu depth in the sync convergence property (issue 23, docs/menu.md "Sync of fires and voids"):
 * orders with options (a forced sauce, optional extras), seats and a held course 2 taken on either
 * side; courses fired and units voided on either side, also on the same order on both sides of an
 * outage; the options' names and prices edited on either side after the sale.
 *
 * Invariants after the quiet sync, on both sides:
 * - a voided unit is never charged: every line's voided units are the sum of the union's voids for
 *   it (never more than the line has), its total is its unit price × the units left, and the order's
 *   total is the sum of its lines; every void a side answered is in the union exactly once;
 * - a course fired on both sides fires once: one fire row per order and course, the same on both
 *   sides, and every line of that course carries that fire's time; a course nobody fired is held;
 * - a sold line keeps the options, names and prices it was sold with (a later menu edit never
 *   rewrites it), and its seat and course.
 */
type Cmd =
  /** Take an order: the steak (course 2, a sauce, perhaps extras) on a seat, fries as course 1. */
  | { t: 'take'; sauce: number; extras: number[]; qty: number; seat: number }
  | { t: 'fire'; order: number }
  | { t: 'void'; order: number; line: number; qty: number }
  /** A manager renames an option or changes its price after it was sold. */
  | { t: 'editOption'; option: number; price: number };

interface State {
  steak: string;
  sauce: { id: string; options: string[] };
  extras: { id: string; options: string[] };
  /** This model's orders and their lines as the creating side answered them. */
  sold: Map<string, Order['items']>;
  mine: string[];
  /** Orders whose course 2 a side fired (answered changed: true). */
  fired: Set<string>;
  /** Void ids a side answered. */
  voids: Set<string>;
}

export const depthModel = model<Cmd, State>({
  name: 'menu depth',
  commands: [
    {
      weight: 4,
      arbitrary: fc.record({
        t: fc.constant('take' as const),
        sauce: fc.nat(1),
        extras: fc.uniqueArray(fc.nat(2), { maxLength: 2 }),
        qty: fc.integer({ min: 1, max: 3 }),
        seat: fc.integer({ min: 1, max: 4 }),
      }),
    },
    // Heavier than most: fires and voids on few orders, so both sides often act on the same one between syncs
    // (test/sync/depth.property.test.ts runs these commands densely).
    { weight: 4, arbitrary: fc.record({ t: fc.constant('fire' as const), order: fc.nat(5) }) },
    { weight: 4, arbitrary: fc.record({ t: fc.constant('void' as const), order: fc.nat(5), line: fc.nat(1), qty: fc.integer({ min: 1, max: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('editOption' as const), option: fc.nat(1), price: fc.integer({ min: 0, max: 500 }) }) },
  ],

  async init(world: World): Promise<State> {
    const { menu } = world.cloud.services;
    const sauce = await menu.createGroup(world.tenantId, { name: 'Saus', min_select: 1, max_select: 1, options: [{ name: 'Stroganoffsaus' }, { name: 'Pepersaus', price_delta_cents: 150 }] });
    const extras = await menu.createGroup(world.tenantId, {
      name: "Extra's",
      min_select: 0,
      max_select: 3,
      options: [{ name: 'Spek', price_delta_cents: 150 }, { name: 'Kaas', price_delta_cents: 100 }, { name: 'Ei', price_delta_cents: 75 }],
    });
    const steak = await menu.createProduct(world.tenantId, { name: 'Biefstuk', price_cents: 2250, course: 2, modifier_group_ids: [sauce.id, extras.id] });
    // The appliance starts with these rows as a snapshot bootstrap would give them (its pulls adopt the same changes again later).
    const now = world.clock.now().toISOString();
    await world.appliance.db.transaction().execute(async (trx) => {
      for (const entity of ['modifier_group', 'product']) {
        const d = syncRegistry.descriptor(entity)!;
        const { changes } = await d.snapshot(world.cloud.handle.db, world.tenantId, null, 1000);
        for (const c of changes) await d.apply(trx, { ...c, tenant_id: world.tenantId, op_id: `init:${c.entity_id}`, origin: 'cloud' }, { side: 'appliance', mode: 'adopt', tenantId: world.tenantId, now });
      }
    });
    return {
      steak: steak.id,
      sauce: { id: sauce.id, options: sauce.options.map((o) => o.id) },
      extras: { id: extras.id, options: extras.options.map((o) => o.id) },
      sold: new Map(),
      mine: [],
      fired: new Set(),
      voids: new Set(),
    };
  },

  async run(cmd: Cmd, on: SideHandle, state: State, world: World): Promise<void> {
    const actor = { tenantId: world.tenantId, userId: null, via: on.side === 'cloud' ? ('web' as const) : ('pos' as const) };
    const orders = on.services.orders;
    const pick = (n: number) => state.mine[n % state.mine.length]!;
    switch (cmd.t) {
      case 'take': {
        const { order } = await orders.create(actor, {
          items: [
            { product_id: world.products[0]!, quantity: cmd.qty, seat: cmd.seat },
            {
              product_id: state.steak,
              quantity: cmd.qty,
              seat: cmd.seat,
              modifiers: [{ option_id: state.sauce.options[cmd.sauce]!, quantity: 1 }, ...cmd.extras.map((e) => ({ option_id: state.extras.options[e]!, quantity: 1 }))],
            },
          ],
        });
        state.sold.set(order.id, order.items);
        state.mine.push(order.id);
        world.orders.push(order.id);
        break;
      }
      case 'fire': {
        if (state.mine.length === 0) return;
        const r = await orders.fire(actor, pick(cmd.order), 2);
        if (r.changed) state.fired.add(r.order.id);
        break;
      }
      case 'void': {
        if (state.mine.length === 0) return;
        const id = pick(cmd.order);
        // The line as sold (both sides have the same ids for it once synced; before that only the creating side has it).
        const item = state.sold.get(id)![cmd.line]!;
        const before = new Set((await on.db.selectFrom('order_item_voids').select('id').where('item_id', '=', item.id).execute()).map((v) => v.id));
        await orders.voidItem(actor, id, item.id, { quantity: cmd.qty, reason: 'Verkeerd aangeslagen' });
        const after = await on.db.selectFrom('order_item_voids').select('id').where('item_id', '=', item.id).execute();
        const made = after.filter((v) => !before.has(v.id));
        expect(made).toHaveLength(1);
        state.voids.add(made[0]!.id);
        break;
      }
      case 'editOption': {
        const group = await on.services.menu.listGroups(world.tenantId).then((gs) => gs.find((g) => g.id === state.sauce.id));
        if (!group) return;
        await on.services.menu.updateGroup(world.tenantId, state.sauce.id, {
          options: group.options.map((o, i) => ({ id: o.id, name: i === cmd.option ? `${o.name}*` : o.name, price_delta_cents: i === cmd.option ? cmd.price : o.price_delta_cents, available: o.available })),
        });
        break;
      }
    }
  },

  async check(state: State, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void> {
    const unionVoids = await sides.cloud.db.selectFrom('order_item_voids').selectAll().where('tenant_id', '=', world.tenantId).execute();
    // Every void a side answered is in the union exactly once.
    for (const id of state.voids) expect(unionVoids.filter((v) => v.id === id)).toHaveLength(1);
    for (const s of [sides.cloud, sides.appliance]) {
      const fires = await s.db.selectFrom('order_course_fires').selectAll().where('tenant_id', '=', world.tenantId).execute();
      for (const id of state.mine) {
        const order = await s.services.orders.get(world.tenantId, id);
        const sold = state.sold.get(id)!;
        for (const [n, item] of order.items.entries()) {
          // Sold as sold: options, names, prices, seat and course never rewritten by a later menu edit.
          expect({ modifiers: item.modifiers, unit: item.unit_price_cents, name: item.name, seat: item.seat, course: item.course }, `${s.side} ${id} line ${n}`).toEqual({
            modifiers: sold[n]!.modifiers,
            unit: sold[n]!.unit_price_cents,
            name: sold[n]!.name,
            seat: sold[n]!.seat,
            course: sold[n]!.course,
          });
          // A voided unit is never charged: the line's voids are the union's, capped at its quantity.
          const voided = unionVoids.filter((v) => v.item_id === item.id).reduce((sum, v) => sum + v.quantity, 0);
          expect(item.voided_quantity, `${s.side} voided ${item.name}`).toBe(Math.min(item.quantity, voided));
          expect(item.total_cents, `${s.side} line total ${item.name}`).toBe(item.unit_price_cents * (item.quantity - item.voided_quantity));
        }
        expect(order.total_cents, `${s.side} order total`).toBe(order.items.reduce((sum, i) => sum + i.total_cents, 0));
        // A course fires once: one fire per order and course; its lines carry that fire's time; unfired, they are held.
        const mineFires = fires.filter((f) => f.order_id === id);
        expect(mineFires.filter((f) => f.course === 2).length, `${s.side} fires of ${id}`).toBeLessThanOrEqual(1);
        const fire = mineFires.find((f) => f.course === 2);
        if (state.fired.has(id)) expect(fire, `${s.side} fired ${id}`).toBeDefined();
        for (const item of order.items.filter((i) => i.course === 2)) {
          if (fire) expect({ held: item.held, fired_at: item.fired_at }).toEqual({ held: false, fired_at: fire.created_at });
          else expect({ held: item.held, fired_at: item.fired_at }).toEqual({ held: true, fired_at: null });
        }
      }
    }
  },
});
