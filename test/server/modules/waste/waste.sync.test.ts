import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../server/shared/clock.js';
import { wasteSync } from '../../../../server/modules/waste/waste.sync.js';
import { quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';
import { opByOp, ownOps, pushChunk, tableRows, watchBatches } from '../../../sync/chunk.js';

/** Waste across sync (docs/insights.md "Waste across sync"): a ledger; the stock removal travels as stock's own row. */
async function joined() {
  const clock = new ManualClock('2026-11-20T10:00:00.000Z');
  const nodes = await twoNodes({ clock });
  const { cloud, tenant } = nodes;
  const zalm = (await cloud.services.menu.createProduct(tenant.id, { name: 'Zalm', price_cents: 0, cost_cents: 2400, unit: 'kg', on_menu: false })).id;
  await nodes.appliance.engine.syncOnce(); // bootstrap: tenant, users, products
  return { ...nodes, clock, zalm };
}

describe('waste across sync', () => {
  it('waste logged on the appliance during an outage arrives once, with one stock removal, also after a lost push answer', async () => {
    const { cloud, tenant, appliance, transport, zalm } = await joined();
    transport.offline = true;
    const w = await appliance.services.waste.record({ tenantId: tenant.id, userId: tenant.staffId }, { product_id: zalm, quantity: 1.5, reason: 'bederf' });
    await cloud.services.waste.record({ tenantId: tenant.id, userId: null }, { product_id: zalm, quantity: 0.5, reason: 'overproductie' });
    transport.offline = false;
    transport.faults.push('lose-response');
    await appliance.engine.pushOnce().catch(() => undefined);
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const stats = await side.services.waste.stats(tenant.id, 7);
      expect(stats).toMatchObject({ total_cost_cents: 4800, entries: 2 });
      const removals = await side.handle.db.selectFrom('stock_movements').selectAll().where('tenant_id', '=', tenant.id).where('source', '=', 'waste').execute();
      expect(removals).toHaveLength(2);
      expect((await side.services.stock.list(tenant.id)).data.find((x) => x.product_id === zalm)!.total).toBe(-2);
    }
    expect((await cloud.services.waste.list(tenant.id, 7, 50, 0)).data.map((x) => x.id)).toContain(w.id);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('one push chunk with several entries (one twice, one of a product made in the same chunk) ends as applying its ops one by one', async () => {
    const { cloud, tenant, appliance, transport, zalm, device } = await joined();
    const keuken = (await cloud.services.stock.createLocation(tenant.id, { name: 'Keuken' })).id;
    await appliance.engine.syncOnce();
    transport.offline = true;
    const actor = { tenantId: tenant.id, userId: tenant.staffId };
    await appliance.services.waste.record(actor, { product_id: zalm, quantity: 1.5, reason: 'bederf' });
    await appliance.services.waste.record({ tenantId: tenant.id, userId: null }, { product_id: zalm, quantity: 0.25, reason: 'overproductie', location_id: keuken });
    const kaas = (await appliance.services.menu.createProduct(tenant.id, { name: 'Kaas', price_cents: 0, cost_cents: 900, unit: 'kg', on_menu: false })).id;
    await appliance.services.waste.record(actor, { product_id: kaas, quantity: 2, reason: 'retour', note: 'Schimmel' });
    const made = await ownOps(appliance, device.id);
    const first = made.find((o) => o.entity === 'waste')!;
    const ops = [...made, { ...first, op_id: '01900000-0000-7000-8000-00000000ab01', device_seq: made[made.length - 1]!.device_seq + 1 }];
    expect(ops.filter((o) => o.entity === 'waste')).toHaveLength(4);

    const reference = await opByOp(cloud, tenant.id, device.id, ops, ['waste_entries']);
    expect(reference.outcomes.map((o) => o.status)).toEqual(ops.map(() => 'applied'));
    const applies = watchBatches(['waste']);
    const pushed = await pushChunk(cloud, transport.key, tenant.id, ops);
    expect(applies).toEqual({ batched: 4, unbatched: 0 });
    expect(pushed).toEqual(JSON.parse(JSON.stringify(reference.outcomes)));
    expect(await tableRows(cloud.handle.db, tenant.id, ['waste_entries'])).toEqual(reference.rows);
    expect(reference.rows.waste_entries).toHaveLength(3);

    transport.offline = false;
    await quiesce(appliance);
    expect((await cloud.services.waste.stats(tenant.id, 7)).entries).toBe(3);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a pushed waste entry for another restaurant’s product, or with a bad reason, is rejected', async () => {
    const { cloud, tenant, zalm } = await joined();
    const other = await cloud.seedTenant();
    const kaas = (await cloud.services.menu.createProduct(other.id, { name: 'Kaas', price_cents: 0, cost_cents: 900, unit: 'kg', on_menu: false })).id;
    const entry = (product_id: string, reason = 'bederf') => ({
      id: '01a20000-0000-7000-8000-0000000000a1',
      product_id,
      location_id: null,
      quantity: 1,
      reason,
      note: null,
      unit_cost_cents: 900,
      cost_cents: 900,
      photo_file: null,
      photo_type: null,
      photo_bytes: null,
      business_day: '2026-11-20',
      created_by: null,
      created_at: '2026-11-20T10:00:00.000Z',
    });
    const apply = (e: unknown) =>
      cloud.changes.write(tenant.id, (w) =>
        wasteSync[0]!.apply(w.trx, { op_id: 'x', tenant_id: tenant.id, origin: 'dev', entity: 'waste', entity_id: '01a20000-0000-7000-8000-0000000000a1', kind: 'waste.recorded', payload: { entry: e }, created_at: '2026-11-20T10:00:00.000Z' }, { side: 'cloud', mode: 'merge', tenantId: tenant.id, now: '2026-11-20T10:00:00.000Z' }),
      );
    await expect(apply(entry(kaas))).rejects.toThrow(/Het product bestaat niet bij dit restaurant/);
    await expect(apply(entry(zalm, 'gestolen'))).rejects.toThrow(/Ongeldige wijziging voor een afvalregistratie/);
    expect(await cloud.handle.db.selectFrom('waste_entries').selectAll().execute()).toEqual([]);
  });
});
