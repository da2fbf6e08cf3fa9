import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../server/shared/clock.js';
import { stockSync } from '../../../../server/modules/stock/stock.sync.js';
import { replayLevel } from '../../../../server/modules/stock/stock.rules.js';
import fc from 'fast-check';
import { RejectOp, type SyncChange } from '../../../../sync/types.js';
import { fcRuns } from '../../../helpers/fc-runs.js';
import { TxBatch } from '../../../../sync/apply-helpers.js';
import { createAppliance, FakeTransport, quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';
import { stockRepository } from '../../../../server/modules/stock/stock.repository.js';
import type { TestApp } from '../../../helpers/app.js';
import type { Runtime } from '../../../../server/runtime.js';

/** Stock across the appliance and the cloud (docs/stock.md "Offline"). */
async function joined() {
  const clock = new ManualClock();
  const nodes = await twoNodes({ clock });
  const { cloud, tenant, appliance } = nodes;
  const { menu, stock } = cloud.services;
  const beef = await menu.createProduct(tenant.id, { name: 'Rundergehakt', price_cents: 0, cost_cents: 1200, unit: 'kg', on_menu: false });
  const buns = await menu.createProduct(tenant.id, { name: 'Hamburgerbroodje', price_cents: 0, unit: 'stuk', on_menu: false });
  const burger = await menu.createProduct(tenant.id, { name: 'Burger', price_cents: 1450 });
  const koelcel = await stock.createLocation(tenant.id, { name: 'Koelcel' });
  const bar = await stock.createLocation(tenant.id, { name: 'Bar' });
  await stock.putRecipe(tenant.id, burger.id, { ingredients: [{ product_id: beef.id, quantity: 0.18 }, { product_id: buns.id, quantity: 1 }] });
  await stock.recordMovement({ tenantId: tenant.id, userId: null }, move(beef.id, koelcel.id, 'INTAKE', 10));
  await stock.recordMovement({ tenantId: tenant.id, userId: null }, move(buns.id, koelcel.id, 'INTAKE', 5));
  await appliance.engine.syncOnce(); // bootstrap: menu, locations, recipe, ledger
  const staff = { tenantId: tenant.id, userId: null };
  const actor = (via: 'pos' | 'web' = 'pos') => ({ tenantId: tenant.id, userId: null, via });
  return { ...nodes, clock, beef, buns, burger, koelcel, bar, staff, actor };
}

const move = (product_id: string, location_id: string, type: 'INTAKE' | 'REMOVAL' | 'ADJUSTMENT' | 'ADDITION', quantity: number) => ({
  product_id,
  location_id,
  type,
  quantity,
  to_location_id: null,
  from_location_id: null,
  note: null,
  reason: null,
});

/**
 * The flush check's harness (issue 29): applies push ops of stock movements in one cloud transaction, in a
 * batch (each staff removal's below-zero check deferred to the flush) or op by op, returns the answers, the
 * ledger and the levels, and rolls back. `extra` joins the batch's changes (a product rename makes the batch
 * check each removal at once, as every batch did before).
 */
function flushHarness({ cloud, tenant, beef, buns, koelcel, bar }: Awaited<ReturnType<typeof joined>>) {
  const descriptor = stockSync.find((d) => d.entity === 'stock')!;
  const pairs = [
    [buns.id, koelcel.id],
    [beef.id, koelcel.id],
    [buns.id, bar.id],
  ] as const;
  // The levels of the two koelcel pairs were booked at the clock's start: earlier rows replay, later ones append; the bar has no level row.
  const times = ['2026-11-20T11:00:00.000Z', '2026-11-20T12:01:00.000Z', '2026-11-20T12:02:00.000Z', '2026-11-20T12:03:00.000Z', '2026-11-20T12:04:00.000Z'];
  const mv = fc.record({ pair: fc.integer({ min: 0, max: 2 }), kind: fc.constantFrom('REMOVAL', 'REMOVAL', 'INTAKE', 'ADJUSTMENT', 'SALE'), qty: fc.integer({ min: 1, max: 4 }), at: fc.integer({ min: 0, max: 4 }), id: fc.integer({ min: 0, max: 40 }) });
  const ops = fc.array(fc.array(mv, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 8 });
  const rowOf = (m: { pair: number; kind: string; qty: number; at: number; id: number }) => ({
    id: `0190a0a0-0000-7000-8000-${String(m.id).padStart(12, '0')}`,
    product_id: pairs[m.pair]![0],
    location_id: pairs[m.pair]![1],
    type: m.kind === 'SALE' ? 'SALE' : m.kind,
    quantity_milli: m.kind === 'INTAKE' ? m.qty * 1000 : m.kind === 'ADJUSTMENT' ? 0 : -m.qty * 1000,
    counted_milli: m.kind === 'ADJUSTMENT' ? m.qty * 1000 : null,
    level_after_milli: 0,
    transfer_id: null,
    source: m.kind === 'SALE' ? 'sale' : 'staff',
    ref_id: null,
    reason: null,
    note: null,
    user_id: null,
    booked_at: times[m.at]!,
    created_at: times[m.at]!,
  });
  class Rollback extends Error {
    constructor(readonly seen: unknown) {
      super('rollback');
    }
  }
  /** Applies the ops in one transaction (in a batch or op by op), returns the answers, the ledger and the levels, and rolls back. */
  const run = async (movements: Array<Array<ReturnType<typeof rowOf>>>, how: 'batch' | 'direct', extra: SyncChange[] = []) => {
    const changes: SyncChange[] = movements.map((list, i) => ({ op_id: `op-${i}`, tenant_id: tenant.id, origin: 'dev', entity: 'stock', entity_id: list[0]!.id, kind: 'stock.moved', payload: { movements: list }, created_at: list[0]!.created_at }));
    try {
      await cloud.handle.db.transaction().execute(async (trx) => {
        const batch = how === 'batch' ? new TxBatch([...changes, ...extra]) : undefined;
        const outcomes: Array<{ payload?: unknown; conflict?: string } | string> = [];
        for (const c of changes) {
          try {
            outcomes.push((await descriptor.apply(trx, c, { side: 'cloud', mode: 'merge', tenantId: tenant.id, now: '2026-11-20T13:00:00.000Z', ...batch?.context })) ?? {});
          } catch (err) {
            outcomes.push(`rejected: ${(err as Error).message}`);
          }
        }
        await batch?.flush(trx);
        const answers = outcomes.map((o) => (typeof o === 'string' ? o : JSON.parse(JSON.stringify({ payload: o.payload, conflict: o.conflict ?? null }))));
        const ledger = await trx.selectFrom('stock_movements').selectAll().where('tenant_id', '=', tenant.id).orderBy('id').execute();
        const levels = await trx.selectFrom('stock_levels').select(['product_id', 'location_id', 'quantity_milli', 'last_booked_at', 'last_id', 'updated_at']).where('tenant_id', '=', tenant.id).orderBy('product_id').orderBy('location_id').execute();
        throw new Rollback({ answers, ledger: ledger.map((r) => ({ ...r, quantity_milli: Number(r.quantity_milli), counted_milli: r.counted_milli === null ? null : Number(r.counted_milli), level_after_milli: Number(r.level_after_milli) })), levels: levels.map((l) => ({ ...l, quantity_milli: Number(l.quantity_milli) })) });
      });
    } catch (err) {
      if (err instanceof Rollback) return err.seen;
      throw err;
    }
    throw new Error('not rolled back');
  };
  const rename: SyncChange = { op_id: 'rename', tenant_id: tenant.id, origin: 'dev', entity: 'product', entity_id: buns.id, kind: 'product.updated', payload: {}, created_at: times[0]! };
  return { ops, rowOf, run, rename };
}

/** A side's level of a product at a location, and the replay of that side's ledger (they must agree). */
async function level(rt: Runtime | TestApp, tenantId: string, productId: string, locationId: string) {
  const list = await rt.services.stock.list(tenantId);
  const shown = list.data.find((i) => i.product_id === productId)?.locations.find((l) => l.location_id === locationId);
  const rows = await rt.handle.db.selectFrom('stock_movements').selectAll().where('tenant_id', '=', tenantId).where('product_id', '=', productId).where('location_id', '=', locationId).execute();
  const replay = replayLevel(rows.map((r) => ({ ...r, quantity_milli: Number(r.quantity_milli), counted_milli: r.counted_milli === null ? null : Number(r.counted_milli) }))) / 1000;
  expect(shown?.quantity ?? 0).toBe(replay);
  return { quantity: shown?.quantity ?? 0, below_zero: shown?.below_zero ?? false };
}

describe('stock sync', () => {
  it('the appliance bootstraps locations, recipes and the ledger, with the same levels', async () => {
    const { cloud, tenant, appliance, beef, koelcel } = await joined();
    expect(await level(appliance, tenant.id, beef.id, koelcel.id)).toEqual({ quantity: 10, below_zero: false });
    expect(await appliance.services.stock.listLocations(tenant.id)).toEqual(await cloud.services.stock.listLocations(tenant.id));
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a new appliance copies the ledger in booking order: every snapshot page appends to its levels (a pair replayed only when first seen), levels equal to the cloud’s', async () => {
    const { cloud, tenant, beef, buns, koelcel, bar, burger, actor, staff, clock } = await joined();
    // Consumption rows have ids derived from their order (not in time order), and bookings at other
    // locations interleave: in id order the pages would go back and forth in time.
    for (let i = 0; i < 6; i++) {
      clock.advance(60_000);
      const { order } = await cloud.services.orders.create(actor('web'), { items: [{ product_id: burger.id, quantity: 1 }] });
      await cloud.services.orders.setStatus(actor('web'), order.id, 'completed');
      await cloud.services.stock.recordMovement(staff, move(i % 2 ? beef.id : buns.id, bar.id, 'INTAKE', 1));
    }
    await cloud.services.stock.recordMovement(staff, move(beef.id, koelcel.id, 'ADJUSTMENT', 7));
    const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Nieuwe kassa');
    let replays = 0;
    const replayPair = stockRepository.replayPair;
    stockRepository.replayPair = (...args) => {
      replays += 1;
      return replayPair.apply(stockRepository, args);
    };
    try {
      const fresh = await createAppliance(new FakeTransport(() => cloud, sync_key), { clock, snapshotLimit: 3 });
      await fresh.engine.syncOnce();
      // Only a pair's first page (no level yet: the replay of its empty ledger), never again.
      expect(replays).toBeLessThanOrEqual(4);
      for (const [product, location] of [[beef.id, koelcel.id], [buns.id, koelcel.id], [beef.id, bar.id], [buns.id, bar.id]] as const) {
        expect(await level(fresh, tenant.id, product, location)).toEqual(await level(cloud, tenant.id, product, location));
      }
      expect((await level(fresh, tenant.id, beef.id, koelcel.id)).quantity).toBe(7);
      expect(await replicatedState(fresh, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    } finally {
      stockRepository.replayPair = replayPair;
    }
  });

  it('movements made offline on the appliance and online in the cloud add up (the union of both ledgers)', async () => {
    const { cloud, tenant, appliance, transport, beef, koelcel, bar, staff } = await joined();
    transport.offline = true;
    await appliance.services.stock.recordMovement(staff, move(beef.id, koelcel.id, 'REMOVAL', 1.5));
    await appliance.services.stock.recordMovement(staff, { ...move(beef.id, koelcel.id, 'ADDITION', 0), type: 'TRANSFER_OUT', quantity: 2, to_location_id: bar.id });
    await cloud.services.stock.recordMovement(staff, move(beef.id, koelcel.id, 'INTAKE', 4));
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      expect((await level(side, tenant.id, beef.id, koelcel.id)).quantity).toBe(10.5);
      expect((await level(side, tenant.id, beef.id, bar.id)).quantity).toBe(2);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('an order completed on the appliance books its consumption there; it arrives in the cloud exactly once, and completing it again books nothing', async () => {
    const { cloud, tenant, appliance, beef, buns, burger, koelcel, actor } = await joined();
    const { order } = await appliance.services.orders.create(actor(), { items: [{ product_id: burger.id, quantity: 2 }] });
    await appliance.services.orders.setStatus(actor(), order.id, 'completed');
    await quiesce(appliance);
    // The cloud ran no hook: it has the appliance's rows, once.
    const onCloud = await cloud.handle.db.selectFrom('stock_movements').selectAll().where('tenant_id', '=', tenant.id).where('source', '=', 'sale').execute();
    expect(onCloud.map((m) => [m.product_id, Number(m.quantity_milli)]).sort()).toEqual([[beef.id, -360], [buns.id, -2000]].sort());
    await cloud.services.orders.setStatus(actor('web'), order.id, 'completed'); // a no-op: already completed
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      expect((await level(side, tenant.id, beef.id, koelcel.id)).quantity).toBe(9.64);
      expect((await level(side, tenant.id, buns.id, koelcel.id)).quantity).toBe(3);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('an order completed in the cloud arrives on the appliance with its consumption, booked once', async () => {
    const { cloud, tenant, appliance, beef, koelcel, burger, actor } = await joined();
    const { order } = await cloud.services.orders.create(actor('web'), { items: [{ product_id: burger.id, quantity: 1 }] });
    await cloud.services.orders.setStatus(actor('web'), order.id, 'completed');
    await quiesce(appliance);
    expect((await appliance.services.orders.get(tenant.id, order.id)).status).toBe('completed');
    expect((await level(appliance, tenant.id, beef.id, koelcel.id)).quantity).toBe(9.82);
    const sales = await appliance.handle.db.selectFrom('stock_movements').select('id').where('tenant_id', '=', tenant.id).where('source', '=', 'sale').execute();
    expect(sales).toHaveLength(2);
  });

  it('the same order completed on both sides during an outage is consumed once: one row per ingredient, the same on both sides', async () => {
    const { cloud, tenant, appliance, transport, clock, beef, buns, burger, koelcel, actor } = await joined();
    const { order } = await cloud.services.orders.create(actor('web'), { items: [{ product_id: burger.id, quantity: 3 }] });
    await quiesce(appliance);
    transport.offline = true;
    clock.advance(60_000);
    await appliance.services.orders.setStatus(actor(), order.id, 'completed');
    clock.advance(60_000);
    await cloud.services.orders.setStatus(actor('web'), order.id, 'completed');
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance] as const) {
      const sales = await side.handle.db.selectFrom('stock_movements').selectAll().where('tenant_id', '=', tenant.id).where('source', '=', 'sale').execute();
      expect(sales).toHaveLength(2);
      expect((await level(side, tenant.id, beef.id, koelcel.id)).quantity).toBe(9.46);
      expect((await level(side, tenant.id, buns.id, koelcel.id)).quantity).toBe(2);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('two sides that each took the last units offline end below zero after the merge: flagged, and a conflict is recorded', async () => {
    const { cloud, tenant, appliance, transport, buns, koelcel, staff } = await joined();
    transport.offline = true;
    // Both tablets see 5 and take 5: each side alone is right.
    expect((await appliance.services.stock.recordMovement(staff, move(buns.id, koelcel.id, 'REMOVAL', 5))).levels[0]!.quantity).toBe(0);
    expect((await cloud.services.stock.recordMovement(staff, move(buns.id, koelcel.id, 'REMOVAL', 5))).levels[0]!.quantity).toBe(0);
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      expect(await level(side, tenant.id, buns.id, koelcel.id)).toEqual({ quantity: -5, below_zero: true });
      expect((await side.services.stock.list(tenant.id)).data.find((i) => i.product_id === buns.id)).toMatchObject({ total: -5, below_zero: true });
    }
    const conflicts = await cloud.handle.db.selectFrom('sync_ops').selectAll().where('tenant_id', '=', tenant.id).where('status', '=', 'conflict').execute();
    expect(conflicts).toHaveLength(1);
    expect(JSON.parse(conflicts[0]!.result).reason).toMatch(/^Voorraad van Hamburgerbroodje op 'Koelcel' staat na samenvoegen op -5 stuk: beide kanten namen tijdens de storing de laatste voorraad/);
    const status = await appliance.services.sync.status(tenant.id);
    expect(status.conflicts).toBe(1);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('an ADJUSTMENT made offline: the count was true at its moment; the other side’s earlier movements are in it, its later ones come on top', async () => {
    const { cloud, tenant, appliance, transport, clock, beef, koelcel, staff } = await joined();
    transport.offline = true;
    clock.advance(60_000);
    await cloud.services.stock.recordMovement(staff, move(beef.id, koelcel.id, 'REMOVAL', 3)); // 10 → 7 (the cloud)
    clock.advance(60_000);
    // The cook counts 8 kg on the appliance (which still thinks 10): the 3 kg were already gone, 1 kg more is unaccounted for.
    const count = await appliance.services.stock.recordMovement(staff, move(beef.id, koelcel.id, 'ADJUSTMENT', 8));
    expect(count.movements[0]).toMatchObject({ quantity: -2, counted: 8 });
    clock.advance(60_000);
    await cloud.services.stock.recordMovement(staff, move(beef.id, koelcel.id, 'REMOVAL', 2)); // after the count
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) expect((await level(side, tenant.id, beef.id, koelcel.id)).quantity).toBe(6);
    // stock verify agrees with the maintained levels on both sides.
    expect((await cloud.services.stock.verify({ tenantId: tenant.id, repair: false })).differences).toEqual([]);
    expect((await appliance.services.stock.verify({ tenantId: tenant.id, repair: false })).differences).toEqual([]);
  });

  it('locations made the default on both sides offline end with one default, the same on both sides; recipes are last-writer-wins', async () => {
    const { cloud, tenant, appliance, transport, bar, koelcel, burger, beef, buns } = await joined();
    transport.offline = true;
    const cellar = await appliance.services.stock.createLocation(tenant.id, { name: 'Kelder', is_default: true });
    await cloud.services.stock.updateLocation(tenant.id, bar.id, { is_default: true });
    await cloud.services.stock.putRecipe(tenant.id, burger.id, { ingredients: [{ product_id: beef.id, quantity: 0.2 }] });
    await appliance.services.stock.putRecipe(tenant.id, burger.id, { ingredients: [{ product_id: buns.id, quantity: 2 }] });
    transport.offline = false;
    await quiesce(appliance);
    const a = await appliance.services.stock.listLocations(tenant.id);
    expect(a).toEqual(await cloud.services.stock.listLocations(tenant.id));
    expect(a.filter((l) => l.is_default).map((l) => l.id)).toEqual([cellar.id]); // the appliance's change reached the cloud last
    expect(a.find((l) => l.id === koelcel.id)!.is_default).toBe(false);
    expect((await cloud.services.stock.getRecipe(tenant.id, burger.id)).ingredients.map((i) => i.product_id)).toEqual([buns.id]);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a pushed movement is validated like a request: bad payloads and another restaurant’s ids are rejected', async () => {
    const { cloud, tenant, beef, koelcel } = await joined();
    const other = await cloud.seedTenant();
    const theirs = await cloud.services.menu.createProduct(other.id, { name: 'Kaas', price_cents: 0 });
    const descriptor = stockSync.find((d) => d.entity === 'stock')!;
    const row = {
      id: '0190a0a0-0000-7000-8000-0000000000cc',
      product_id: beef.id,
      location_id: koelcel.id,
      type: 'REMOVAL',
      quantity_milli: -1000,
      counted_milli: null,
      level_after_milli: 0,
      transfer_id: null,
      source: 'staff',
      ref_id: null,
      reason: null,
      note: null,
      user_id: null,
      booked_at: '2026-11-20T12:00:00.000Z',
      created_at: '2026-11-20T12:00:00.000Z',
    };
    const apply = (movements: unknown[]) =>
      cloud.handle.db.transaction().execute((trx) =>
        descriptor.apply(trx, { op_id: 'x', tenant_id: tenant.id, origin: 'dev', entity: 'stock', entity_id: row.id, kind: 'stock.moved', payload: { movements }, created_at: row.created_at }, { side: 'cloud', mode: 'merge', tenantId: tenant.id, now: row.created_at }),
      );
    for (const bad of [{ ...row, quantity_milli: 1.5 }, { ...row, type: 'STEAL' }, { ...row, note: 'x'.repeat(501) }, { ...row, booked_at: 'gisteren' }, { ...row, id: 'abc' }]) {
      await expect(apply([bad])).rejects.toBeInstanceOf(RejectOp);
    }
    await expect(apply([{ ...row, product_id: theirs.id }])).rejects.toThrow(/bestaat niet bij dit restaurant/);
    // The same inside a batch (a push chunk checks each reference once, in bulk).
    const batch = new TxBatch();
    await expect(
      cloud.handle.db.transaction().execute((trx) =>
        descriptor.apply(trx, { op_id: 'y', tenant_id: tenant.id, origin: 'dev', entity: 'stock', entity_id: row.id, kind: 'stock.moved', payload: { movements: [{ ...row, location_id: theirs.id }] }, created_at: row.created_at }, { side: 'cloud', mode: 'merge', tenantId: tenant.id, now: row.created_at, ...batch.context }),
      ),
    ).rejects.toThrow(/De locatie bestaat niet bij dit restaurant/);
    await expect(apply([])).rejects.toBeInstanceOf(RejectOp);
    expect(await cloud.handle.db.selectFrom('stock_movements').select('id').where('id', '=', row.id).execute()).toEqual([]);
    // The good one is applied once, however often it comes.
    await apply([row]);
    await apply([row]);
    expect(await cloud.handle.db.selectFrom('stock_movements').select('id').where('id', '=', row.id).execute()).toHaveLength(1);
    expect((await cloud.services.stock.list(tenant.id)).data.find((i) => i.product_id === beef.id)!.total).toBe(9);
  });

  it('a push chunk checks its staff removals at the flush: the same answers, ledger and levels as when it checked each at once (issue 29)', async () => {
    const { ops, rowOf, run, rename } = flushHarness(await joined());
    let conflicts = 0;
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(ops, async (list) => {
        const movements = list.map((op) => op.map(rowOf));
        // A batch that also renames a product checks each removal at once, as every batch did before.
        const before = (await run(movements, 'batch', [rename])) as { answers: Array<{ conflict?: string | null }> };
        conflicts += before.answers.filter((a) => typeof a === 'object' && a.conflict).length;
        expect(await run(movements, 'batch')).toEqual(before);
        // And op by op (no batch) gives the same, where each movement id stands for one row (not the same id sent with other contents).
        const contents = new Map<string, string>();
        for (const m of movements.flat()) if (!contents.has(m.id)) contents.set(m.id, JSON.stringify(m));
        if (movements.flat().every((m) => contents.get(m.id) === JSON.stringify(m))) {
          compared++;
          expect(await run(movements, 'direct')).toEqual(before);
        }
      }),
      { numRuns: fcRuns({ sqlite: 60, postgres: 25 }) },
    );
    expect(conflicts).toBeGreaterThan(0);
    expect(compared).toBeGreaterThan(0);
  });

  // Cases the property above hardly generates, each of which a wrong shortcut in the flush's one write
  // (StockBatch.writeAtOnce) turns into a different answer: the deferred check must say what the check
  // at once says, and the ledger and levels must be the same.
  it.each([
    {
      name: 'a removal booked before a stock count the level already holds: the count absorbs it, so no conflict (the level is replayed, not appended to)',
      count: 1,
      ops: [[{ pair: 0, kind: 'REMOVAL', qty: 2, at: 0, id: 1 }], [{ pair: 0, kind: 'REMOVAL', qty: 1, at: 1, id: 2 }]],
      conflicts: [false, false],
    },
    {
      name: 'a later op booked before an earlier op of the same pair: each check sees the level right after its own op',
      count: null,
      ops: [[{ pair: 0, kind: 'REMOVAL', qty: 1, at: 3, id: 1 }], [{ pair: 0, kind: 'REMOVAL', qty: 5, at: 2, id: 2 }]],
      conflicts: [false, true],
    },
    {
      name: 'the same removal sent twice in one chunk (a resend): booked and checked once',
      count: null,
      ops: [[{ pair: 0, kind: 'REMOVAL', qty: 3, at: 1, id: 7 }], [{ pair: 0, kind: 'REMOVAL', qty: 3, at: 1, id: 7 }]],
      conflicts: [false, false],
    },
  ])('a push chunk checks its staff removals at the flush: $name', async ({ count, ops, conflicts }) => {
    const fx = await joined();
    // Buns at the koelcel: 5 taken in at the clock's start, then (in the first case) counted at 1 at the same moment.
    if (count !== null) await fx.cloud.services.stock.recordMovement(fx.staff, move(fx.buns.id, fx.koelcel.id, 'ADJUSTMENT', count));
    const { rowOf, run, rename } = flushHarness(fx);
    const movements = ops.map((op) => op.map(rowOf));
    const atOnce = (await run(movements, 'batch', [rename])) as { answers: Array<{ conflict: string | null }> };
    expect(atOnce.answers.map((a) => a.conflict !== null)).toEqual(conflicts);
    expect(await run(movements, 'batch')).toEqual(atOnce);
  });
});
