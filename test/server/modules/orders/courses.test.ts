import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';

/** Courses (fire and hold) and voids (CONTRACT §17, docs/menu.md). */

type Item = { id: string; name: string; quantity: number; voided_quantity: number; unit_price_cents: number; total_cents: number; course: number; held: boolean; fired_at: string | null };
type Order = { id: string; total_cents: number; items: Item[] };

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const admin = await r.adminCookie();
  const staff = await r.staffCookie();
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: object, cookie: string | null = staff) =>
    t.req({ method, url: `/api/v1${url}`, ...(cookie ? { cookie } : {}), ...(payload ? { payload } : {}) });
  const post = async (url: string, payload: object) => {
    const res = await t.req({ method: 'POST', url: `/api/v1${url}`, cookie: admin, payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const starters = await post('/categories', { name: 'Voorgerechten', course: 1 });
  const mains = await post('/categories', { name: 'Hoofdgerechten', course: 2 });
  const beef = await post('/products', { name: 'Rund', price_cents: 0, on_menu: false, unit: 'kg' });
  const soup = await post('/products', { name: 'Soep', price_cents: 650, category_id: starters.id });
  const steak = await post('/products', { name: 'Biefstuk', price_cents: 2250, category_id: mains.id });
  await t.req({ method: 'PUT', url: `/api/v1/recipes/${steak.id}`, cookie: admin, payload: { ingredients: [{ product_id: beef.id, quantity: 0.2 }] } });
  const order = (await call('POST', '/orders', { items: [{ product_id: soup.id, quantity: 2 }, { product_id: steak.id, quantity: 3 }] })).json() as Order;
  return { t, r, admin, staff, call, order, soup, steak, beef };
}

describe('courses: later courses are held until fired', () => {
  it('course 1 goes with the order; course 2 (from the category) is held, shown on the live list, and fired once with who and when', async () => {
    const { call, order, r, t } = await setup();
    expect(order.items.map((i) => [i.name, i.course, i.held, i.fired_at !== null])).toEqual([
      ['Soep', 1, false, true],
      ['Biefstuk', 2, true, false],
    ]);
    const live = (await call('GET', '/orders/live')).json() as { data: Order[] };
    expect(live.data[0]!.items.find((i) => i.name === 'Biefstuk')!.held).toBe(true);

    t.clock.advance(5 * 60_000);
    const fired = await call('POST', `/orders/${order.id}/fire`, { course: 2 });
    expect(fired.statusCode, fired.body).toBe(200);
    const main = (fired.json() as Order).items.find((i) => i.name === 'Biefstuk')!;
    expect(main.held).toBe(false);
    expect(Date.parse(main.fired_at!)).toBe(t.clock.now().getTime());
    // Again: a no-op, the first fire stays.
    const again = await call('POST', `/orders/${order.id}/fire`, { course: 2 });
    expect(again.statusCode).toBe(200);
    expect((again.json() as Order).items.find((i) => i.name === 'Biefstuk')!.fired_at).toBe(main.fired_at);
    const log = (await call('GET', `/orders/${order.id}/courses`)).json() as { fires: Array<{ course: number; user_id: string; created_at: string }> };
    expect(log.fires).toEqual([{ id: expect.any(String), course: 2, user_id: r.staffId, user_name: 'Sanne', created_at: main.fired_at }]);
  });

  it('a course the order does not have is 409; course 1 or 6 is VALIDATION; a completed order cannot fire', async () => {
    const { call, order, admin } = await setup();
    const none = await call('POST', `/orders/${order.id}/fire`, { course: 3 });
    expect(none.statusCode).toBe(409);
    expect(none.json()).toEqual({ code: 'CONFLICT', error: 'Deze bestelling heeft geen gang 3.' });
    for (const [course, error] of [
      [1, "'course' moet minimaal 2 zijn."],
      [6, "'course' mag maximaal 5 zijn."],
    ] as const) {
      const res = await call('POST', `/orders/${order.id}/fire`, { course });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION', error: `Ongeldige invoer: ${error.replace(/\.$/, '')}.`, details: [{ field: 'course', error }] });
    }
    expect((await call('PATCH', `/orders/${order.id}`, { status: 'cancelled' }, admin)).statusCode).toBe(200);
    const late = await call('POST', `/orders/${order.id}/fire`, { course: 2 });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toEqual({ code: 'CONFLICT', error: "Deze bestelling is al 'cancelled'; gang 2 kan niet meer naar de keuken." });
  });
});

describe('voids', () => {
  it('takes units off a line: line and order totals leave them out, who/when/why kept; more than is left is 409', async () => {
    const { call, order, r } = await setup();
    const steak = order.items.find((i) => i.name === 'Biefstuk')!;
    const res = await call('POST', `/orders/${order.id}/items/${steak.id}/void`, { quantity: 2, reason: 'Verkeerd aangeslagen' });
    expect(res.statusCode, res.body).toBe(200);
    const after = res.json() as Order;
    expect(after.items.find((i) => i.id === steak.id)).toMatchObject({ quantity: 3, voided_quantity: 2, total_cents: 2250 });
    expect(after.total_cents).toBe(2 * 650 + 2250);
    const tooMany = await call('POST', `/orders/${order.id}/items/${steak.id}/void`, { quantity: 2, reason: 'Kwaliteit' });
    expect(tooMany.statusCode).toBe(409);
    expect(tooMany.json()).toEqual({ code: 'CONFLICT', error: "Er is nog maar 1 van 'Biefstuk' over om te annuleren." });
    expect((await call('POST', `/orders/${order.id}/items/${steak.id}/void`, { quantity: 1, reason: 'Kwaliteit' })).json()).toMatchObject({ total_cents: 1300 });
    const gone = await call('POST', `/orders/${order.id}/items/${steak.id}/void`, { quantity: 1, reason: 'Kwaliteit' });
    expect(gone.json()).toEqual({ code: 'CONFLICT', error: "'Biefstuk' is al helemaal geannuleerd." });
    const log = (await call('GET', `/orders/${order.id}/courses`)).json() as { voids: unknown[] };
    expect(log.voids).toEqual([
      { id: expect.any(String), item_id: steak.id, quantity: 2, reason: 'Verkeerd aangeslagen', user_id: r.staffId, user_name: 'Sanne', created_at: expect.any(String) },
      { id: expect.any(String), item_id: steak.id, quantity: 1, reason: 'Kwaliteit', user_id: r.staffId, user_name: 'Sanne', created_at: expect.any(String) },
    ]);
    // A fully voided course has nothing to fire.
    expect((await call('POST', `/orders/${order.id}/fire`, { course: 2 })).statusCode).toBe(409);
  });

  it('stock booked at completion leaves voided units out', async () => {
    const { call, order, admin, beef } = await setup();
    const steak = order.items.find((i) => i.name === 'Biefstuk')!;
    await call('POST', `/orders/${order.id}/items/${steak.id}/void`, { quantity: 1, reason: 'Gast heeft zich bedacht' });
    expect((await call('PATCH', `/orders/${order.id}`, { status: 'completed' }, admin)).statusCode).toBe(200);
    const moves = ((await call('GET', '/stock/movements')).json() as { data: Array<{ product_id: string; quantity: number }> }).data;
    expect(moves.map((m) => [m.product_id, m.quantity])).toEqual([[beef.id, -0.4]]);
    // A completed (or paid) order takes no voids.
    const late = await call('POST', `/orders/${order.id}/items/${steak.id}/void`, { quantity: 1, reason: 'Kwaliteit' });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toEqual({ code: 'CONFLICT', error: "Deze bestelling is al 'completed'; er kan niets meer geannuleerd worden." });
  });

  it('validation: quantity 1..999 and a reason, in Dutch naming the field', async () => {
    const { call, order } = await setup();
    const item = order.items[0]!;
    for (const [payload, field, error] of [
      [{ quantity: 0, reason: 'x' }, 'quantity', "'quantity' moet minimaal 1 zijn."],
      [{ quantity: 1, reason: '  ' }, 'reason', "'reason' mag niet leeg zijn."],
      [{ quantity: 1 }, 'reason', "'reason' is verplicht."],
    ] as const) {
      const res = await call('POST', `/orders/${order.id}/items/${item.id}/void`, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toContainEqual({ field, error });
    }
  });
});

describe('401 / 404 for fire, void and the course log', () => {
  it('401 without a session; 404 for an unknown order or line, or another restaurant’s', async () => {
    const { t, call, order } = await setup();
    const item = order.items[0]!;
    const unknown = '0190a8e2-7c1b-7000-8000-000000000009';
    const routes = (o: string, i: string) =>
      [
        ['POST', `/orders/${o}/fire`, { course: 2 }],
        ['POST', `/orders/${o}/items/${i}/void`, { quantity: 1, reason: 'Kwaliteit' }],
        ['GET', `/orders/${o}/courses`, undefined],
      ] as const;
    for (const [method, url, payload] of routes(order.id, item.id)) {
      const res = await call(method, url, payload, null);
      expect(res.statusCode, url).toBe(401);
      expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const other = await (await t.seedTenant()).staffCookie();
    for (const [method, url, payload] of routes(order.id, item.id)) {
      const res = await call(method, url, payload, other);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', error: 'Bestelling niet gevonden.' });
    }
    for (const [method, url, payload] of routes(unknown, item.id)) expect((await call(method, url, payload)).statusCode, url).toBe(404);
    const noLine = await call('POST', `/orders/${order.id}/items/${unknown}/void`, { quantity: 1, reason: 'Kwaliteit' });
    expect(noLine.json()).toEqual({ code: 'NOT_FOUND', error: 'Bestelregel niet gevonden.' });
  });
});
