import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { seedFloor, setupFloor } from './helpers.js';

const UNKNOWN = '0190a0a0-0000-7000-8000-000000000000';

async function setup() {
  return setupFloor(await createTestApp());
}

const tablesOf = async (t: TestApp, tenantId: string) => (await t.services.floor.floorplan(tenantId)).zones.flatMap((z) => z.tables.map((tb) => ({ ...tb, zone: z.name })));

describe('floor plan zones (admin, CONTRACT §16)', () => {
  it('admin creates, lists, renames and archives a zone; staff get 403, no session 401', async () => {
    const { t, admin, staff } = await setup();
    const created = await t.req({ method: 'POST', url: '/api/v1/floorplan/zones', cookie: admin, payload: { name: 'serre', position: 5 } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name: 'serre', position: 5, archived_at: null });
    const list = await t.req({ method: 'GET', url: '/api/v1/floorplan/zones', cookie: admin });
    expect(list.json().data.map((z: { name: string }) => z.name)).toEqual(['binnen', 'terras', 'serre']);
    const renamed = await t.req({ method: 'PATCH', url: `/api/v1/floorplan/zones/${created.json().id}`, cookie: admin, payload: { name: 'wintertuin' } });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().name).toBe('wintertuin');
    expect((await t.req({ method: 'DELETE', url: `/api/v1/floorplan/zones/${created.json().id}`, cookie: admin })).statusCode).toBe(204);
    expect((await t.req({ method: 'GET', url: '/api/v1/floorplan/zones', cookie: admin })).json().data.map((z: { name: string }) => z.name)).toEqual(['binnen', 'terras']);

    for (const [method, url, payload] of [
      ['GET', '/api/v1/floorplan/zones', undefined],
      ['POST', '/api/v1/floorplan/zones', { name: 'x' }],
      ['PATCH', `/api/v1/floorplan/zones/${created.json().id}`, { name: 'y' }],
      ['DELETE', `/api/v1/floorplan/zones/${created.json().id}`, undefined],
    ] as const) {
      const forbidden = await t.req({ method, url, cookie: staff, ...(payload ? { payload } : {}) });
      expect(forbidden.statusCode, `${method} ${url}`).toBe(403);
      expect(forbidden.json()).toEqual({ error: 'Je hebt geen toegang tot deze functie.', code: 'FORBIDDEN' });
      const anon = await t.req({ method, url, ...(payload ? { payload } : {}) });
      expect(anon.statusCode).toBe(401);
      expect(anon.json().code).toBe('UNAUTHORIZED');
    }
  });

  it.each([
    [{ name: '' }, 'name', /mag niet leeg zijn/],
    [{}, 'name', /verplicht/],
    [{ name: 'a'.repeat(41) }, 'name', /maximaal 40 tekens/],
    [{ name: 'x', position: -1 }, 'position', /minimaal 0/],
    [{ name: 'x', colour: 'rood' }, 'colour', /Onbekend veld/],
  ])('a bad zone %j is 400 naming %s, and creates nothing', async (body, field, msg) => {
    const { t, admin, r } = await setup();
    const res = await t.req({ method: 'POST', url: '/api/v1/floorplan/zones', cookie: admin, payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION');
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().details[0].error).toMatch(msg);
    expect(await t.services.floor.listZones(r.id)).toHaveLength(2);
  });

  it('a zone that still has tables is not archived (409); another restaurant’s zone is 404', async () => {
    const { t, admin, floor } = await setup();
    const res = await t.req({ method: 'DELETE', url: `/api/v1/floorplan/zones/${floor.binnen.id}`, cookie: admin });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: "Zone 'binnen' heeft nog tafels; verplaats of verwijder die eerst.", code: 'CONFLICT' });
    const other = await t.seedTenant();
    const theirs = await seedFloor(t, other.id);
    for (const [method, payload] of [['PATCH', { name: 'van mij' }], ['DELETE', undefined]] as const) {
      const r = await t.req({ method, url: `/api/v1/floorplan/zones/${theirs.terras.id}`, cookie: admin, ...(payload ? { payload } : {}) });
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ error: 'Zone niet gevonden.', code: 'NOT_FOUND' });
    }
    expect((await t.services.floor.listZones(other.id)).map((z) => z.name)).toEqual(['binnen', 'terras']);
  });
});

describe('tables (admin, CONTRACT §16)', () => {
  it('creates a table in a zone; it shows on GET /floorplan as vrij', async () => {
    const { t, admin, staff, floor } = await setup();
    const res = await t.req({ method: 'POST', url: '/api/v1/floorplan/tables', cookie: admin, payload: { zone_id: floor.terras.id, name: 'T4', seats: 2, x: 50, y: 60, shape: 'square' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ zone_id: floor.terras.id, name: 'T4', seats: 2, x: 50, y: 60, shape: 'square', reservable: true, status_override: null });
    // Its pay-at-table code (CONTRACT §11): 16 characters of 32, 80 random bits.
    expect(res.json().public_code).toMatch(/^[a-km-np-z2-9]{16}$/);
    const plan = await t.req({ method: 'GET', url: '/api/v1/floorplan', cookie: staff });
    expect(plan.statusCode).toBe(200);
    const body = plan.json();
    expect(body.zones.map((z: { name: string }) => z.name)).toEqual(['binnen', 'terras']);
    expect(body.zones[1].tables.find((x: { name: string }) => x.name === 'T4')).toEqual({
      id: res.json().id, name: 'T4', seats: 2, x: 50, y: 60, shape: 'square', public_code: res.json().public_code, status: 'vrij', manual: false, bill: null, reservation: null,
    });
    expect((await t.req({ method: 'GET', url: '/api/v1/floorplan' })).statusCode).toBe(401);
  });

  it.each([
    [{ name: 'T9', seats: 0, x: 0, y: 0 }, 'seats', /minimaal 1/],
    [{ name: 'T9', seats: 2.5, x: 0, y: 0 }, 'seats', /geheel getal/],
    [{ name: 'T9', seats: 2, x: -5, y: 0 }, 'x', /minimaal 0/],
    [{ name: 'T9', seats: 2, x: 0, y: 10_001 }, 'y', /maximaal 10000/],
    [{ name: 'T9', seats: 2, x: 0, y: 0, shape: 'ster' }, 'shape', /rect, round, square/],
    [{ seats: 2, x: 0, y: 0 }, 'name', /verplicht/],
  ])('a bad table %j is 400 naming %s, and creates nothing', async (body, field, msg) => {
    const { t, admin, r, floor } = await setup();
    const res = await t.req({ method: 'POST', url: '/api/v1/floorplan/tables', cookie: admin, payload: { zone_id: floor.binnen.id, ...body } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().details[0].error).toMatch(msg);
    expect(await tablesOf(t, r.id)).toHaveLength(3);
  });

  it('a duplicate name (any case) is 409; another restaurant’s zone id in the body is 404; nothing is created', async () => {
    const { t, admin, r, floor } = await setup();
    const dup = await t.req({ method: 'POST', url: '/api/v1/floorplan/tables', cookie: admin, payload: { zone_id: floor.binnen.id, name: 't1', seats: 2, x: 0, y: 0 } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ error: "Er is al een tafel met de naam 'T1'.", code: 'CONFLICT' });
    const other = await t.seedTenant();
    const theirs = await seedFloor(t, other.id);
    for (const zone of [theirs.binnen.id, UNKNOWN]) {
      const res = await t.req({ method: 'POST', url: '/api/v1/floorplan/tables', cookie: admin, payload: { zone_id: zone, name: 'T9', seats: 2, x: 0, y: 0 } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Zone niet gevonden.', code: 'NOT_FOUND' });
    }
    expect(await tablesOf(t, r.id)).toHaveLength(3);
    // Moving a table into their zone is refused the same way.
    const move = await t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${floor.t1.id}`, cookie: admin, payload: { zone_id: theirs.terras.id } });
    expect(move.statusCode).toBe(404);
    expect((await tablesOf(t, r.id)).find((x) => x.name === 'T1')!.zone).toBe('binnen');
  });

  it('PATCH changes a table; DELETE archives it (gone from the plan, kept for history); other tenants get 404', async () => {
    const { t, admin, staff, r, floor } = await setup();
    const res = await t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${floor.t2.id}`, cookie: admin, payload: { seats: 3, zone_id: floor.terras.id, reservable: false } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ seats: 3, zone_id: floor.terras.id, reservable: false, name: 'T2' });
    expect((await t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${floor.t2.id}`, cookie: staff, payload: { seats: 8 } })).statusCode).toBe(403);
    expect((await t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${floor.t2.id}`, cookie: admin, payload: { name: 'T1' } })).statusCode).toBe(409);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/floorplan/tables/${floor.t2.id}`, cookie: admin })).statusCode).toBe(204);
    expect((await tablesOf(t, r.id)).map((x) => x.name)).toEqual(['T1', 'T3']);
    // Archived: its name is free again; the old row is still there for history.
    expect((await t.services.floor.tableNames(r.id)).get(floor.t2.id)).toBe('T2');
    expect((await t.req({ method: 'POST', url: '/api/v1/floorplan/tables', cookie: admin, payload: { zone_id: floor.binnen.id, name: 'T2', seats: 2, x: 0, y: 0 } })).statusCode).toBe(201);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/floorplan/tables/${floor.t2.id}`, cookie: admin })).statusCode).toBe(404);

    const other = await t.seedTenant();
    const theirs = await seedFloor(t, other.id);
    expect((await t.req({ method: 'PATCH', url: `/api/v1/floorplan/tables/${theirs.t1.id}`, cookie: admin, payload: { seats: 9 } })).statusCode).toBe(404);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/floorplan/tables/${theirs.t1.id}`, cookie: admin })).statusCode).toBe(404);
    expect((await tablesOf(t, other.id)).find((x) => x.name === 'T1')!.seats).toBe(4);
  });

  it('a table with an open bill or a booking to come is not archived (409)', async () => {
    const { t, admin, r, floor, menu } = await setup();
    await t.services.orders.create({ tenantId: r.id, userId: null, via: 'pos' }, { items: [{ product_id: menu.cola.id, quantity: 1 }], table_id: floor.t1.id });
    const res = await t.req({ method: 'DELETE', url: `/api/v1/floorplan/tables/${floor.t1.id}`, cookie: admin });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: "Tafel 'T1' heeft nog een open rekening.", code: 'CONFLICT' });
    // Friday 20 November 2026, 13:00 in Amsterdam: a booking tonight at 19:00 on T3.
    await t.services.reservations.bookStaff({ tenantId: r.id, userId: null }, { date: '2026-11-20', time: '19:00', party_size: 5, name: 'Bakker' });
    const booked = await t.req({ method: 'DELETE', url: `/api/v1/floorplan/tables/${floor.t3.id}`, cookie: admin });
    expect(booked.statusCode).toBe(409);
    expect(booked.json().error).toBe("Tafel 'T3' heeft nog reserveringen; verplaats of annuleer die eerst.");
    expect(await tablesOf(t, r.id)).toHaveLength(3);
  });
});

describe('table and bill routes: roles and malformed ids', () => {
  it('staff may not create, change or archive tables (403); a malformed id is 400 naming it; nothing changes', async () => {
    const { t, staff, admin, r, floor } = await setup();
    const before = await tablesOf(t, r.id);
    for (const [method, url, payload] of [
      ['POST', '/api/v1/floorplan/tables', { zone_id: floor.binnen.id, name: 'T9', seats: 2, x: 0, y: 0 }],
      ['PATCH', `/api/v1/floorplan/tables/${floor.t1.id}`, { seats: 9 }],
      ['DELETE', `/api/v1/floorplan/tables/${floor.t1.id}`, undefined],
    ] as const) {
      const res = await t.req({ method, url, cookie: staff, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect((await t.req({ method, url, ...(payload ? { payload } : {}) })).statusCode).toBe(401);
    }
    for (const [method, url, cookie] of [
      ['PATCH', '/api/v1/floorplan/tables/tafel-1', admin],
      ['PATCH', '/api/v1/floorplan/tables/tafel-1/status', staff],
      ['GET', '/api/v1/floorplan/tables/tafel-1/bill', staff],
      ['GET', '/api/v1/floorplan/bills/rekening-1', staff],
      ['PATCH', '/api/v1/floorplan/zones/binnen', admin],
    ] as const) {
      const res = await t.req({ method, url, cookie, ...(method === 'PATCH' ? { payload: { status: 'bezet', seats: 3, name: 'x' } } : {}) });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details[0]).toEqual({ field: 'id', error: "'id' moet een geldige id zijn." });
    }
    expect(await tablesOf(t, r.id)).toEqual(before);
  });
});

describe('PATCH /floorplan/tables/positions (all or nothing)', () => {
  it('moves every table given, for any session', async () => {
    const { t, staff, r, floor } = await setup();
    const res = await t.req({
      method: 'PATCH',
      url: '/api/v1/floorplan/tables/positions',
      cookie: staff,
      payload: { tables: [{ id: floor.t1.id, x: 300, y: 40 }, { id: floor.t3.id, x: 0, y: 10_000 }] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((x: { name: string; x: number; y: number }) => [x.name, x.x, x.y])).toEqual([['T1', 300, 40], ['T3', 0, 10_000]]);
    const plan = await tablesOf(t, r.id);
    expect(plan.map((x) => [x.name, x.x, x.y])).toEqual([['T1', 300, 40], ['T2', 100, 10], ['T3', 0, 10_000]]);
  });

  it('an unknown or foreign id, a duplicate, or a bad coordinate moves nothing at all', async () => {
    const { t, staff, r, floor } = await setup();
    const other = await t.seedTenant();
    const theirs = await seedFloor(t, other.id);
    const before = await tablesOf(t, r.id);
    const theirsBefore = await tablesOf(t, other.id);
    const good = { id: floor.t1.id, x: 500, y: 500 };
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ tables: [good, { id: UNKNOWN, x: 1, y: 1 }] }, 404, 'tables.1.id', /geen tafel van dit restaurant/],
      [{ tables: [good, { id: theirs.t2.id, x: 1, y: 1 }] }, 404, 'tables.1.id', /geen tafel van dit restaurant/],
      [{ tables: [good, { id: floor.t1.id, x: 2, y: 2 }] }, 400, 'tables', /dezelfde tafel meer dan eens/],
      [{ tables: [good, { id: floor.t2.id, x: 1.5, y: 1 }] }, 400, 'tables.1.x', /geheel getal/],
      [{ tables: [good, { id: floor.t2.id, x: 1 }] }, 400, 'tables.1.y', /verplicht/],
      [{ tables: [] }, 400, 'tables', /minstens één/],
    ];
    for (const [payload, status, field, msg] of cases) {
      const res = await t.req({ method: 'PATCH', url: '/api/v1/floorplan/tables/positions', cookie: staff, payload: payload as object });
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json().details[0].field).toBe(field);
      expect(res.json().details[0].error).toMatch(msg);
      if (status === 404) expect(res.json()).toMatchObject({ code: 'NOT_FOUND', error: 'Tafel niet gevonden; er is niets verplaatst.' });
    }
    expect(await tablesOf(t, r.id)).toEqual(before);
    expect(await tablesOf(t, other.id)).toEqual(theirsBefore);
    expect((await tablesOf(t, other.id)).find((x) => x.name === 'T2')!.x).toBe(100);
    expect((await t.req({ method: 'PATCH', url: '/api/v1/floorplan/tables/positions', payload: { tables: [good] } })).statusCode).toBe(401);
  });
});
