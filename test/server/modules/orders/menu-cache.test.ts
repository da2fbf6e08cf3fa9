import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { lane } from '../../../helpers/db.js';

/**
 * An order reads its products, categories, option groups, recipes and printers from per-tenant
 * caches on the appliance (server/db/read-cache.ts, server/db/table-watch.ts; bench/README.md "The
 * order path, session 12"). Every write to one of them must be seen by the next order, whichever
 * way it is made. Each step below orders first (filling the caches), then writes, then orders again:
 * without the invalidation the second order would be priced, checked or printed from the old menu.
 * On PostgreSQL the caches read through (the same assertions hold).
 */
async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const admin = await r.adminCookie();
  const staff = await r.staffCookie();
  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: object, cookie = admin) =>
    t.req({ method, url: `/api/v1${url}`, cookie, ...(payload ? { payload } : {}) });
  const make = async (url: string, payload: object) => {
    const res = await call('POST', url, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const order = async (items: Array<Record<string, unknown>>) => call('POST', '/orders', { items }, staff);
  const ok = async (items: Array<Record<string, unknown>>) => {
    const res = await order(items);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; total_cents: number; items: Array<{ unit_price_cents: number; vat_rate: number; allergens: string[]; course: number; modifiers: unknown[] }> };
  };
  return { t, r, call, make, order, ok };
}

describe(`the order path's menu caches see every write (${lane})`, () => {
  it('a product: price, availability, archive and a new product, through the API and through a raw statement', async () => {
    const { t, r, call, make, order, ok } = await setup();
    const friet = await make('/products', { name: 'Friet', price_cents: 395 });
    expect((await ok([{ product_id: friet.id, quantity: 1 }])).total_cents).toBe(395);

    expect((await call('PATCH', `/products/${friet.id}`, { price_cents: 450 })).statusCode).toBe(200);
    expect((await ok([{ product_id: friet.id, quantity: 1 }])).total_cents).toBe(450);

    expect((await call('PATCH', `/products/${friet.id}`, { available: false })).statusCode).toBe(200);
    const refused = await order([{ product_id: friet.id, quantity: 1 }]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details[0].error).toMatch(/niet beschikbaar/);
    expect((await call('PATCH', `/products/${friet.id}`, { available: true })).statusCode).toBe(200);
    await ok([{ product_id: friet.id, quantity: 1 }]);

    // A product made after the menu was cached is orderable at once.
    const cola = await make('/products', { name: 'Cola', price_cents: 300 });
    expect((await ok([{ product_id: cola.id, quantity: 2 }])).total_cents).toBe(600);

    // A write that no service makes (as sync's apply or a repair would): a statement on the table itself.
    await sql`update products set price_cents = 510 where id = ${friet.id}`.execute(t.handle.db);
    expect((await ok([{ product_id: friet.id, quantity: 1 }])).total_cents).toBe(510);

    expect((await call('DELETE', `/products/${cola.id}`)).statusCode).toBe(204);
    expect((await order([{ product_id: cola.id, quantity: 1 }])).statusCode).toBe(400);

    // A write that rolls back leaves nothing behind, also when the menu was read inside it.
    await expect(
      t.handle.db.transaction().execute(async (trx) => {
        await sql`update products set price_cents = 1 where id = ${friet.id}`.execute(trx);
        const inside = await t.services.menu.forOrder(trx, r.id);
        expect((await inside.products([friet.id]))[0]!.price_cents).toBe(1);
        throw new Error('terug');
      }),
    ).rejects.toThrow('terug');
    expect((await ok([{ product_id: friet.id, quantity: 1 }])).total_cents).toBe(510);
  });

  it("a category's VAT rate and course, and an option group's option", async () => {
    const { call, make, order, ok } = await setup();
    const mains = await make('/categories', { name: 'Hoofdgerechten' });
    const steak = await make('/products', { name: 'Steak', price_cents: 2450, category_id: mains.id });
    expect((await ok([{ product_id: steak.id, quantity: 1 }])).items[0]).toMatchObject({ vat_rate: 9, course: 1 });
    expect((await call('PATCH', `/categories/${mains.id}`, { vat_rate: 21, course: 2 })).statusCode).toBe(200);
    expect((await ok([{ product_id: steak.id, quantity: 1 }])).items[0]).toMatchObject({ vat_rate: 21, course: 2 });

    const sauce = await make('/modifier-groups', { name: 'Saus', min_select: 1, max_select: 1, options: [{ name: 'Peper', price_delta_cents: 150 }] });
    // The product asks the group from now on.
    expect((await call('PATCH', `/products/${steak.id}`, { modifier_group_ids: [sauce.id] })).statusCode).toBe(200);
    const missing = await order([{ product_id: steak.id, quantity: 1 }]);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details[0].error).toMatch(/kies 1 bij 'Saus'/);
    const peper = ((await call('GET', `/modifier-groups`)).json() as { data: Array<{ id: string; options: Array<{ id: string; name: string }> }> }).data.find((g) => g.id === sauce.id)!.options[0]!;
    expect((await ok([{ product_id: steak.id, quantity: 1, modifiers: [{ option_id: peper.id }] }])).total_cents).toBe(2600);
    // The option becomes unavailable, then dearer.
    expect((await call('PATCH', `/modifier-groups/${sauce.id}`, { options: [{ id: peper.id, name: 'Peper', price_delta_cents: 150, available: false }] })).statusCode).toBe(200);
    const gone = await order([{ product_id: steak.id, quantity: 1, modifiers: [{ option_id: peper.id }] }]);
    expect(gone.statusCode).toBe(400);
    expect(gone.json().details[0].error).toMatch(/niet beschikbaar/);
    expect((await call('PATCH', `/modifier-groups/${sauce.id}`, { options: [{ id: peper.id, name: 'Peper', price_delta_cents: 250, available: true }] })).statusCode).toBe(200);
    expect((await ok([{ product_id: steak.id, quantity: 1, modifiers: [{ option_id: peper.id }] }])).total_cents).toBe(2700);
  });

  it("a recipe: an ingredient added to a dish's recipe adds its allergens to the next order's line, and removing it takes them off", async () => {
    const { call, make, ok } = await setup();
    const bun = await make('/products', { name: 'Broodje', price_cents: 50, on_menu: false, allergens: ['gluten', 'sesame'] });
    const burger = await make('/products', { name: 'Burger', price_cents: 1450, allergens: ['mustard'] });
    expect((await ok([{ product_id: burger.id, quantity: 1 }])).items[0]!.allergens).toEqual(['mustard']);
    expect((await call('PUT', `/recipes/${burger.id}`, { ingredients: [{ product_id: bun.id, quantity: 1 }] })).statusCode).toBe(200);
    expect((await ok([{ product_id: burger.id, quantity: 1 }])).items[0]!.allergens).toEqual(['gluten', 'mustard', 'sesame']);
    // The ingredient itself changes: its allergens follow.
    expect((await call('PATCH', `/products/${bun.id}`, { allergens: ['gluten'] })).statusCode).toBe(200);
    expect((await ok([{ product_id: burger.id, quantity: 1 }])).items[0]!.allergens).toEqual(['gluten', 'mustard']);
    expect((await call('PUT', `/recipes/${burger.id}`, { ingredients: [] })).statusCode).toBe(200);
    expect((await ok([{ product_id: burger.id, quantity: 1 }])).items[0]!.allergens).toEqual(['mustard']);
  });

  it("a printer: one added, its stations changed and it removed decide the next order's tickets", async () => {
    const { call, make, ok } = await setup();
    const soup = await make('/products', { name: 'Soep', price_cents: 650 });
    const jobsOf = async (orderId: string) =>
      ((await call('GET', `/print-jobs?order_id=${orderId}`)).json() as { data: Array<{ printer_id: string; stations: string[] }> }).data;
    expect(await jobsOf((await ok([{ product_id: soup.id, quantity: 1 }])).id)).toEqual([]);
    const printer = await make('/printers', { name: 'Keuken', host: '127.0.0.1', port: 9, stations: ['keuken'] });
    expect(await jobsOf((await ok([{ product_id: soup.id, quantity: 1 }])).id)).toMatchObject([{ printer_id: printer.id, stations: ['keuken'] }]);
    expect((await call('PATCH', `/printers/${printer.id}`, { stations: ['bar'] })).statusCode).toBe(200);
    expect(await jobsOf((await ok([{ product_id: soup.id, quantity: 1 }])).id)).toEqual([]);
    // The product moves to the bar: the bar's printer gets it.
    expect((await call('PATCH', `/products/${soup.id}`, { station: 'bar' })).statusCode).toBe(200);
    expect(await jobsOf((await ok([{ product_id: soup.id, quantity: 1 }])).id)).toMatchObject([{ printer_id: printer.id, stations: ['bar'] }]);
    expect((await call('DELETE', `/printers/${printer.id}`)).statusCode).toBe(204);
    expect(await jobsOf((await ok([{ product_id: soup.id, quantity: 1 }])).id)).toEqual([]);
  });

  it('the cache is per restaurant: one restaurant’s menu never answers for another', async () => {
    const { t, make, ok } = await setup();
    const friet = await make('/products', { name: 'Friet', price_cents: 395 });
    await ok([{ product_id: friet.id, quantity: 1 }]);
    const other = await t.seedTenant();
    const res = await t.req({ method: 'POST', url: '/api/v1/orders', cookie: await other.staffCookie(), payload: { items: [{ product_id: friet.id, quantity: 1 }] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].error).toMatch(/geen product van deze menukaart/);
  });
});
