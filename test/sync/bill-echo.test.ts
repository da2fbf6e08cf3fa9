import { afterEach, describe, expect, it } from 'vitest';
import { floorSync, MERGED_NOTE } from '../../server/modules/floor/floor.sync.js';
import type { ApplyContext, SyncChange } from '../../sync/types.js';
import { seedMenu } from '../helpers/factories.js';
import { seedFloor } from '../server/modules/floor/helpers.js';
import { quiesce, replicatedState, twoNodes } from './harness.js';

/**
 * Bills' echoes (sync/README.md "Echoes", bills): an equal echo of a round, a payment or a close is
 * skipped; a bill's opened (and moved) echo is always adopted, because an adopted open bill of the
 * same table may have merged this node's bill meanwhile and only that echo opens it again.
 */
const billDescriptor = floorSync.find((d) => d.entity === 'bill')!;
const originalApply = billDescriptor.apply;
afterEach(() => {
  billDescriptor.apply = originalApply;
});

/** The appliance's applies of bill changes born on `deviceId`, by mode and kind (`adopt bill.opened`: 1). */
function countOwnApplies(deviceId: string): Map<string, number> {
  const seen = new Map<string, number>();
  billDescriptor.apply = function (this: unknown, trx, change: SyncChange, ctx: ApplyContext) {
    if (ctx.side === 'appliance' && change.origin === deviceId) {
      const key = `${ctx.mode} ${change.kind}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    return originalApply.call(this, trx, change, ctx);
  } as typeof originalApply;
  return seen;
}

/** The engine's rebases (the re-application of own ops after an adoption), by entity id. */
function countRebases(engine: object): Map<string, number> {
  const seen = new Map<string, number>();
  const e = engine as { rebase: (trx: unknown, change: SyncChange, ...rest: unknown[]) => Promise<void> };
  const original = e.rebase;
  e.rebase = function (this: unknown, trx, change, ...rest) {
    seen.set(change.entity_id, (seen.get(change.entity_id) ?? 0) + 1);
    return original.call(this, trx, change, ...rest);
  };
  return seen;
}

async function joined() {
  const nodes = await twoNodes();
  const { cloud, tenant, appliance } = nodes;
  const menu = await seedMenu(cloud, tenant.id);
  const floor = await seedFloor(cloud, tenant.id);
  await appliance.engine.syncOnce(); // bootstrap: tenant, users, menu, zones, tables
  const actor = (via: 'pos' | 'web' = 'pos') => ({ tenantId: tenant.id, userId: null, via });
  const items = [{ product_id: menu.burger.id, quantity: 1 }];
  return { ...nodes, menu, floor, actor, items };
}

describe('sync: echoes of own bills', () => {
  it('a table visit made offline: only the opened echo is adopted; the equal echoes of its rounds, payment and close are not applied again', async () => {
    const { cloud, tenant, appliance, device, transport, floor, actor, items } = await joined();
    transport.offline = true;
    await appliance.services.orders.create(actor(), { items, table_id: floor.t1.id });
    await appliance.services.orders.create(actor(), { items: [...items, ...items], table_id: floor.t1.id });
    const bill = await appliance.services.floor.tableBill(tenant.id, floor.t1.id);
    await appliance.services.floor.payBill(actor(), bill.id, { amount_cents: 1450 * 3 });
    transport.offline = false;
    const applies = countOwnApplies(device.id);
    await quiesce(appliance);
    // The cloud recorded every op as sent (the pull's bare echoes): nothing but the opened echo is adopted.
    const own = await cloud.handle.db.selectFrom('change_log').select(['kind', 'as_sent']).where('entity', '=', 'bill').where('entity_id', '=', bill.id).orderBy('seq').execute();
    expect(own.map((r) => [r.kind, Number(r.as_sent)])).toEqual([
      ['bill.opened', 1],
      ['bill.round_added', 1],
      ['bill.round_added', 1],
      ['bill.payment_recorded', 1],
      ['bill.closed', 1],
    ]);
    expect([...applies.entries()].filter(([k]) => k.startsWith('adopt '))).toEqual([['adopt bill.opened', 1]]);
    for (const side of [cloud, appliance]) expect(await side.services.floor.getBill(tenant.id, bill.id)).toMatchObject({ status: 'closed', close_reason: 'paid' });
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('echoes the cloud changed (a bill merged into the one it knew) are adopted, the later own ops re-applied on top; both sides identical', async () => {
    const { cloud, tenant, appliance, device, transport, floor, actor, items } = await joined();
    transport.offline = true;
    await appliance.services.orders.create(actor(), { items, table_id: floor.t2.id });
    const local = await appliance.services.floor.tableBill(tenant.id, floor.t2.id);
    // Paid in full here: a payment, then the close.
    await appliance.services.floor.payBill(actor(), local.id, { amount_cents: 1450 });
    await cloud.services.orders.create(actor('web'), { items: [...items, ...items], table_id: floor.t2.id });
    const known = await cloud.services.floor.tableBill(tenant.id, floor.t2.id);
    transport.offline = false;
    const applies = countOwnApplies(device.id);
    const rebased = countRebases(appliance.engine);
    await quiesce(appliance);
    // The cloud merged the opened bill (and so answered the close with the merged row): both echoes carry the cloud's state.
    const recorded = await cloud.handle.db.selectFrom('change_log').select(['kind', 'as_sent']).where('entity', '=', 'bill').where('entity_id', '=', local.id).orderBy('seq').execute();
    expect(recorded.map((r) => [r.kind, Number(r.as_sent)])).toEqual([
      ['bill.opened', 0],
      ['bill.round_added', 1],
      ['bill.payment_recorded', 1],
      ['bill.closed', 0],
    ]);
    expect(applies.get('adopt bill.opened')).toBe(1);
    expect(applies.get('adopt bill.closed')).toBe(1);
    expect(applies.get('adopt bill.round_added')).toBeUndefined();
    expect(applies.get('adopt bill.payment_recorded')).toBeUndefined();
    // The opened echo's adoption re-applied the bill's later own ops (rebase, merge mode).
    expect(applies.get('merge bill.payment_recorded')).toBeGreaterThanOrEqual(1);
    expect(applies.get('merge bill.closed')).toBeGreaterThanOrEqual(1);
    // The close was this bill's last own op: its adoption has nothing to re-apply, and does not look.
    expect(rebased.get(local.id)).toBe(1);
    for (const side of [cloud, appliance]) {
      expect(await side.services.floor.getBill(tenant.id, local.id)).toMatchObject({ status: 'merged', merged_into: known.id, conflict: MERGED_NOTE });
      const view = await side.services.floor.tableBill(tenant.id, floor.t2.id);
      expect(view).toMatchObject({ id: known.id, total_cents: 1450 * 3, paid_cents: 1450, open_cents: 1450 * 2 });
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('another bill of the table opened and closed while this one waited: its adoption merges this bill here, and only the adopted opened echo opens it again', async () => {
    const { cloud, tenant, appliance, device, transport, floor, actor, items } = await joined();
    transport.offline = true;
    // Offline: a bill opened on T3 here.
    const pos = (await appliance.services.orders.create(actor(), { items, table_id: floor.t3.id })).order;
    const local = await appliance.services.floor.tableBill(tenant.id, floor.t3.id);
    // Meanwhile in the cloud: another bill for T3, opened and paid in full, so T3 is free there again.
    await cloud.services.orders.create(actor('web'), { items, table_id: floor.t3.id });
    const other = await cloud.services.floor.tableBill(tenant.id, floor.t3.id);
    await cloud.services.floor.payBill(actor(), other.id, { amount_cents: 1450 });
    transport.offline = false;
    const applies = countOwnApplies(device.id);
    await quiesce(appliance);
    // The cloud took this bill as sent (T3 had no open bill when it arrived): an equal echo...
    const recorded = await cloud.handle.db.selectFrom('change_log').select(['kind', 'as_sent']).where('entity', '=', 'bill').where('entity_id', '=', local.id).orderBy('seq').execute();
    expect(recorded.map((r) => [r.kind, Number(r.as_sent)])).toEqual([
      ['bill.opened', 1],
      ['bill.round_added', 1],
    ]);
    // ...which is adopted all the same: the other bill's adoption (open, before its close) had merged it
    // here, and skipping this echo would have left it merged on the appliance and open in the cloud.
    for (const side of [cloud, appliance]) {
      expect(await side.services.floor.getBill(tenant.id, local.id)).toMatchObject({ status: 'open', merged_into: null, conflict: null });
      expect(await side.services.floor.getBill(tenant.id, other.id)).toMatchObject({ status: 'closed' });
      const view = await side.services.floor.tableBill(tenant.id, floor.t3.id);
      expect(view.id).toBe(local.id);
      expect(view.orders.map((o) => o.id)).toEqual([pos.id]);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    expect(applies.get('adopt bill.opened')).toBe(1);
  });
});
