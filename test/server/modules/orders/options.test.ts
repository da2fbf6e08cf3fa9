import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { settle, startReceiver } from '../webhooks/receiver.js';

/** Orders carry options, seat and course per item (CONTRACT §17, docs/menu.md). */

type Group = { id: string; options: Array<{ id: string; name: string }> };
type Item = { id: string; name: string; quantity: number; unit_price_cents: number; total_cents: number; modifiers: Array<Record<string, unknown>>; seat: number | null; course: number; allergens: string[] };
type Order = { id: string; total_cents: number; items: Item[] };

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const admin = await r.adminCookie();
  const staff = await r.staffCookie();
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: object, cookie: string | null = admin, headers: Record<string, string> = {}) =>
    t.req({ method, url: `/api/v1${url}`, headers, ...(cookie ? { cookie } : {}), ...(payload ? { payload } : {}) });
  const post = async <T = { id: string }>(url: string, payload: object) => {
    const res = await call('POST', url, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as T;
  };
  const cheese = await post('/products', { name: 'Kaas', price_cents: 0, on_menu: false, unit: 'kg', allergens: ['milk'] });
  const bacon = await post('/products', { name: 'Spek', price_cents: 0, on_menu: false, unit: 'kg' });
  const sauce = await post<Group>('/modifier-groups', { name: 'Saus', min_select: 1, max_select: 1, options: [{ name: 'Stroganoffsaus' }, { name: 'Pepersaus', price_delta_cents: 150 }, { name: 'Bearnaise', available: false }] });
  const done = await post<Group>('/modifier-groups', { name: 'Garing', min_select: 1, options: [{ name: 'Rood' }, { name: 'Medium' }, { name: 'Doorbakken' }] });
  const extras = await post<Group>('/modifier-groups', {
    name: "Extra's", min_select: 0, max_select: 5,
    options: [
      { name: 'Extra kaas', price_delta_cents: 100, ingredient_product_id: cheese.id, ingredient_quantity: 0.03 },
      { name: 'Spek', price_delta_cents: 200, ingredient_product_id: bacon.id, ingredient_quantity: 0.05 },
      { name: 'Zonder ui', price_delta_cents: -50 },
    ],
  });
  const mains = await post('/categories', { name: 'Hoofdgerechten', course: 2 });
  const steak = await post('/products', { name: 'Biefstuk', price_cents: 2250, category_id: mains.id, modifier_group_ids: [sauce.id, done.id], allergens: ['mustard'] });
  const burger = await post('/products', { name: 'Burger', price_cents: 1450, category_id: mains.id, modifier_group_ids: [extras.id], allergens: ['gluten'] });
  const soup = await post('/products', { name: 'Soep', price_cents: 650 });
  const opt = (g: Group, name: string) => g.options.find((o) => o.name === name)!.id;
  const steakItem = (extra: object = {}) => ({ product_id: steak.id, quantity: 1, modifiers: [{ option_id: opt(sauce, 'Pepersaus') }, { option_id: opt(done, 'Medium') }], ...extra });
  return { t, r, admin, staff, call, post, cheese, bacon, sauce, done, extras, steak, burger, soup, mains, opt, steakItem };
}

const expectInvalid = (res: { statusCode: number; json: () => unknown; body: string }, field: string, error: string) => {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ code: 'VALIDATION', error: `Ongeldige invoer: ${error.replace(/\.$/, '')}.` });
  expect((res.json() as { details: unknown[] }).details).toContainEqual({ field, error });
};

describe('POST /orders with options, seat and course', () => {
  it('unit price = product + Σ option delta × quantity, total = unit × quantity; the item shows its options, seat, course and allergens', async () => {
    const s = await setup();
    const res = await s.call('POST', '/orders', {
      items: [
        s.steakItem({ seat: 1 }),
        { product_id: s.burger.id, quantity: 2, seat: 2, modifiers: [{ option_id: s.opt(s.extras, 'Extra kaas'), quantity: 2 }, { option_id: s.opt(s.extras, 'Spek') }, { option_id: s.opt(s.extras, 'Zonder ui') }] },
        { product_id: s.soup.id, quantity: 1, course: 1 },
      ],
    }, s.staff);
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json() as Order;
    const [steak, burger, soup] = order.items;
    expect(steak).toMatchObject({ name: 'Biefstuk', unit_price_cents: 2400, total_cents: 2400, seat: 1, course: 2, allergens: ['mustard'] });
    expect(steak!.modifiers).toEqual([
      { option_id: s.opt(s.sauce, 'Pepersaus'), group_id: s.sauce.id, group_name: 'Saus', name: 'Pepersaus', price_delta_cents: 150, quantity: 1 },
      { option_id: s.opt(s.done, 'Medium'), group_id: s.done.id, group_name: 'Garing', name: 'Medium', price_delta_cents: 0, quantity: 1 },
    ]);
    // 1450 + 2×100 + 200 − 50 = 1800 per burger, two burgers.
    expect(burger).toMatchObject({ unit_price_cents: 1800, total_cents: 3600, quantity: 2, seat: 2, course: 2, allergens: ['gluten', 'milk'] });
    expect(burger!.modifiers.map((m) => [m.name, m.quantity])).toEqual([
      ['Extra kaas', 2],
      ['Spek', 1],
      ['Zonder ui', 1],
    ]);
    expect(soup).toMatchObject({ unit_price_cents: 650, seat: null, course: 1, modifiers: [], allergens: [] });
    expect(order.total_cents).toBe(2400 + 3600 + 650);
    // The same on GET, and a course given on the line wins over the category's.
    expect((await s.call('GET', `/orders/${order.id}`, undefined, s.staff)).json()).toEqual(order);
    const early = (await s.call('POST', '/orders', { items: [s.steakItem({ course: 1 })] }, s.staff)).json() as Order;
    expect(early.items[0]!.course).toBe(1);
  });

  it('each option rule is VALIDATION naming items.<n>.modifiers, in Dutch', async () => {
    const s = await setup();
    const other = await s.post<Group>('/modifier-groups', { name: 'Bijgerecht', options: [{ name: 'Salade' }] });
    const cheap = await s.post('/products', { name: 'Kinderburger', price_cents: 30, modifier_group_ids: [s.extras.id] });
    const soup = { product_id: s.soup.id, quantity: 1 };
    const cases: Array<[object, string, string]> = [
      [{ product_id: s.steak.id, quantity: 1, modifiers: [{ option_id: '0190a8e2-7c1b-7000-8000-000000000009' }, { option_id: s.opt(s.done, 'Rood') }] }, 'items.1.modifiers', "'items.1.modifiers' bevat een optie die niet bij 'Biefstuk' hoort."],
      [{ product_id: s.steak.id, quantity: 1, modifiers: [{ option_id: other.options[0]!.id }] }, 'items.1.modifiers', "'items.1.modifiers' bevat een optie die niet bij 'Biefstuk' hoort."],
      [{ product_id: s.steak.id, quantity: 1, modifiers: [{ option_id: s.opt(s.sauce, 'Bearnaise') }, { option_id: s.opt(s.done, 'Rood') }] }, 'items.1.modifiers', "'items.1.modifiers': 'Bearnaise' is op dit moment niet beschikbaar."],
      [{ product_id: s.steak.id, quantity: 1, modifiers: [{ option_id: s.opt(s.done, 'Rood') }] }, 'items.1.modifiers', "'items.1.modifiers': kies 1 bij 'Saus' voor 'Biefstuk'."],
      [{ product_id: s.steak.id, quantity: 1 }, 'items.1.modifiers', "'items.1.modifiers': kies 1 bij 'Saus' voor 'Biefstuk'."],
      [{ product_id: s.steak.id, quantity: 1, modifiers: [{ option_id: s.opt(s.sauce, 'Pepersaus') }, { option_id: s.opt(s.sauce, 'Stroganoffsaus') }, { option_id: s.opt(s.done, 'Rood') }] }, 'items.1.modifiers', "'items.1.modifiers': kies hoogstens 1 bij 'Saus' voor 'Biefstuk'."],
      [{ product_id: s.burger.id, quantity: 1, modifiers: [{ option_id: s.opt(s.extras, 'Extra kaas'), quantity: 4 }, { option_id: s.opt(s.extras, 'Spek'), quantity: 2 }] }, 'items.1.modifiers', "'items.1.modifiers': kies hoogstens 5 bij 'Extra's' voor 'Burger'."],
      [{ product_id: s.burger.id, quantity: 1, modifiers: [{ option_id: s.opt(s.extras, 'Spek') }, { option_id: s.opt(s.extras, 'Spek') }] }, 'items.1.modifiers', "'items.1.modifiers' bevat 'Spek' twee keer; geef een aantal (quantity) op."],
      [{ product_id: cheap.id, quantity: 1, modifiers: [{ option_id: s.opt(s.extras, 'Zonder ui') }] }, 'items.1.modifiers', "'items.1.modifiers': met deze opties komt de prijs van 'Kinderburger' onder nul."],
      [{ product_id: s.soup.id, quantity: 1, modifiers: [{ option_id: s.opt(s.extras, 'Spek') }] }, 'items.1.modifiers', "'items.1.modifiers' bevat een optie die niet bij 'Soep' hoort."],
      [{ product_id: s.burger.id, quantity: 1, modifiers: [{ option_id: s.opt(s.extras, 'Spek'), quantity: 11 }] }, 'items.1.modifiers.0.quantity', "'items.1.modifiers.0.quantity' mag maximaal 10 zijn."],
      [{ product_id: s.soup.id, quantity: 1, seat: 51 }, 'items.1.seat', "'items.1.seat' mag maximaal 50 zijn."],
      [{ product_id: s.soup.id, quantity: 1, course: 0 }, 'items.1.course', "'items.1.course' moet minimaal 1 zijn."],
    ];
    for (const [item, field, error] of cases) expectInvalid(await s.call('POST', '/orders', { items: [soup, item] }, s.staff), field, error);
    // An archived group is no longer asked: its options are not the product's any more.
    const before = (await s.call('GET', '/orders/live', undefined, s.staff)).json() as { data: unknown[] };
    expect(before.data).toHaveLength(0);
  });

  it('idempotency compares options, seat and course: the same (options in another order) answers the original; a different choice is 409', async () => {
    const s = await setup();
    const body = { idempotency_key: 'tafel-4-ronde-1', items: [s.steakItem({ seat: 1 })] };
    const first = await s.call('POST', '/orders', body, s.staff);
    expect(first.statusCode).toBe(201);
    const again = await s.call('POST', '/orders', { ...body, items: [{ ...body.items[0], modifiers: [...body.items[0]!.modifiers].reverse() }] }, s.staff);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    for (const items of [
      [s.steakItem({ seat: 1, modifiers: [{ option_id: s.opt(s.sauce, 'Stroganoffsaus') }, { option_id: s.opt(s.done, 'Medium') }] })],
      [s.steakItem({ seat: 2 })],
      [s.steakItem({ seat: 1, course: 1 })],
    ]) {
      const res = await s.call('POST', '/orders', { idempotency_key: body.idempotency_key, items }, s.staff);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toEqual({ code: 'CONFLICT', error: 'Deze idempotency-sleutel is al gebruikt voor een andere bestelling.' });
    }
    expect(((await s.call('GET', '/orders/live', undefined, s.staff)).json() as { data: unknown[] }).data).toHaveLength(1);
  });

  it('a sold item keeps the names and prices it was sold with when the menu changes later', async () => {
    const s = await setup();
    const order = (await s.call('POST', '/orders', { items: [s.steakItem()] }, s.staff)).json() as Order;
    await s.call('PATCH', `/modifier-groups/${s.sauce.id}`, { name: 'Sauzen', options: [{ id: s.opt(s.sauce, 'Pepersaus'), name: 'Groene pepersaus', price_delta_cents: 300 }, { name: 'Stroganoffsaus' }] });
    await s.call('PATCH', `/products/${s.steak.id}`, { name: 'Entrecote', price_cents: 2600, allergens: [] });
    const again = (await s.call('GET', `/orders/${order.id}`, undefined, s.staff)).json() as Order;
    expect(again).toEqual(order);
    expect(again.items[0]).toMatchObject({ name: 'Biefstuk', unit_price_cents: 2400, allergens: ['mustard'], modifiers: [{ name: 'Pepersaus', group_name: 'Saus', price_delta_cents: 150 }, { name: 'Medium' }] });
  });

  it("an option's ingredient is booked on completion like a recipe, once (a repeated completion books nothing more)", async () => {
    const s = await setup();
    // The burger's recipe uses cheese too: the option's cheese adds to the same movement.
    await s.call('PUT', `/recipes/${s.burger.id}`, { ingredients: [{ product_id: s.cheese.id, quantity: 0.02 }] });
    const order = (await s.call('POST', '/orders', { items: [{ product_id: s.burger.id, quantity: 3, modifiers: [{ option_id: s.opt(s.extras, 'Extra kaas'), quantity: 2 }, { option_id: s.opt(s.extras, 'Spek') }] }] }, s.staff)).json() as Order;
    const complete = await s.call('PATCH', `/orders/${order.id}`, { status: 'completed' });
    expect(complete.statusCode, complete.body).toBe(200);
    const movements = async () => ((await s.call('GET', '/stock/movements', undefined, s.staff)).json() as { data: Array<{ product_id: string; quantity: number; type: string; ref_id?: string }> }).data;
    const booked = await movements();
    // cheese: 3 × (0.02 recipe + 2 × 0.03 option) = 0.24 kg; bacon: 3 × 0.05 = 0.15 kg.
    expect(booked.map((m) => [m.product_id, m.type, m.quantity]).sort()).toEqual(
      [
        [s.bacon.id, 'REMOVAL', -0.15],
        [s.cheese.id, 'REMOVAL', -0.24],
      ].sort(),
    );
    expect((await s.call('PATCH', `/orders/${order.id}`, { status: 'completed' })).statusCode).toBe(200);
    const { t, r } = s;
    // Booking again through the service (as a completion arriving by sync would) changes nothing either.
    await t.changes.write(r.id, async (w) => {
      await t.services.stock.consumeForOrder(w, r.id, await t.services.orders.getIn(w, r.id, order.id));
    });
    expect(await movements()).toHaveLength(2);
  });
});

describe('options on the other paths', () => {
  it('POST /public/order/:slug takes options with the same rules and prices', async () => {
    const s = await setup();
    const guest = { customer: { name: 'Eva', phone: '0612345678' }, type: 'pickup' };
    const bad = await s.call('POST', `/public/order/${s.r.slug}`, { ...guest, items: [{ product_id: s.steak.id, quantity: 1 }] }, null);
    expectInvalid(bad, 'items.0.modifiers', "'items.0.modifiers': kies 1 bij 'Saus' voor 'Biefstuk'.");
    const res = await s.call('POST', `/public/order/${s.r.slug}`, { ...guest, items: [s.steakItem({ quantity: 2 })] }, null);
    expect(res.statusCode, res.body).toBe(201);
    const { order } = res.json() as { order: Order };
    expect(order.items[0]).toMatchObject({ unit_price_cents: 2400, total_cents: 4800, modifiers: [{ name: 'Pepersaus' }, { name: 'Medium' }] });
    expect(order.total_cents).toBe(4800);
  });

  it('webhook payloads carry the options on the items', async () => {
    const s = await setup();
    const rx = await startReceiver();
    expect((await s.call('POST', '/webhooks', { url: rx.url, events: ['order.created'] })).statusCode).toBe(201);
    const order = (await s.call('POST', '/orders', { items: [s.steakItem({ seat: 3 })] }, s.staff)).json() as Order;
    await settle(s.t);
    expect(rx.requests).toHaveLength(1);
    const sent = rx.requests[0]!.body.data.order as Order;
    expect(sent.id).toBe(order.id);
    expect(sent.items[0]).toMatchObject({ seat: 3, course: 2, unit_price_cents: 2400, modifiers: [{ option_id: s.opt(s.sauce, 'Pepersaus'), group_name: 'Saus', name: 'Pepersaus', price_delta_cents: 150, quantity: 1 }, { name: 'Medium' }] });
  });

  it('the external API lists orders with their options', async () => {
    const s = await setup();
    await s.call('POST', '/orders', { items: [s.steakItem()] }, s.staff);
    const key = (await s.t.services.apiKeys.create(s.r.id, { name: 'partner', scopes: ['read'] }, null)).key;
    const res = await s.t.req({ method: 'GET', url: '/api/v1/external/orders', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { data: Order[] }).data[0]!.items[0]!.modifiers.map((m) => m.name)).toEqual(['Pepersaus', 'Medium']);
  });
});
