import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { seedMenu } from '../../../helpers/factories.js';

/**
 * The kitchen board (issue 24, CONTRACT §18): only the current business day's active orders, older
 * never-finished ones in "Niet afgerond" until an admin closes them, and a board per station.
 * Europe/Amsterdam in November is UTC+1; the business day starts at 05:00 local = 04:00Z.
 */
async function setup() {
  const t = await createTestApp();
  t.clock.set('2026-11-20T03:00:00.000Z'); // 04:00 in Amsterdam: still Thursday's business day
  const r = await t.seedTenant();
  const menu = await seedMenu(t, r.id);
  const s = { t, r, menu, staff: await r.staffCookie(), admin: await r.adminCookie() };
  /** Moves the fake clock and signs in again (sessions have an idle timeout on the same clock). */
  const move = async (at: string) => {
    t.clock.set(at);
    s.staff = await r.staffCookie();
    s.admin = await r.adminCookie();
  };
  return Object.assign(s, { move });
}

const get = async (t: TestApp, cookie: string, url: string) => {
  const res = await t.req({ method: 'GET', url: `/api/v1${url}`, cookie });
  expect(res.statusCode).toBe(200);
  return (res.json() as { data: { id: string; number: string; status: string; items: { name: string }[] }[] }).data;
};
const order = async (t: TestApp, cookie: string, items: { product_id: string; quantity: number }[]) => {
  const res = await t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: { items } });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string };
};

describe('GET /orders/live: the current business day only', () => {
  it('an order one millisecond before the day starts leaves the board for Niet afgerond; one at the start stays', async () => {
    const s = await setup();
    const { t, menu } = s;
    await s.move('2026-11-20T03:59:59.999Z'); // 04:59:59.999 local: Thursday's day
    const late = await order(t, s.staff, [{ product_id: menu.burger.id, quantity: 1 }]);
    expect((await get(t, s.staff, '/orders/live')).map((o) => o.id)).toEqual([late.id]);
    expect(await get(t, s.staff, '/orders/unfinished')).toEqual([]);

    await s.move('2026-11-20T04:00:00.000Z'); // 05:00 local: Friday's business day begins
    const first = await order(t, s.staff, [{ product_id: menu.friet.id, quantity: 1 }]);
    expect((await get(t, s.staff, '/orders/live')).map((o) => o.id)).toEqual([first.id]);
    expect((await get(t, s.staff, '/orders/unfinished')).map((o) => o.id)).toEqual([late.id]);
  });

  it('follows the restaurant’s business_day_starts_at', async () => {
    const s = await setup();
    const { t, menu } = s;
    const before = await order(t, s.staff, [{ product_id: menu.burger.id, quantity: 1 }]); // 04:00 local
    await s.move('2026-11-20T03:45:00.000Z'); // 04:45 local: with the default 05:00 still Thursday
    expect((await get(t, s.staff, '/orders/live')).map((o) => o.id)).toEqual([before.id]);
    const patch = await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: s.admin, payload: { business_day_starts_at: '04:30' } });
    expect(patch.statusCode).toBe(200);
    // From 04:30 on it is Friday's day: Thursday's order leaves the board.
    expect(await get(t, s.staff, '/orders/live')).toEqual([]);
    expect((await get(t, s.staff, '/orders/unfinished')).map((o) => o.id)).toEqual([before.id]);
    const bad = await t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: s.admin, payload: { business_day_starts_at: '25:00' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('business_day_starts_at');
  });
});

describe('Niet afgerond: GET /orders/unfinished and POST /orders/unfinished/close', () => {
  it('an admin closes the list: unpaid cancelled, paid completed, each a status change in the history and change log; today is untouched', async () => {
    const s = await setup();
    const { t, r, menu } = s;
    const unpaid = await order(t, s.staff, [{ product_id: menu.burger.id, quantity: 1 }]);
    const paid = await order(t, s.staff, [{ product_id: menu.cola.id, quantity: 2 }]);
    expect((await t.req({ method: 'PATCH', url: `/api/v1/orders/${paid.id}`, cookie: s.admin, payload: { payment_status: 'paid' } })).statusCode).toBe(200);
    await s.move('2026-11-20T18:00:00.000Z'); // Friday evening
    const tonight = await order(t, s.staff, [{ product_id: menu.friet.id, quantity: 1 }]);
    expect((await get(t, s.staff, '/orders/unfinished')).map((o) => o.id)).toEqual([unpaid.id, paid.id]);

    // Access: a session reads the list, only an admin clears it.
    expect((await t.req({ method: 'GET', url: '/api/v1/orders/unfinished' })).statusCode).toBe(401);
    expect((await t.req({ method: 'GET', url: '/api/v1/orders/live' })).statusCode).toBe(401);
    expect((await t.req({ method: 'POST', url: '/api/v1/orders/unfinished/close', payload: { status: 'cancelled' } })).statusCode).toBe(401);
    const staffClose = await t.req({ method: 'POST', url: '/api/v1/orders/unfinished/close', cookie: s.staff, payload: { status: 'cancelled' } });
    expect(staffClose.statusCode).toBe(403);
    expect(staffClose.json().code).toBe('FORBIDDEN');
    const wrong = await t.req({ method: 'POST', url: '/api/v1/orders/unfinished/close', cookie: s.admin, payload: { status: 'ready' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'status' }] });

    const res = await t.req({ method: 'POST', url: '/api/v1/orders/unfinished/close', cookie: s.admin, payload: { status: 'cancelled' } });
    expect(res.statusCode).toBe(200);
    const closed = res.json().data as { id: string; status: string }[];
    expect(closed.map((o) => [o.id, o.status])).toEqual([[unpaid.id, 'cancelled'], [paid.id, 'completed']]);
    expect(await get(t, s.staff, '/orders/unfinished')).toEqual([]);
    expect((await get(t, s.staff, '/orders/live')).map((o) => [o.id, o.status])).toEqual([[tonight.id, 'new']]);

    const history = (await t.req({ method: 'GET', url: `/api/v1/orders/${unpaid.id}/history`, cookie: s.admin })).json().data;
    expect(history.map((h: { from_status: string | null; to_status: string }) => [h.from_status, h.to_status])).toEqual([[null, 'new'], ['new', 'cancelled']]);
    const log = await t.handle.db.selectFrom('change_log').select(['entity_id', 'kind']).where('tenant_id', '=', r.id).where('kind', '=', 'order.status_changed').execute();
    expect(log.map((c) => c.entity_id).sort()).toEqual([unpaid.id, paid.id].sort());
    // Nothing left: closing again changes nothing.
    expect((await t.req({ method: 'POST', url: '/api/v1/orders/unfinished/close', cookie: s.admin, payload: { status: 'completed' } })).json().data).toEqual([]);
  });

  it('closes only the listed ids; an id of tonight’s board is not on the list and is left alone', async () => {
    const s = await setup();
    const { t, menu } = s;
    const a = await order(t, s.staff, [{ product_id: menu.burger.id, quantity: 1 }]);
    const b = await order(t, s.staff, [{ product_id: menu.burger.id, quantity: 1 }]);
    await s.move('2026-11-20T18:00:00.000Z');
    const tonight = await order(t, s.staff, [{ product_id: menu.friet.id, quantity: 1 }]);
    const res = await t.req({ method: 'POST', url: '/api/v1/orders/unfinished/close', cookie: s.admin, payload: { status: 'completed', ids: [a.id, tonight.id] } });
    expect(res.json().data.map((o: { id: string }) => o.id)).toEqual([a.id]);
    expect((await get(t, s.staff, '/orders/unfinished')).map((o) => o.id)).toEqual([b.id]);
    expect((await get(t, s.staff, '/orders/live')).map((o) => [o.id, o.status])).toEqual([[tonight.id, 'new']]);
  });
});

describe('GET /orders/live?station= (CONTRACT §18)', () => {
  it('each order with only that station’s lines; the product’s station wins over its category’s; default keuken', async () => {
    const s = await setup();
    const { t, r, menu } = s;
    const catRes = await t.req({ method: 'POST', url: '/api/v1/categories', cookie: s.admin, payload: { name: 'Dranken', station: 'Bar' } });
    expect(catRes.statusCode).toBe(201);
    expect(catRes.json().station).toBe('bar'); // lower-cased
    const drinks = catRes.json().id as string;
    const bier = await t.services.menu.createProduct(r.id, { name: 'Bier', price_cents: 450, category_id: drinks });
    // Irish coffee sits under drinks but is made in the kitchen: its own station wins.
    const irish = await t.services.menu.createProduct(r.id, { name: 'Irish coffee', price_cents: 800, category_id: drinks, station: 'keuken' });
    // Cola has no category: the product itself says bar (PATCH).
    const patch = await t.req({ method: 'PATCH', url: `/api/v1/products/${menu.cola.id}`, cookie: s.admin, payload: { station: 'bar' } });
    expect(patch.json().station).toBe('bar');

    const mixed = await order(t, s.staff, [{ product_id: menu.burger.id, quantity: 1 }, { product_id: bier.id, quantity: 2 }, { product_id: irish.id, quantity: 1 }, { product_id: menu.cola.id, quantity: 1 }]);
    const food = await order(t, s.staff, [{ product_id: menu.friet.id, quantity: 1 }]);
    const drinksOnly = await order(t, s.staff, [{ product_id: bier.id, quantity: 1 }]);

    const bar = await get(t, s.staff, '/orders/live?station=bar');
    expect(bar.map((o) => [o.id, o.items.map((i) => i.name)])).toEqual([[mixed.id, ['Bier', 'Cola']], [drinksOnly.id, ['Bier']]]);
    const keuken = await get(t, s.staff, '/orders/live?station=keuken');
    expect(keuken.map((o) => [o.id, o.items.map((i) => i.name)])).toEqual([[mixed.id, ['Burger', 'Irish coffee']], [food.id, ['Friet']]]);
    expect(await get(t, s.staff, '/orders/live?station=terras')).toEqual([]);
    expect((await get(t, s.staff, '/orders/live')).map((o) => o.items.length)).toEqual([4, 1, 1]);

    const bad = await t.req({ method: 'GET', url: '/api/v1/orders/live?station=b%20a%20r', cookie: s.staff });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'station' }] });
    // Clearing a station (null) falls back to the category's.
    await t.req({ method: 'PATCH', url: `/api/v1/products/${irish.id}`, cookie: s.admin, payload: { station: null } });
    expect((await get(t, s.staff, '/orders/live?station=bar'))[0]!.items.map((i) => i.name)).toEqual(['Bier', 'Irish coffee', 'Cola']);
  });
});
