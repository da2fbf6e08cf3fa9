import fc from 'fast-check';
import { expect } from 'vitest';
import type { Db } from '../../../server/db/connection.js';
import { rebuildAccounts } from '../../../server/modules/loyalty/loyalty.ledger.js';
import { earnId, pointsForOrder } from '../../../server/modules/loyalty/loyalty.rules.js';
import { isAppError } from '../../../server/shared/errors.js';
import { model, type SideHandle, type World } from './types.js';

/**
 * Loyalty's part of the sync convergence property (issue 9, docs/loyalty.md): earns on paid orders
 * (an order may be paid on both sides), redemptions on either side (the appliance spends only its
 * lease, the cloud only balance minus leases), the same phone registered on both sides (merged by
 * the cloud), allowance changes with the lease jobs, and erasures. Invariants: no balance ever below
 * zero on either side (checked after every command), both sides equal after the quiet sync (the
 * test compares the replicated tables; here also the derived accounts), every point earned at most
 * once per order and exactly once for every order that was paid, every redemption present once.
 */

/** Phones in different notations; index i of each list is the same guest. */
export const PHONES = [
  ['06 12345678', '+31612345678', '0031612345678'],
  ['+32 470 12 34 56', '0032470123456', '+32470123456'],
] as const;
const E164 = ['+31612345678', '+32470123456'];

export type LoyaltyCmd =
  | { k: 'earn'; phone: number; notation: number; burgers: number }
  | { k: 'payAgain'; order: number }
  | { k: 'redeem'; phone: number; points: number }
  | { k: 'upsert'; phone: number; notation: number; name: string }
  | { k: 'allowance'; value: number }
  | { k: 'leaseJob' }
  | { k: 'erase'; phone: number };

export interface LoyaltyState {
  /** Orders made by this model, with the points they earn once paid. */
  orders: Array<{ id: string; points: number }>;
  /** Orders whose payment succeeded (on either side). */
  paid: Set<string>;
  /** Redemptions that succeeded: id → points. */
  redeemed: Map<string, number>;
  /** Customer ids erased somewhere. */
  erased: Set<string>;
}

const phone = fc.nat(PHONES.length - 1);
const notation = fc.nat(2);

export const loyaltyCommands: Array<{ weight: number; arbitrary: fc.Arbitrary<LoyaltyCmd> }> = [
  { weight: 3, arbitrary: fc.record({ k: fc.constant('earn' as const), phone, notation, burgers: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('payAgain' as const), order: fc.nat(7) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('redeem' as const), phone, points: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('upsert' as const), phone, notation, name: fc.constantFrom('Anna', 'Bram', 'Cees') }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('allowance' as const), value: fc.constantFrom(0, 20, 100, 500) }) },
  { weight: 1, arbitrary: fc.constant({ k: 'leaseJob' as const }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('erase' as const), phone }) },
];

/** Per customer group on one side: the sum of what every holder may spend (the balance), which must never be below zero. */
export async function expectNoNegativeBalance(db: Db, tenantId: string, where: string): Promise<void> {
  const rows = await db.selectFrom('loyalty_accounts').select(['customer_id', 'points']).where('tenant_id', '=', tenantId).execute();
  const sums = new Map<string, number>();
  for (const r of rows) sums.set(r.customer_id, (sums.get(r.customer_id) ?? 0) + Number(r.points));
  for (const [customer, sum] of sums) expect(sum, `${where}: balance of ${customer}`).toBeGreaterThanOrEqual(0);
}

async function accounts(db: Db, tenantId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of await db.selectFrom('loyalty_accounts').select(['customer_id', 'holder', 'points']).where('tenant_id', '=', tenantId).execute()) {
    if (Number(r.points) !== 0) out[`${r.customer_id}/${r.holder}`] = Number(r.points);
  }
  return out;
}

export async function runLoyalty(cmd: LoyaltyCmd, on: SideHandle, state: LoyaltyState, world: World): Promise<void> {
  const who = { tenantId: world.tenantId, userId: null };
  const loyalty = on.services.loyalty;
  try {
    switch (cmd.k) {
      case 'earn': {
        const actor = { tenantId: world.tenantId, userId: null, via: on.side === 'cloud' ? ('web' as const) : ('pos' as const) };
        const { order } = await on.services.orders.create(actor, { items: [{ product_id: world.products[1]!, quantity: cmd.burgers }], customer: { phone: PHONES[cmd.phone]![cmd.notation]! } });
        state.orders.push({ id: order.id, points: pointsForOrder(order.total_cents, (await on.services.tenants.getSettings(world.tenantId)).loyalty_points_per_euro) });
        if (!world.orders.includes(order.id)) world.orders.push(order.id);
        await on.services.orders.markPaid(actor, order.id);
        state.paid.add(order.id);
        break;
      }
      case 'payAgain': {
        // The same order paid on this side too (both sides of an outage may mark it paid).
        const o = state.orders[cmd.order % Math.max(1, state.orders.length)];
        if (!o) break;
        await on.services.orders.markPaid({ tenantId: world.tenantId, userId: null, via: 'pos' }, o.id);
        state.paid.add(o.id);
        break;
      }
      case 'redeem': {
        const c = await loyalty.balanceByPhone(world.tenantId, E164[cmd.phone]!);
        const r = await loyalty.redeem(who, { customer_id: c.customer_id, points: cmd.points });
        state.redeemed.set(r.transaction.id, cmd.points);
        break;
      }
      case 'upsert':
        await loyalty.upsert(who, { phone: PHONES[cmd.phone]![cmd.notation]!, name: cmd.name });
        break;
      case 'allowance':
        await on.services.tenants.patchSettings(world.tenantId, { loyalty_offline_allowance: cmd.value });
        break;
      case 'leaseJob':
        if (on.side === 'cloud') await loyalty.renewLeases(world.tenantId);
        else await loyalty.returnExcess(world.tenantId);
        break;
      case 'erase': {
        const c = await loyalty.balanceByPhone(world.tenantId, E164[cmd.phone]!);
        await loyalty.erase(who, c.customer_id);
        state.erased.add(c.customer_id);
        break;
      }
    }
  } finally {
    // No balance is ever below zero, on either side, after any step.
    await expectNoNegativeBalance(world.cloud.handle.db, world.tenantId, 'cloud');
    await expectNoNegativeBalance(world.appliance.db, world.tenantId, 'appliance');
  }
}

export async function checkLoyalty(state: LoyaltyState, world: World, sides: { cloud: SideHandle; appliance: SideHandle }): Promise<void> {
  const t = world.tenantId;
  const cloud = sides.cloud.db;
  const appliance = sides.appliance.db;
  // Derived accounts: equal on both sides, equal to the ledger's replay, never negative.
  const a = await accounts(appliance, t);
  const c = await accounts(cloud, t);
  expect(a).toEqual(c);
  const rebuilt: Record<string, number> = {};
  for (const [customer, holders] of await rebuildAccounts(cloud, t)) for (const [h, p] of holders) if (p !== 0) rebuilt[`${customer}/${h}`] = p;
  expect(c).toEqual(rebuilt);
  await expectNoNegativeBalance(cloud, t, 'cloud (quiet)');
  await expectNoNegativeBalance(appliance, t, 'appliance (quiet)');
  for (const [k, v] of Object.entries(c)) expect(v, k).toBeGreaterThanOrEqual(0);
  // Earned once per order: exactly one earn row (with the derived id) for every paid order, none twice.
  const earns = await cloud.selectFrom('loyalty_transactions').select(['id', 'order_id', 'points']).where('tenant_id', '=', t).where('type', '=', 'earn').execute();
  const perOrder = new Map<string, number>();
  for (const e of earns) perOrder.set(e.order_id!, (perOrder.get(e.order_id!) ?? 0) + 1);
  for (const n of perOrder.values()) expect(n).toBe(1);
  for (const o of state.orders) {
    if (!state.paid.has(o.id) || o.points <= 0) continue;
    const row = earns.find((e) => e.order_id === o.id);
    expect(row, `earn of ${o.id}`).toBeDefined();
    expect(row!.id).toBe(earnId(o.id));
  }
  // Spent once: every successful redemption is in both ledgers exactly once, with its points.
  for (const [id, points] of state.redeemed) {
    for (const db of [cloud, appliance]) {
      const rows = await db.selectFrom('loyalty_transactions').select('points').where('id', '=', id).execute();
      expect(rows.map((r) => Number(r.points))).toEqual([-points]);
    }
  }
  // One live customer per phone after the quiet sync (duplicates merged), on both sides.
  for (const db of [cloud, appliance]) {
    const live = await db.selectFrom('loyalty_customers').select(['phone']).where('tenant_id', '=', t).where('merged_into', 'is', null).where('erased_at', 'is', null).execute();
    const phones = live.map((r) => r.phone);
    expect(new Set(phones).size).toBe(phones.length);
  }
  // Erased stays erased: no personal fields on any record of an erased group.
  for (const db of [cloud, appliance]) {
    const rows = await db.selectFrom('loyalty_customers').selectAll().where('tenant_id', '=', t).where('erased_at', 'is not', null).execute();
    for (const r of rows) expect([r.phone, r.name, r.email]).toEqual([null, null, null]);
    for (const id of state.erased) {
      const r = await db.selectFrom('loyalty_customers').select(['phone', 'erased_at']).where('id', '=', id).executeTakeFirst();
      if (r) expect(r).toEqual({ phone: null, erased_at: expect.any(String) });
    }
  }
}

export const expectedRefusal = (e: unknown) => isAppError(e) && ['CONFLICT', 'NOT_FOUND', 'VALIDATION'].includes(e.code);

/** Each guest starts with points earned in the cloud (four burgers: 58 points), so redemptions have something to spend. */
export async function initLoyalty(world: World): Promise<LoyaltyState> {
  const state: LoyaltyState = { orders: [], paid: new Set(), redeemed: new Map(), erased: new Set() };
  const cloud: SideHandle = { side: 'cloud', services: world.cloud.services, changes: world.cloud.changes, db: world.cloud.handle.db };
  for (let p = 0; p < PHONES.length; p++) await runLoyalty({ k: 'earn', phone: p, notation: 0, burgers: 4 }, cloud, state, world);
  return state;
}

export const loyaltyModel = model<LoyaltyCmd, LoyaltyState>({
  name: 'loyalty',
  commands: loyaltyCommands,
  init: initLoyalty,
  run: runLoyalty,
  check: checkLoyalty,
});
