import { describe, expect, it } from 'vitest';
import { newId } from '../../../../server/shared/ids.js';
import { SCHEMA_VERSION } from '../../../../server/db/migrations/index.js';
import { PROTOCOL_VERSION, type WireOp } from '../../../../sync/protocol.js';
import { seedMenu } from '../../../helpers/factories.js';
import { quiesce, replicatedState, twoNodes } from '../../../sync/harness.js';
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
      const view = await side.services.floor.billForTable(tenant.id, 'T1', { byName: true });
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
      expect((await side.services.floor.billForTable(tenant.id, 'T2', { byName: true })).bill_id).toBe(known.id);
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

describe('sync: a bill paid in full and its orders', () => {
  /** The order.paid changes of an order in a node's change log, as their origins. */
  const paidBy = async (side: { handle: { db: import('../../../../server/db/connection.js').Db } }, orderId: string) =>
    (await side.handle.db.selectFrom('change_log').select('origin').where('kind', '=', 'order.paid').where('entity_id', '=', orderId).execute()).map((r) => r.origin);

  it('closed on one side, its orders are paid by that side in the same commit and reach the other as they are; the other side’s repair and job add nothing', async () => {
    const { cloud, tenant, appliance, device, floor, actor, items } = await joined();
    // At the appliance: two rounds on T1, paid in full by staff.
    const a = (await appliance.services.orders.create(actor(), { items, table_id: floor.t1.id })).order;
    const b = (await appliance.services.orders.create(actor(), { items, table_id: floor.t1.id })).order;
    const local = await appliance.services.floor.tableBill(tenant.id, floor.t1.id);
    await appliance.services.floor.payBill(actor(), local.id, { amount_cents: 2900 });
    // In the cloud: a web order on T2, paid in full there.
    const c = (await cloud.services.orders.create(actor('web'), { items, table_id: floor.t2.id })).order;
    const online = await cloud.services.floor.tableBill(tenant.id, floor.t2.id);
    await cloud.services.floor.payBill(actor(), online.id, { amount_cents: 1450 });
    await quiesce(appliance);
    // Each side's first status job runs the repair; neither touches a bill the other side closed.
    await cloud.services.floor.refreshStatuses();
    await appliance.services.floor.refreshStatuses();
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      expect((await side.services.floor.getBill(tenant.id, local.id)).status).toBe('closed');
      expect((await side.services.floor.getBill(tenant.id, online.id)).status).toBe('closed');
      for (const o of [a, b]) expect(await paidBy(side, o.id)).toEqual([device.id]);
      expect(await paidBy(side, c.id)).toEqual(['cloud']);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('paid in full only by both sides’ payments of an outage: the appliance’s job closes the bill and pays its orders, once on both sides', async () => {
    const { cloud, tenant, appliance, transport, device, floor, actor, items } = await joined();
    const a = (await appliance.services.orders.create(actor(), { items, table_id: floor.t3.id })).order;
    const b = (await appliance.services.orders.create(actor(), { items: [...items, ...items], table_id: floor.t3.id })).order;
    const bill = await appliance.services.floor.tableBill(tenant.id, floor.t3.id);
    await quiesce(appliance);
    transport.offline = true;
    await appliance.services.floor.payBill(actor(), bill.id, { amount_cents: 1000 });
    await cloud.services.floor.payBill(actor(), bill.id, { amount_cents: 4350 - 1000 });
    transport.offline = false;
    await quiesce(appliance);
    // Both payments on both sides; applying them runs no hooks, so the bill is still open.
    expect((await appliance.services.floor.getBill(tenant.id, bill.id)).status).toBe('open');
    // The cloud leaves a restaurant with an appliance to the appliance's job; the appliance closes and pays.
    await cloud.services.floor.refreshStatuses();
    await appliance.services.floor.refreshStatuses();
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      expect(await side.services.floor.getBill(tenant.id, bill.id)).toMatchObject({ status: 'closed', close_reason: 'paid', paid_cents: 4350, open_cents: 0 });
      for (const o of [a, b]) {
        expect((await side.services.orders.get(tenant.id, o.id)).payment_status).toBe('paid');
        expect(await paidBy(side, o.id)).toEqual([device.id]);
      }
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
    expect(await cloud.handle.db.selectFrom('sync_ops').selectAll().where('status', '=', 'rejected').execute()).toEqual([]);
  });
});

describe('sync: pushed floor and reservation ops are validated like API requests (issue 17)', () => {
  it('ids of another restaurant and values the API refuses are rejected, one op at a time, changing nothing', async () => {
    const { cloud, tenant, transport, floor } = await joined();
    const other = await cloud.seedTenant();
    const theirs = await seedFloor(cloud, other.id);
    const now = '2026-11-20T12:00:00.000Z';
    let seq = 0;
    const op = (entity: string, entityId: string, kind: string, payload: unknown): WireOp => ({ op_id: newId(), device_seq: ++seq, entity, entity_id: entityId, kind, payload, created_at: now });
    const table = (id: string, zone: string, extra = {}) => ({ table: { id, zone_id: zone, name: 'X1', seats: 2, x: 0, y: 0, shape: 'rect', reservable: 1, status_override: null, override_at: null, created_at: now, updated_at: now, archived_at: null, ...extra } });
    const bill = (id: string, tableId: string) => ({ bill: { id, table_id: tableId, status: 'open', opened_at: now, closed_at: null, close_reason: null, closed_by: null, merged_into: null, conflict: null, created_at: now, updated_at: now } });
    const booking = (id: string, extra = {}) => ({ reservation: { id, date: '2026-11-27', time: '19:00', starts_at: '2026-11-27T18:00:00.000Z', ends_at: '2026-11-27T19:30:00.000Z', party_size: 2, name: 'X', phone: null, email: null, notes: null, table_id: floor.t1.id, status: 'booked', source: 'staff', conflict: null, created_by: null, created_at: now, updated_at: now, ...extra } });
    const billId = newId();
    const ops = [
      op('table', newId(), 'table.created', table('', theirs.binnen.id)), // id mismatch
      op('table', theirs.t1.id, 'table.updated', table(theirs.t1.id, floor.binnen.id)), // their table
      ((id) => op('table', id, 'table.created', table(id, theirs.binnen.id)))(newId()), // their zone
      ((id) => op('table', id, 'table.created', table(id, floor.binnen.id, { seats: 0 })))(newId()), // bad seats
      op('bill', billId, 'bill.opened', bill(billId, theirs.t2.id)), // their table
      ((id) => op('bill', id, 'bill.payment_recorded', { payment: { id: newId(), bill_id: id, amount_cents: -5, tip_cents: 0, source: 'staff', payment_id: null, order_id: null, created_by: null, created_at: now } }))(newId()),
      ((id) => op('reservation', id, 'reservation.created', booking(id, { party_size: 0 })))(newId()),
      ((id) => op('reservation', id, 'reservation.created', booking(id, { table_id: theirs.t3.id })))(newId()),
      op('table', floor.t1.id, 'table.status_changed', { table_id: floor.t1.id, status: 'kapot' }),
      ((id) => op('bill', id, 'bill.opened', { bill: { ...bill(id, floor.t1.id).bill, status: 'closed', close_reason: 'paid', closed_at: now } }))(newId()), // born closed
      ((id) => op('reservation', id, 'reservation.created', booking(id, { starts_at: '2026-11-27T10:00:00.000Z' })))(newId()), // window ≠ date and time
      ((id) => op('reservation', id, 'reservation.created', booking(id, { status: 'seated' })))(newId()),
    ];
    const before = { tables: await cloud.handle.db.selectFrom('floor_tables').selectAll().orderBy('id').execute(), bills: await cloud.handle.db.selectFrom('bills').selectAll().execute(), reservations: await cloud.handle.db.selectFrom('reservations').selectAll().execute() };
    const res = await cloud.req({ method: 'POST', url: '/api/v1/sync/push', headers: { authorization: `Bearer ${transport.key}` }, payload: { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION, ops } });
    expect(res.statusCode, res.body).toBe(200);
    const results = res.json().results as Array<{ status: string; reason: string }>;
    expect(results.map((r) => r.status)).toEqual(Array(ops.length).fill('rejected'));
    for (const r of results) expect(r.reason).toMatch(/^[A-Z][^\n]*\.$/); // a Dutch sentence, no internals
    expect(results[1]!.reason).toBe('Dit onderdeel van de plattegrond hoort bij een ander restaurant.');
    expect(results[2]!.reason).toBe('De zone van deze tafel bestaat niet bij dit restaurant.');
    expect(results[4]!.reason).toBe('De tafel van deze rekening bestaat niet bij dit restaurant.');
    expect(results[7]!.reason).toBe('De tafel van deze reservering bestaat niet bij dit restaurant.');
    expect({ tables: await cloud.handle.db.selectFrom('floor_tables').selectAll().orderBy('id').execute(), bills: await cloud.handle.db.selectFrom('bills').selectAll().execute(), reservations: await cloud.handle.db.selectFrom('reservations').selectAll().execute() }).toEqual(before);
    expect(tenant.id).not.toBe(other.id);
  });
});

async function staffCookie(appliance: { app: { inject: (o: object) => Promise<{ cookies: Array<{ name: string; value: string }> }> } }, tenant: { slug: string; staffPin: string }) {
  const res = await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: tenant.slug, pin: tenant.staffPin } });
  return `ck_token=${res.cookies.find((c) => c.name === 'ck_token')!.value}`;
}
