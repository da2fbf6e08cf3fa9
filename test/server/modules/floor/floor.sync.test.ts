import { describe, expect, it } from 'vitest';
import { seedMenu } from '../../../helpers/factories.js';
import { replicatedState, twoNodes } from '../../../sync/harness.js';
import { MERGED_NOTE } from '../../../../server/modules/floor/floor.sync.js';
import { seedFloor } from './helpers.js';

/** The floor across the appliance and the cloud (docs/floor.md, "Across sync"). */
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

async function quiesce(appliance: Awaited<ReturnType<typeof joined>>['appliance']) {
  for (let i = 0; i < 6; i++) {
    const r = await appliance.engine.syncOnce();
    if (r.pushed === 0 && r.pulled === 0) return;
  }
}

describe('sync: floor plan and bills', () => {
  it('zones and tables reach the appliance; layout edits on both sides merge per field; the same new name twice is renamed visibly', async () => {
    const { cloud, tenant, appliance, transport, floor } = await joined();
    expect((await appliance.services.floor.floorplan(tenant.id)).zones.map((z) => [z.name, z.tables.map((t) => t.name)])).toEqual([['binnen', ['T1', 'T2']], ['terras', ['T3']]]);
    transport.offline = true;
    await appliance.services.floor.updateTable(tenant.id, floor.t1.id, { seats: 5 });
    await cloud.services.floor.updateTable(tenant.id, floor.t1.id, { x: 77 });
    const local = await appliance.services.floor.createTable(tenant.id, { zone_id: floor.terras.id, name: 'T4', seats: 2, x: 0, y: 0 });
    const online = await cloud.services.floor.createTable(tenant.id, { zone_id: floor.terras.id, name: 't4', seats: 4, x: 50, y: 0 });
    transport.offline = false;
    await quiesce(appliance);
    const names = (await cloud.services.floor.floorplan(tenant.id)).zones[1]!.tables.map((t) => t.name);
    expect(names.sort()).toEqual(['T3', `T4-${local.id.slice(-4)}`, 't4']);
    const t1 = (await appliance.services.floor.floorplan(tenant.id)).zones[0]!.tables[0]!;
    expect([t1.seats, t1.x]).toEqual([5, 77]);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    const conflicts = await cloud.handle.db.selectFrom('sync_ops').select('result').where('status', '=', 'conflict').execute();
    expect(conflicts.map((c) => c.result).join()).toContain("Er was al een tafel met de naam 'T4'");
    expect(online.name).toBe('t4');
  });

  it('a round taken offline joins the bill the cloud knows', async () => {
    const { cloud, tenant, appliance, transport, floor, actor, items } = await joined();
    // A guest orders at the table through the web (cloud): the cloud opens T1's bill; the appliance hears of it.
    const web = (await cloud.services.orders.create(actor('web'), { items, table_id: floor.t1.id })).order;
    await quiesce(appliance);
    transport.offline = true;
    const pos = (await appliance.services.orders.create(actor(), { items, table_id: floor.t1.id })).order;
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const bills = await side.handle.db.selectFrom('bills').selectAll().where('tenant_id', '=', tenant.id).execute();
      expect(bills.map((b) => b.status)).toEqual(['open']);
      const view = await side.services.floor.billForTable(tenant.id, 'T1');
      expect(view.orders.map((o) => o.id).sort()).toEqual([web.id, pos.id].sort());
      expect(view.total_cents).toBe(2900);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('two bills opened for one table on both sides of an outage are merged, visibly, into the one the cloud knew', async () => {
    const { cloud, tenant, appliance, transport, floor, actor, items } = await joined();
    transport.offline = true;
    const pos = (await appliance.services.orders.create(actor(), { items, table_id: floor.t2.id })).order;
    const local = await appliance.services.floor.tableBill(tenant.id, floor.t2.id);
    await appliance.services.floor.payBill({ ...actor(), userId: null }, local.id, { amount_cents: 500 });
    const web = (await cloud.services.orders.create(actor('web'), { items: [...items, ...items], table_id: floor.t2.id })).order;
    const known = await cloud.services.floor.tableBill(tenant.id, floor.t2.id);
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const merged = await side.services.floor.getBill(tenant.id, local.id);
      expect(merged).toMatchObject({ status: 'merged', merged_into: known.id, conflict: MERGED_NOTE });
      const view = await side.services.floor.tableBill(tenant.id, floor.t2.id);
      expect(view.id).toBe(known.id);
      expect(view.merged_bills).toEqual([local.id]);
      expect(view.orders.map((o) => o.id).sort()).toEqual([pos.id, web.id].sort());
      expect(view).toMatchObject({ total_cents: 1450 * 3, paid_cents: 500, open_cents: 1450 * 3 - 500 });
      expect((await side.services.floor.billForTable(tenant.id, 'T2')).bill_id).toBe(known.id);
    }
    // The appliance shows it among its sync conflicts; the cloud recorded it against the op.
    const status = await appliance.app.inject({ method: 'GET', url: '/api/v1/sync/status', headers: { cookie: await staffCookie(appliance, tenant) } });
    expect(status.json().conflicts).toBeGreaterThanOrEqual(1);
    expect((await cloud.handle.db.selectFrom('sync_ops').select('result').where('status', '=', 'conflict').execute()).map((r) => r.result).join()).toContain('samengevoegd');
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    // Paying the rest on either side closes the one bill on both.
    await cloud.services.floor.payBill({ ...actor(), userId: null }, known.id, { amount_cents: 1450 * 3 - 500 });
    await quiesce(appliance);
    expect((await appliance.services.floor.getBill(tenant.id, known.id)).status).toBe('closed');
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('an order paid on both sides of an outage pays its bill once (payment id derived from the order)', async () => {
    const { cloud, tenant, appliance, transport, floor, actor, items } = await joined();
    const { order } = await appliance.services.orders.create(actor(), { items: [...items, ...items], table_id: floor.t3.id });
    await appliance.services.orders.create(actor(), { items, table_id: floor.t3.id });
    await quiesce(appliance);
    transport.offline = true;
    await appliance.services.orders.markPaid(actor(), order.id);
    await cloud.services.orders.markPaid(actor(), order.id);
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const bill = await side.services.floor.tableBill(tenant.id, floor.t3.id);
      expect(bill).toMatchObject({ total_cents: 4350, paid_cents: 2900, open_cents: 1450 });
      expect(bill.payments).toHaveLength(1);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    // Status announcements travel as ops the cloud accepts (never rejected).
    expect(await cloud.handle.db.selectFrom('sync_ops').selectAll().where('status', '=', 'rejected').execute()).toEqual([]);
  });
});

async function staffCookie(appliance: { app: { inject: (o: object) => Promise<{ cookies: Array<{ name: string; value: string }> }> } }, tenant: { slug: string; staffPin: string }) {
  const res = await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: tenant.slug, pin: tenant.staffPin } });
  return `ck_token=${res.cookies.find((c) => c.name === 'ck_token')!.value}`;
}
