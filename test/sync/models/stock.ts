import fc from 'fast-check';
import { expect } from 'vitest';
import { newId } from '../../../server/shared/ids.js';
import { replayLevel, saleMovementId, wasteMovementId } from '../../../server/modules/stock/stock.rules.js';
import { syncRegistry } from '../../../server/modules/sync-descriptors.js';
import { model, type SideHandle, type World } from './types.js';

/**
 * Stock in the sync convergence property (issue 8, docs/stock.md "Offline"): movements of every
 * type on both sides (removals that may race for the last units, transfers, counts), waste
 * bookings, default-location and recipe edits; orders completed by the core stream book their
 * recipes' consumption on the side that completes them.
 *
 * Invariant after the quiet sync: every side's maintained level of every product and location
 * equals the replay of the union of both sides' ledgers (and `stock verify` finds no difference);
 * every side holds the whole union; every movement a side booked is in it; sale and waste
 * bookings exist once per cause (their ids derive from it).
 */
type Cmd =
  /** A few movements in a row on one side (a delivery checked in, a count round). */
  | { t: 'move'; ops: Array<{ type: 'ADDITION' | 'REMOVAL' | 'INTAKE' | 'ADJUSTMENT'; product: number; location: number; qty: number }> }
  | { t: 'transfer'; product: number; from: number; qty: number }
  | { t: 'waste'; product: number; qty: number }
  | { t: 'default'; location: number }
  | { t: 'recipe'; dish: number; qty: number }
  /** Take an order of a dish with a recipe and complete it on this side (the other side may complete it too). */
  | { t: 'serve'; dish: number; qty: number; order: number | null };

interface State {
  ingredients: string[];
  locations: string[];
  /** Every movement id a side booked (answered to its caller). */
  booked: Set<string>;
}

const qty = fc.integer({ min: 1, max: 12 }).map((n) => n / 2); // 0.5 .. 6, halves: decimals travel too

export const stockModel = model<Cmd, State>({
  name: 'stock',
  commands: [
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant('move' as const),
        ops: fc.array(fc.record({ type: fc.constantFrom('ADDITION' as const, 'REMOVAL' as const, 'REMOVAL' as const, 'INTAKE' as const, 'ADJUSTMENT' as const), product: fc.nat(1), location: fc.nat(1), qty }), { minLength: 1, maxLength: 3 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('transfer' as const), product: fc.nat(1), from: fc.nat(1), qty }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('serve' as const), dish: fc.nat(1), qty: fc.integer({ min: 1, max: 3 }), order: fc.option(fc.nat(9), { nil: null }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('waste' as const), product: fc.nat(1), qty }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('default' as const), location: fc.nat(1) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('recipe' as const), dish: fc.nat(1), qty }) },
  ],

  async init(world: World): Promise<State> {
    const { services } = world.cloud;
    const ingredients = [];
    for (const [name, unit] of [['Aardappelen', 'kg'], ['Broodjes', 'stuk']] as const) {
      ingredients.push((await services.menu.createProduct(world.tenantId, { name, price_cents: 0, unit, on_menu: false, min_level: 4 })).id);
    }
    const locations = [(await services.stock.createLocation(world.tenantId, { name: 'Keuken' })).id, (await services.stock.createLocation(world.tenantId, { name: 'Koelcel' })).id];
    // Friet uses potatoes; Burger uses potatoes and a bun. Cola has no recipe.
    await services.stock.putRecipe(world.tenantId, world.products[0]!, { ingredients: [{ product_id: ingredients[0]!, quantity: 0.25 }] });
    await services.stock.putRecipe(world.tenantId, world.products[1]!, { ingredients: [{ product_id: ingredients[0]!, quantity: 0.2 }, { product_id: ingredients[1]!, quantity: 1 }] });
    const staff = { tenantId: world.tenantId, userId: null };
    const base = { to_location_id: null, from_location_id: null, note: null, reason: null, type: 'INTAKE' as const };
    await services.stock.recordMovement(staff, { ...base, product_id: ingredients[0]!, location_id: locations[0]!, quantity: 6 });
    await services.stock.recordMovement(staff, { ...base, product_id: ingredients[1]!, location_id: locations[1]!, quantity: 8 });
    // The appliance starts with these rows as a snapshot bootstrap would give them (its pulls adopt
    // the same changes again later, idempotently), so its first commands can use them.
    const now = world.clock.now().toISOString();
    await world.appliance.db.transaction().execute(async (trx) => {
      for (const entity of ['product', 'location', 'recipe', 'stock']) {
        const d = syncRegistry.descriptor(entity)!;
        const { changes } = await d.snapshot(world.cloud.handle.db, world.tenantId, null, 1000);
        for (const c of changes) await d.apply(trx, { ...c, tenant_id: world.tenantId, op_id: `init:${c.entity_id}`, origin: 'cloud' }, { side: 'appliance', mode: 'adopt', tenantId: world.tenantId, now });
      }
    });
    return { ingredients, locations, booked: new Set() };
  },

  async run(cmd: Cmd, on: SideHandle, state: State, world: World): Promise<void> {
    const { stock } = on.services;
    const staff = { tenantId: world.tenantId, userId: null };
    const base = { to_location_id: null, from_location_id: null, note: null, reason: null };
    switch (cmd.t) {
      case 'move': {
        let refused: unknown;
        for (const op of cmd.ops) {
          try {
            const r = await stock.recordMovement(staff, { ...base, product_id: state.ingredients[op.product]!, location_id: state.locations[op.location]!, type: op.type, quantity: op.qty });
            for (const m of r.movements) state.booked.add(m.id);
          } catch (e) {
            refused ??= e; // a refused removal (409) does not stop the next movement
          }
        }
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows the caught error as it was
        if (refused) throw refused;
        break;
      }
      case 'transfer': {
        const r = await stock.recordMovement(staff, {
          ...base,
          product_id: state.ingredients[cmd.product]!,
          location_id: state.locations[cmd.from]!,
          to_location_id: state.locations[1 - cmd.from]!,
          type: 'TRANSFER_OUT',
          quantity: cmd.qty,
        });
        for (const m of r.movements) state.booked.add(m.id);
        break;
      }
      case 'waste': {
        const r = await on.changes.write(world.tenantId, (w) => stock.bookWaste(w, { tenantId: world.tenantId, wasteId: newId(), productId: state.ingredients[cmd.product]!, quantity: cmd.qty, reason: 'bederf' }));
        state.booked.add(r.movement.id);
        break;
      }
      case 'default':
        await stock.updateLocation(world.tenantId, state.locations[cmd.location]!, { is_default: true });
        break;
      case 'serve': {
        // Complete an order already taken (either side's), or take a new one and complete it.
        const actor = { tenantId: world.tenantId, userId: null, via: 'pos' as const };
        let id = cmd.order !== null && world.orders.length ? world.orders[cmd.order % world.orders.length]! : undefined;
        if (!id) {
          id = (await on.services.orders.create(actor, { items: [{ product_id: world.products[cmd.dish]!, quantity: cmd.qty }] })).order.id;
          world.orders.push(id);
        }
        await on.services.orders.setStatus(actor, id, 'completed');
        break;
      }
      case 'recipe':
        await stock.putRecipe(world.tenantId, world.products[cmd.dish]!, { ingredients: [{ product_id: state.ingredients[0]!, quantity: cmd.qty }] });
        break;
    }
  },

  async check(state: State, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void> {
    const ledger = async (s: SideHandle) =>
      (await s.db.selectFrom('stock_movements').selectAll().where('tenant_id', '=', world.tenantId).orderBy('id').execute()).map((r) => ({
        ...r,
        quantity_milli: Number(r.quantity_milli),
        counted_milli: r.counted_milli === null ? null : Number(r.counted_milli),
        level_after_milli: Number(r.level_after_milli),
      }));
    const cloudRows = await ledger(sides.cloud);
    const applianceRows = await ledger(sides.appliance);
    const union = new Map([...cloudRows, ...applianceRows].map((r) => [r.id, r]));
    // Every side holds the whole union, and nothing a side booked was lost.
    expect(cloudRows.map((r) => r.id)).toEqual([...union.keys()].sort());
    expect(applianceRows.map((r) => r.id)).toEqual([...union.keys()].sort());
    for (const id of state.booked) expect(union.has(id)).toBe(true);
    // Consequences exist once per cause: their ids are derived from it.
    for (const r of union.values()) {
      if (r.source === 'sale') expect(r.id).toBe(saleMovementId(r.ref_id!, r.product_id));
      if (r.source === 'waste') expect(r.id).toBe(wasteMovementId(r.ref_id!, r.product_id));
    }
    // Every side's level = the replay of the union.
    const pairs = new Map<string, typeof cloudRows>();
    for (const r of union.values()) {
      const k = `${r.product_id}/${r.location_id}`;
      pairs.set(k, [...(pairs.get(k) ?? []), r]);
    }
    for (const s of [sides.cloud, sides.appliance]) {
      const levels = await s.db.selectFrom('stock_levels').selectAll().where('tenant_id', '=', world.tenantId).execute();
      const stored = new Map(levels.map((l) => [`${l.product_id}/${l.location_id}`, Number(l.quantity_milli)]));
      for (const [k, rows] of pairs) expect(stored.get(k) ?? 0, `${s.side} ${k}`).toBe(replayLevel(rows));
      expect((await s.services.stock.verify({ tenantId: world.tenantId, repair: false })).differences).toEqual([]);
      // Exactly one live default location on each side (when there are locations).
      const locs = await s.services.stock.listLocations(world.tenantId);
      if (locs.length) expect(locs.filter((l) => l.is_default)).toHaveLength(1);
    }
  },
});
