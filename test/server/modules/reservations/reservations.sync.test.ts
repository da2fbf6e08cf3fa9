import { describe, expect, it } from 'vitest';
import { quiesce, replicatedState, twoNodes, type Appliance } from '../../../sync/harness.js';
import { opByOp, ownOps, pushChunk, tableRows, watchBatches } from '../../../sync/chunk.js';
import type { SeededTenant } from '../../../helpers/app.js';

/**
 * Capacity across sync (docs/reservations.md): the cloud is the one authority for bookable capacity.
 * Friday 20 November 2026, 13:00 in Amsterdam on both clocks.
 */
async function joined(tables: Array<[string, number]>) {
  const nodes = await twoNodes();
  const { cloud, tenant, appliance } = nodes;
  const zone = await cloud.services.floor.createZone(tenant.id, { name: 'binnen' });
  const ids: Record<string, string> = {};
  for (const [name, seats] of tables) ids[name] = (await cloud.services.floor.createTable(tenant.id, { zone_id: zone.id, name, seats, x: 0, y: 0 })).id;
  await appliance.engine.syncOnce();
  return { ...nodes, ids };
}

async function staffCookie(appliance: Appliance, tenant: SeededTenant) {
  const res = await appliance.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { slug: tenant.slug, pin: tenant.staffPin } });
  return `ck_token=${res.cookies.find((c) => c.name === 'ck_token')!.value}`;
}

const guest = { name: 'Fam. Jansen', phone: '0612345678' };

describe('sync: reservations', () => {
  it('a booking taken by the cloud reaches the appliance’s reservation list (and its live status)', async () => {
    const { cloud, tenant, appliance, ids } = await joined([['T1', 4]]);
    const res = await cloud.req({ method: 'POST', url: `/api/v1/public/reservations/${tenant.slug}`, payload: { ...guest, date: '2026-11-20', time: '17:30', party_size: 3 } });
    expect(res.statusCode).toBe(201);
    await quiesce(appliance);
    const cookie = await staffCookie(appliance, tenant);
    const list = await appliance.app.inject({ method: 'GET', url: '/api/v1/reservations?date=2026-11-20', headers: { cookie } });
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([expect.objectContaining({ id: res.json().id, time: '17:30', party_size: 3, name: 'Fam. Jansen', table_name: 'T1', source: 'web', status: 'booked', conflict: null })]);
    // 16:45 in Amsterdam: within the hour; the appliance's own minute job announces it to its tablets.
    appliance.clock.set('2026-11-20T15:45:00Z');
    cloud.clock.set('2026-11-20T15:45:00Z');
    // The cloud leaves a restaurant with an appliance to the appliance's job; the appliance's announcement syncs up.
    await cloud.app.scheduler.run('floor.status');
    const announced = async () => (await cloud.changes.readSince(tenant.id, 0, 10_000)).filter((c) => c.kind === 'table.status_changed').map((c) => [c.origin, (c.payload as { status: string }).status]);
    expect(await announced()).toEqual([]);
    await appliance.app.scheduler.run('floor.status');
    expect((await appliance.services.floor.floorplan(tenant.id)).zones[0]!.tables[0]).toMatchObject({ id: ids.T1, status: 'gereserveerd', reservation: { time: '17:30' } });
    await quiesce(appliance);
    expect(await announced()).toEqual([[appliance.changes.origin, 'gereserveerd']]);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a walk-in booked offline for a table the cloud gave away meanwhile moves to another free table, visibly', async () => {
    const { cloud, tenant, appliance, transport, ids } = await joined([['T1', 2], ['T2', 2]]);
    transport.offline = true;
    // Online, a guest books 19:00 and gets T1; offline, staff give T1 at 19:00 to a caller.
    const online = await cloud.req({ method: 'POST', url: `/api/v1/public/reservations/${tenant.slug}`, payload: { ...guest, date: '2026-11-20', time: '19:00', party_size: 2 } });
    expect(online.statusCode).toBe(201);
    const offline = await appliance.services.reservations.bookStaff({ tenantId: tenant.id, userId: null }, { date: '2026-11-20', time: '19:00', party_size: 2, name: 'Telefoon', table_id: ids.T1 });
    expect(offline.table_name).toBe('T1');
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const moved = await side.services.reservations.get(tenant.id, offline.id);
      expect(moved).toMatchObject({ table_name: 'T2', conflict: 'Tafel T1 was op dat moment al gereserveerd; deze reservering staat nu op tafel T2.' });
      expect((await side.services.reservations.get(tenant.id, online.json().id)).table_name).toBe('T1');
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('an offline walk-in that collides with no table left is kept with a conflict for staff to resolve; resolving it syncs', async () => {
    const { cloud, tenant, appliance, transport, ids } = await joined([['T1', 2]]);
    transport.offline = true;
    const online = await cloud.req({ method: 'POST', url: `/api/v1/public/reservations/${tenant.slug}`, payload: { ...guest, date: '2026-11-20', time: '19:00', party_size: 2 } });
    expect(online.statusCode).toBe(201);
    const offline = await appliance.services.reservations.bookStaff({ tenantId: tenant.id, userId: null }, { date: '2026-11-20', time: '19:30', party_size: 2, name: 'Loopt binnen' });
    expect(offline.table_id).toBe(ids.T1);
    transport.offline = false;
    await quiesce(appliance);
    const cookie = await staffCookie(appliance, tenant);
    const list = (await appliance.app.inject({ method: 'GET', url: '/api/v1/reservations?date=2026-11-20', headers: { cookie } })).json().data;
    const conflictNote = 'Dubbel geboekt: tafel T1 is op 2026-11-20 om 19:30 al gereserveerd en er is geen andere tafel vrij. Verplaats of annuleer een van de reserveringen.';
    expect(list.map((r: { name: string; table_name: string; conflict: string | null }) => [r.name, r.table_name, r.conflict])).toEqual([
      ['Fam. Jansen', 'T1', null],
      ['Loopt binnen', 'T1', conflictNote],
    ]);
    const status = (await appliance.app.inject({ method: 'GET', url: '/api/v1/sync/status', headers: { cookie } })).json();
    expect(status.conflicts).toBe(1);
    // Staff resolve it: the web guest cancels by phone. The walk-in's conflict clears, on both sides.
    const cancel = await appliance.app.inject({ method: 'PATCH', url: `/api/v1/reservations/${online.json().id}`, headers: { cookie }, payload: { status: 'cancelled' } });
    expect(cancel.statusCode).toBe(200);
    await quiesce(appliance);
    for (const side of [cloud, appliance]) expect((await side.services.reservations.get(tenant.id, offline.id)).conflict).toBeNull();
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('a booking edited offline (guest details, another moment) arrives as it was edited; a moment the cloud gave away meanwhile carries a conflict', async () => {
    const { cloud, tenant, appliance, transport, ids } = await joined([['T1', 2]]);
    const staffBooking = await appliance.services.reservations.bookStaff({ tenantId: tenant.id, userId: null }, { date: '2026-11-20', time: '18:00', party_size: 2, name: 'Telefoon', table_id: ids.T1 });
    await quiesce(appliance);
    transport.offline = true;
    // Online, a guest books 20:00 on the one table; offline, staff move the caller to 20:00 and fix the name and phone.
    const online = await cloud.req({ method: 'POST', url: `/api/v1/public/reservations/${tenant.slug}`, payload: { ...guest, date: '2026-11-20', time: '20:00', party_size: 2 } });
    expect(online.statusCode).toBe(201);
    const edited = await appliance.services.reservations.update({ tenantId: tenant.id, userId: null }, staffBooking.id, { name: 'Fam. De Wit', phone: '06 11223344', time: '20:00' });
    expect(edited).toMatchObject({ time: '20:00', name: 'Fam. De Wit', phone: '+31611223344', conflict: null });
    transport.offline = false;
    await quiesce(appliance);
    for (const side of [cloud, appliance]) {
      const b = await side.services.reservations.get(tenant.id, staffBooking.id);
      expect(b).toMatchObject({ name: 'Fam. De Wit', phone: '+31611223344', time: '20:00', starts_at: '2026-11-20T19:00:00.000Z', table_name: 'T1' });
      expect(b.conflict).toMatch(/^Dubbel geboekt: tafel T1 is op 2026-11-20 om 20:00 al gereserveerd/);
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });

  it('one push chunk with bookings that compete for the same free table, a move and a cancellation ends as applying its ops one by one', async () => {
    const { cloud, tenant, appliance, transport, ids, device } = await joined([['T1', 2], ['T2', 2], ['T3', 4]]);
    transport.offline = true;
    // Online, two guests book 19:00 and get T1 and T2; offline, staff give T1 and T2 at 19:00 to callers.
    for (let i = 0; i < 2; i++) {
      const online = await cloud.req({ method: 'POST', url: `/api/v1/public/reservations/${tenant.slug}`, payload: { ...guest, date: '2026-11-20', time: '19:00', party_size: 2 } });
      expect(online.statusCode).toBe(201);
    }
    const staff = { tenantId: tenant.id, userId: tenant.staffId };
    const first = await appliance.services.reservations.bookStaff(staff, { date: '2026-11-20', time: '19:00', party_size: 2, name: 'Telefoon 1', table_id: ids.T1 });
    const second = await appliance.services.reservations.bookStaff(staff, { date: '2026-11-20', time: '19:00', party_size: 2, name: 'Telefoon 2', table_id: ids.T2 });
    const later = await appliance.services.reservations.bookStaff(staff, { date: '2026-11-20', time: '21:00', party_size: 2, name: 'Later' });
    await appliance.services.reservations.update(staff, later.id, { table_id: ids.T3 });
    const gone = await appliance.services.reservations.bookStaff(staff, { date: '2026-11-20', time: '21:30', party_size: 2, name: 'Afgezegd' });
    await appliance.services.reservations.update(staff, gone.id, { status: 'cancelled' });
    const ops = await ownOps(appliance, device.id);
    const reservationOps = ops.filter((o) => o.entity === 'reservation');
    expect(reservationOps.map((o) => o.kind)).toEqual(['reservation.created', 'reservation.created', 'reservation.created', 'reservation.updated', 'reservation.created', 'reservation.updated']);

    const reference = await opByOp(cloud, tenant.id, device.id, ops, ['reservations']);
    // The first caller moves to T3, the only free table; the second finds it taken by the first: kept with a conflict.
    expect(reference.outcomes.filter((o, i) => ops[i]!.entity === 'reservation').map((o) => [o.status, o.reason])).toEqual([
      ['conflict', 'Tafel T1 was op dat moment al gereserveerd; deze reservering staat nu op tafel T3.'],
      ['conflict', 'Dubbel geboekt: tafel T2 is op 2026-11-20 om 19:00 al gereserveerd en er is geen andere tafel vrij. Verplaats of annuleer een van de reserveringen.'],
      ['applied', null],
      ['applied', null],
      ['applied', null],
      ['applied', null],
    ]);
    const applies = watchBatches(['reservation']);
    const pushed = await pushChunk(cloud, transport.key, tenant.id, ops);
    expect(applies).toEqual({ batched: reservationOps.length, unbatched: 0 });
    expect(pushed).toEqual(JSON.parse(JSON.stringify(reference.outcomes)));
    expect(await tableRows(cloud.handle.db, tenant.id, ['reservations'])).toEqual(reference.rows);
    expect((await cloud.services.reservations.get(tenant.id, first.id)).table_name).toBe('T3');
    expect((await cloud.services.reservations.get(tenant.id, second.id)).table_name).toBe('T2');

    transport.offline = false;
    await quiesce(appliance);
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });
});
