import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { lane } from '../../../helpers/db.js';
import { stockRepository } from '../../../../server/modules/stock/stock.repository.js';
import { expectError, levelOf, postStock, stockSetup, stockState } from './stock-helpers.js';

const OTHER_ID = '0190a0a0-0000-7000-8000-000000000000';

describe('POST /stock: the six movement types (CONTRACT §7)', () => {
  it('ADDITION, INTAKE and REMOVAL change the level by the quantity; each keeps who, when, type, quantity, note, reason and the resulting level', async () => {
    const { t, r, staff, beef, koelcel } = await stockSetup();
    const add = await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 12.5, note: 'Levering slager', reason: 'levering' });
    expect(add.statusCode).toBe(201);
    const body = add.json();
    expect(body.movements).toEqual([
      {
        id: expect.any(String),
        product_id: beef.id,
        location_id: koelcel.id,
        type: 'INTAKE',
        quantity: 12.5,
        counted: null,
        level_after: 12.5,
        transfer_id: null,
        source: 'staff',
        ref_id: null,
        reason: 'levering',
        note: 'Levering slager',
        user_id: r.staffId,
        created_at: t.clock.now().toISOString(),
      },
    ]);
    expect(body.levels).toEqual([{ product_id: beef.id, location_id: koelcel.id, quantity: 12.5 }]);
    t.clock.advance(60_000);
    expect((await postStock(t, staff, { product_id: beef.id, location_id: koelcel.id, type: 'ADDITION', quantity: 0.75 })).json().levels[0].quantity).toBe(13.25);
    const rem = (await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 3.1, reason: 'personeelsmaaltijd' })).json();
    expect(rem.movements[0]).toMatchObject({ type: 'REMOVAL', quantity: -3.1, level_after: 10.15, reason: 'personeelsmaaltijd' });
    // Thousandths are exact: no floating-point crumbs after many decimals.
    for (let i = 0; i < 10; i++) await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'ADDITION', quantity: 0.1 });
    expect(await levelOf(t, r.id, beef.id, koelcel.id)).toBe(11.15);
  });

  it('ADJUSTMENT takes the counted level and records the difference (up, down, to zero, and no change)', async () => {
    const { t, r, staff, buns, bar } = await stockSetup();
    await postStock(t, staff, { productId: buns.id, locationId: bar.id, type: 'INTAKE', quantity: 40 });
    const adj = async (counted: number) => (await postStock(t, staff, { productId: buns.id, locationId: bar.id, type: 'ADJUSTMENT', quantity: counted, note: 'Telling' })).json();
    expect((await adj(36)).movements[0]).toMatchObject({ type: 'ADJUSTMENT', quantity: -4, counted: 36, level_after: 36 });
    expect((await adj(41)).movements[0]).toMatchObject({ quantity: 5, counted: 41, level_after: 41 });
    expect((await adj(41)).movements[0]).toMatchObject({ quantity: 0, counted: 41, level_after: 41 });
    expect((await adj(0)).movements[0]).toMatchObject({ quantity: -41, counted: 0, level_after: 0 });
    expect(await levelOf(t, r.id, buns.id, bar.id)).toBe(0);
    // The ledger is the truth: the sum of the recorded differences is the level.
    const rows = await t.handle.db.selectFrom('stock_movements').select('quantity_milli').where('tenant_id', '=', r.id).execute();
    expect(rows.reduce((s, x) => s + Number(x.quantity_milli), 0)).toBe(0);
  });

  it('TRANSFER_OUT + toLocationId and TRANSFER_IN + fromLocationId each book both legs at once', async () => {
    const { t, r, staff, beer, koelcel, bar } = await stockSetup();
    await postStock(t, staff, { productId: beer.id, locationId: koelcel.id, type: 'INTAKE', quantity: 48 });
    const out = await postStock(t, staff, { productId: beer.id, locationId: koelcel.id, type: 'TRANSFER_OUT', toLocationId: bar.id, quantity: 12 });
    expect(out.statusCode).toBe(201);
    const o = out.json();
    expect(o.movements.map((m: any) => [m.type, m.location_id, m.quantity, m.level_after])).toEqual([
      ['TRANSFER_OUT', koelcel.id, -12, 36],
      ['TRANSFER_IN', bar.id, 12, 12],
    ]);
    expect(o.movements[0].transfer_id).toBe(o.movements[1].transfer_id);
    expect(o.levels).toEqual([
      { product_id: beer.id, location_id: koelcel.id, quantity: 36 },
      { product_id: beer.id, location_id: bar.id, quantity: 12 },
    ]);
    // The other spelling: TRANSFER_IN at the bar, from the cold store.
    const inn = (await postStock(t, staff, { productId: beer.id, locationId: bar.id, type: 'TRANSFER_IN', fromLocationId: koelcel.id, quantity: 6 })).json();
    expect(inn.movements.map((m: any) => [m.type, m.location_id, m.quantity])).toEqual([
      ['TRANSFER_OUT', koelcel.id, -6],
      ['TRANSFER_IN', bar.id, 6],
    ]);
    const item = (await t.req({ method: 'GET', url: '/api/v1/stock', cookie: staff })).json().data.find((i: any) => i.product_id === beer.id);
    expect(item).toMatchObject({ total: 48, unit: 'fles', below_zero: false });
    expect(item.locations.map((l: any) => [l.name, l.quantity])).toEqual([['Bar', 18], ['Koelcel', 30]]);
    // One change-log entry per request: the pair travels as one unit.
    const log = (await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.entity === 'stock');
    expect(log.map((c) => (c.payload as { movements: unknown[] }).movements.length)).toEqual([1, 2, 2]);
  });

  it('a transfer whose in-leg fails leaves nothing: not the out-leg, not a level, not a change-log entry', async () => {
    const { t, r, staff, beer, koelcel, bar } = await stockSetup();
    await postStock(t, staff, { productId: beer.id, locationId: koelcel.id, type: 'INTAKE', quantity: 10 });
    const before = await stockState(t, r.id);
    // Make the database refuse the destination leg (a failure after the out-leg was written).
    const db = t.handle.db;
    if (lane === 'postgres') {
      await sql`create function refuse_leg() returns trigger language plpgsql as $$ begin raise exception 'disk full'; end $$`.execute(db);
      await sql.raw(`create trigger refuse_leg before insert on stock_movements for each row when (new.location_id = '${bar.id}') execute function refuse_leg()`).execute(db);
    } else {
      await sql.raw(`create trigger refuse_leg before insert on stock_movements when new.location_id = '${bar.id}' begin select raise(abort, 'disk full'); end`).execute(db);
    }
    const res = await postStock(t, staff, { productId: beer.id, locationId: koelcel.id, type: 'TRANSFER_OUT', toLocationId: bar.id, quantity: 4 });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Er ging iets mis aan onze kant. Probeer het opnieuw.', code: 'INTERNAL' });
    expect(await stockState(t, r.id)).toEqual(before);
    // The out-leg alone refused (not enough): also nothing.
    const short = await postStock(t, staff, { productId: beer.id, locationId: bar.id, type: 'TRANSFER_IN', fromLocationId: koelcel.id, quantity: 11 });
    expectError(short, 409, 'CONFLICT', /^Onvoldoende voorraad op deze locatie: Speciaalbier op 'Koelcel' is 10 fles, gevraagd 11\.$/);
    expect(await stockState(t, r.id)).toEqual(before);
  });
});

describe('below zero (CONTRACT §7)', () => {
  it('a REMOVAL or TRANSFER_OUT below zero is 409 and changes nothing', async () => {
    const { t, r, staff, beef, koelcel, bar } = await stockSetup();
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 2 });
    const before = await stockState(t, r.id);
    expectError(await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 2.001 }), 409, 'CONFLICT', /Onvoldoende voorraad op deze locatie/);
    expectError(await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'TRANSFER_OUT', toLocationId: bar.id, quantity: 3 }), 409, 'CONFLICT');
    expectError(await postStock(t, staff, { productId: beef.id, locationId: bar.id, type: 'REMOVAL', quantity: 1 }), 409, 'CONFLICT', /is 0 kg, gevraagd 1\./);
    expect(await stockState(t, r.id)).toEqual(before);
    // Exactly the last units: allowed, ends at zero.
    expect((await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 2 })).json().levels[0].quantity).toBe(0);
  });

  it('20 tablets removing the last units at the same moment: exactly the stock on hand is taken, the level ends at exactly zero', async () => {
    const { t, r, staff, buns, bar } = await stockSetup();
    await postStock(t, staff, { productId: buns.id, locationId: bar.id, type: 'INTAKE', quantity: 12 });
    const results = await Promise.all(Array.from({ length: 20 }, () => postStock(t, staff, { productId: buns.id, locationId: bar.id, type: 'REMOVAL', quantity: 1 })));
    const codes = results.map((x) => x.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(12);
    expect(codes.filter((c) => c === 409)).toHaveLength(8);
    expect(await levelOf(t, r.id, buns.id, bar.id)).toBe(0);
    const removals = await t.handle.db.selectFrom('stock_movements').select(['level_after_milli']).where('tenant_id', '=', r.id).where('type', '=', 'REMOVAL').execute();
    expect(removals.map((m) => Number(m.level_after_milli)).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i * 1000));
    expect((await t.services.stock.verify({ tenantId: r.id, repair: false })).differences).toEqual([]);
  });

  it('the guard is the database’s own: 20 conditional updates racing in separate transactions never take the level below zero', async () => {
    const { t, r, staff, buns, bar } = await stockSetup();
    await postStock(t, staff, { productId: buns.id, locationId: bar.id, type: 'INTAKE', quantity: 5 });
    const pair = { product_id: buns.id, location_id: bar.id };
    // Without the service's tenant lock: only the conditional update stands between them.
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.handle.db.transaction().execute((trx) => stockRepository.addToLevel(trx, r.id, pair, -1000, { booked_at: t.clock.now().toISOString(), id: `x${i}` }, t.clock.now().toISOString(), true)),
      ),
    );
    expect(outcomes.filter((o) => o !== undefined)).toHaveLength(5);
    expect(Number((await stockRepository.level(t.handle.db, r.id, pair))!.quantity_milli)).toBe(0);
  });
});

describe('POST /stock: validation, sessions and tenants', () => {
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['no product', { locationId: 'L', type: 'ADDITION', quantity: 1 }, 'productId', /'productId' is verplicht/],
    ['no location', { productId: 'P', type: 'ADDITION', quantity: 1 }, 'locationId', /'locationId' is verplicht/],
    ['unknown type', { productId: 'P', locationId: 'L', type: 'STEAL', quantity: 1 }, 'type', /moet een van deze waarden zijn: ADDITION, REMOVAL/],
    ['zero quantity', { productId: 'P', locationId: 'L', type: 'REMOVAL', quantity: 0 }, 'quantity', /'quantity' moet groter dan 0 zijn/],
    ['negative quantity', { productId: 'P', locationId: 'L', type: 'ADDITION', quantity: -2 }, 'quantity', /minimaal 0/],
    ['four decimals', { productId: 'P', locationId: 'L', type: 'ADDITION', quantity: 1.0001 }, 'quantity', /hoogstens 3 decimalen/],
    ['text quantity', { productId: 'P', locationId: 'L', type: 'ADDITION', quantity: '3' }, 'quantity', /moet een getal zijn/],
    ['too much', { productId: 'P', locationId: 'L', type: 'ADDITION', quantity: 1_000_001 }, 'quantity', /maximaal 1000000/],
    ['transfer without destination', { productId: 'P', locationId: 'L', type: 'TRANSFER_OUT', quantity: 1 }, 'toLocationId', /verplicht bij TRANSFER_OUT/],
    ['transfer without source', { productId: 'P', locationId: 'L', type: 'TRANSFER_IN', quantity: 1 }, 'fromLocationId', /verplicht bij TRANSFER_IN/],
    ['transfer to itself', { productId: 'P', locationId: 'L', type: 'TRANSFER_OUT', toLocationId: 'L', quantity: 1 }, 'toLocationId', /andere locatie/],
    ['destination on a removal', { productId: 'P', locationId: 'L', type: 'REMOVAL', toLocationId: 'L2', quantity: 1 }, 'toLocationId', /hoort alleen bij TRANSFER_OUT/],
    ['twins that differ', { productId: 'P', product_id: 'P2', locationId: 'L', type: 'ADDITION', quantity: 1 }, 'product_id', /moet gelijk zijn aan 'productId'/],
    ['unknown field', { productId: 'P', locationId: 'L', type: 'ADDITION', quantity: 1, price: 3 }, 'price', /Onbekend veld: 'price'/],
    ['bad id', { productId: 'rundvlees', locationId: 'L', type: 'ADDITION', quantity: 1 }, 'productId', /geldige id/],
    ['long note', { productId: 'P', locationId: 'L', type: 'ADDITION', quantity: 1, note: 'x'.repeat(501) }, 'note', /maximaal 500 tekens/],
  ];
  it('every validation failure is 400 VALIDATION naming the field with a Dutch message, and changes nothing', async () => {
    const { t, r, staff, beef, koelcel, bar } = await stockSetup();
    const ids: Record<string, string> = { P: beef.id, P2: OTHER_ID, L: koelcel.id, L2: bar.id };
    const before = await stockState(t, r.id);
    for (const [name, raw, field, message] of cases) {
      const payload = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === 'string' && ids[v] ? ids[v] : v]));
      const b = expectError(await postStock(t, staff, payload), 400, 'VALIDATION', /^Ongeldige invoer: /);
      expect(b.details[0].field, name).toBe(field);
      expect(b.details[0].error, name).toMatch(message);
    }
    expect(await stockState(t, r.id)).toEqual(before);
  });

  it('401 without a session; any role may book (staff and admin)', async () => {
    const { t, admin, beef, koelcel } = await stockSetup();
    expectError(await postStock(t, undefined, { productId: beef.id, locationId: koelcel.id, type: 'ADDITION', quantity: 1 }), 401, 'UNAUTHORIZED', /niet ingelogd/);
    for (const url of ['/api/v1/stock', '/api/v1/stock/movements', '/api/v1/purchase-list', '/api/v1/purchase-list/suggest']) expectError(await t.req({ method: 'GET', url }), 401, 'UNAUTHORIZED');
    expect((await postStock(t, admin, { productId: beef.id, locationId: koelcel.id, type: 'ADDITION', quantity: 1 })).statusCode).toBe(201);
  });

  it('another restaurant’s product or location, also inside the body, is 404 and changes nothing', async () => {
    const { t, r, staff, beef, koelcel, bar } = await stockSetup();
    const other = await t.seedTenant();
    const theirs = await t.services.menu.createProduct(other.id, { name: 'Kaas', price_cents: 0, unit: 'kg' });
    const theirLoc = await t.services.stock.createLocation(other.id, { name: 'Kelder' });
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 5 });
    const archived = await t.services.stock.createLocation(r.id, { name: 'Oude schuur' });
    await t.services.stock.archiveLocation(r.id, archived.id);
    const before = await stockState(t, r.id);
    expectError(await postStock(t, staff, { productId: theirs.id, locationId: koelcel.id, type: 'ADDITION', quantity: 1 }), 404, 'NOT_FOUND', /^Product niet gevonden\.$/);
    expectError(await postStock(t, staff, { productId: beef.id, locationId: theirLoc.id, type: 'ADDITION', quantity: 1 }), 404, 'NOT_FOUND', /^Locatie niet gevonden\.$/);
    expectError(await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'TRANSFER_OUT', toLocationId: theirLoc.id, quantity: 1 }), 404, 'NOT_FOUND', /Locatie/);
    expectError(await postStock(t, staff, { productId: beef.id, locationId: bar.id, type: 'TRANSFER_IN', fromLocationId: OTHER_ID, quantity: 1 }), 404, 'NOT_FOUND');
    expectError(await postStock(t, staff, { productId: beef.id, locationId: archived.id, type: 'ADDITION', quantity: 1 }), 404, 'NOT_FOUND');
    expect(await stockState(t, r.id)).toEqual(before);
    // Their stock list does not show ours, and ours not theirs.
    await t.services.stock.recordMovement({ tenantId: other.id, userId: null }, { product_id: theirs.id, location_id: theirLoc.id, type: 'INTAKE', quantity: 3, to_location_id: null, from_location_id: null, note: null, reason: null });
    expect((await t.req({ method: 'GET', url: '/api/v1/stock', cookie: staff })).json().data.map((i: any) => i.name)).not.toContain('Kaas');
    expect((await t.services.stock.list(other.id)).data.map((i) => i.name)).toEqual(['Kaas']);
  });
});

describe('GET /stock and GET /stock/movements', () => {
  it('lists stock items (ingredients, items with a minimum, anything with movements) with totals, per-location breakdown and flags', async () => {
    const { t, staff, beef, buns, beer, burger, koelcel, bar } = await stockSetup();
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 8 });
    await postStock(t, staff, { productId: beer.id, locationId: bar.id, type: 'INTAKE', quantity: 24 });
    const res = await t.req({ method: 'GET', url: '/api/v1/stock', cookie: staff });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.locations).toEqual([
      { id: bar.id, name: 'Bar', is_default: false },
      { id: koelcel.id, name: 'Koelcel', is_default: true },
      { id: expect.any(String), name: 'Vriezer', is_default: false },
    ]);
    // The dish without stock, minimum or movements is not a stock item.
    expect(body.data.map((i: any) => i.name)).toEqual(['Hamburgerbroodje', 'Rundergehakt', 'Speciaalbier']);
    expect(body.data.find((i: any) => i.product_id === beef.id)).toEqual({
      product_id: beef.id,
      name: 'Rundergehakt',
      unit: 'kg',
      total: 8,
      min_level: 5,
      below_min: false,
      below_zero: false,
      locations: [{ location_id: koelcel.id, name: 'Koelcel', quantity: 8, below_zero: false }],
    });
    expect(body.data.find((i: any) => i.product_id === buns.id)).toMatchObject({ total: 0, min_level: 24, below_min: true, locations: [] });
    expect(body.data.some((i: any) => i.product_id === burger.id)).toBe(false);
  });

  it('the ledger, newest first, filtered by product, location and period (dates in the restaurant’s time zone)', async () => {
    const { t, staff, admin, beef, buns, koelcel, bar } = await stockSetup();
    t.clock.set('2026-11-19T22:30:00Z'); // 23:30 on the 19th in Amsterdam
    await postStock(t, await (async () => staff)(), { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 10 });
    t.clock.set('2026-11-19T23:30:00Z'); // 00:30 on the 20th in Amsterdam
    await postStock(t, admin, { productId: beef.id, locationId: koelcel.id, type: 'TRANSFER_OUT', toLocationId: bar.id, quantity: 2 });
    t.clock.set('2026-11-20T10:00:00Z');
    await postStock(t, admin, { productId: buns.id, locationId: bar.id, type: 'INTAKE', quantity: 50 });
    const get = async (q: string) => t.req({ method: 'GET', url: `/api/v1/stock/movements${q}`, cookie: staff });
    const all = (await get('')).json();
    expect(all).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(all.data.map((m: any) => m.type)).toEqual(['INTAKE', 'TRANSFER_IN', 'TRANSFER_OUT', 'INTAKE']);
    expect((await get(`?product_id=${beef.id}`)).json().total).toBe(3);
    expect((await get(`?product_id=${beef.id}&location_id=${bar.id}`)).json().data.map((m: any) => m.type)).toEqual(['TRANSFER_IN']);
    expect((await get('?from=2026-11-20')).json().total).toBe(3);
    expect((await get('?to=2026-11-19')).json().total).toBe(1);
    expect((await get('?from=2026-11-20T00:00:00Z&to=2026-11-20T10:00:00Z')).json().total).toBe(1);
    const page = (await get('?limit=2&offset=1')).json();
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.data).toHaveLength(2);
    for (const [q, field] of [['?limit=0', 'limit'], ['?limit=201', 'limit'], ['?from=gisteren', 'from'], ['?product_id=x', 'product_id'], ['?colour=red', 'colour']]) {
      expect(expectError(await get(q!), 400, 'VALIDATION').details[0].field).toContain(field);
    }
  });
});
