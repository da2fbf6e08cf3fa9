import { describe, expect, it } from 'vitest';
import { expectError, levelOf, postStock, stockSetup, stockState } from './stock-helpers.js';

const NOWHERE = '0190a0a0-0000-7000-8000-000000000000';

describe('locations (CONTRACT §16): exactly one default per restaurant', () => {
  it('the first location is the default; making another the default moves it; lists answer {data}', async () => {
    const { t, r, admin } = await stockSetup();
    const other = await t.seedTenant();
    const oAdmin = await other.adminCookie();
    const first = await t.req({ method: 'POST', url: '/api/v1/locations', cookie: oAdmin, payload: { name: 'Koelcel' } });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ name: 'Koelcel', is_default: true, archived_at: null });
    const second = (await t.req({ method: 'POST', url: '/api/v1/locations', cookie: oAdmin, payload: { name: 'Bar', is_default: true } })).json();
    expect(second.is_default).toBe(true);
    const list = (await t.req({ method: 'GET', url: '/api/v1/locations', cookie: oAdmin })).json().data;
    expect(list.map((l: any) => [l.name, l.is_default])).toEqual([['Bar', true], ['Koelcel', false]]);
    const back = await t.req({ method: 'PATCH', url: `/api/v1/locations/${first.json().id}`, cookie: oAdmin, payload: { is_default: true, name: 'Koelcel 1' } });
    expect(back.json()).toMatchObject({ name: 'Koelcel 1', is_default: true });
    const after = (await t.req({ method: 'GET', url: '/api/v1/locations', cookie: oAdmin })).json().data;
    expect(after.filter((l: any) => l.is_default)).toHaveLength(1);
    // Each location change is in the change log (sync carries the un-set default too).
    const log = (await t.changes.readSince(other.id, 0, 1000)).filter((c) => c.entity === 'location');
    expect(log.map((c) => c.kind)).toEqual(['location.created', 'location.updated', 'location.created', 'location.updated', 'location.updated']);
    // Tenant isolation: our list is ours.
    expect((await t.req({ method: 'GET', url: '/api/v1/locations', cookie: admin })).json().data.map((l: any) => l.name)).toEqual(['Bar', 'Koelcel', 'Vriezer']);
    void r;
  });

  it('refusals: a duplicate name, archiving the default or a location that holds stock (409); validation (400); nothing changes', async () => {
    const { t, r, admin, staff, beef, koelcel, bar } = await stockSetup();
    await postStock(t, staff, { productId: beef.id, locationId: bar.id, type: 'INTAKE', quantity: 1 });
    const before = await t.services.stock.listLocations(r.id);
    const state = await stockState(t, r.id);
    expectError(await t.req({ method: 'POST', url: '/api/v1/locations', cookie: admin, payload: { name: 'koelcel' } }), 409, 'CONFLICT', /Er is al een locatie 'koelcel'/);
    expectError(await t.req({ method: 'PATCH', url: `/api/v1/locations/${bar.id}`, cookie: admin, payload: { name: 'Koelcel' } }), 409, 'CONFLICT');
    expectError(await t.req({ method: 'DELETE', url: `/api/v1/locations/${koelcel.id}`, cookie: admin }), 409, 'CONFLICT', /standaardlocatie kan niet worden verwijderd/);
    expectError(await t.req({ method: 'DELETE', url: `/api/v1/locations/${bar.id}`, cookie: admin }), 409, 'CONFLICT', /ligt nog voorraad van 1 product/);
    for (const [payload, field] of [[{ name: '' }, 'name'], [{}, 'name'], [{ name: 'x'.repeat(81) }, 'name'], [{ name: 'Kelder', colour: 'rood' }, 'colour']] as const) {
      expect(expectError(await t.req({ method: 'POST', url: '/api/v1/locations', cookie: admin, payload }), 400, 'VALIDATION', /^Ongeldige invoer/).details[0].field).toBe(field);
    }
    expect(expectError(await t.req({ method: 'PATCH', url: `/api/v1/locations/${koelcel.id}`, cookie: admin, payload: { is_default: false } }), 400, 'VALIDATION').details[0].field).toBe('is_default');
    expectError(await t.req({ method: 'PATCH', url: '/api/v1/locations/geen-id', cookie: admin, payload: { name: 'X' } }), 400, 'VALIDATION');
    expect(await t.services.stock.listLocations(r.id)).toEqual(before);
    expect(await stockState(t, r.id)).toEqual(state);
    // Empty it, then it can go; archived it no longer counts as a name or a place to book.
    await postStock(t, staff, { productId: beef.id, locationId: bar.id, type: 'REMOVAL', quantity: 1 });
    expect((await t.req({ method: 'DELETE', url: `/api/v1/locations/${bar.id}`, cookie: admin })).statusCode).toBe(204);
    expectError(await t.req({ method: 'DELETE', url: `/api/v1/locations/${bar.id}`, cookie: admin }), 404, 'NOT_FOUND', /^Locatie niet gevonden\.$/);
    expect((await t.req({ method: 'POST', url: '/api/v1/locations', cookie: admin, payload: { name: 'Bar' } })).statusCode).toBe(201);
  });

  it('admin only (403 for staff, 401 without a session); another restaurant’s location is 404', async () => {
    const { t, staff, admin } = await stockSetup();
    const other = await t.seedTenant();
    const theirs = await t.services.stock.createLocation(other.id, { name: 'Kelder' });
    for (const [method, url] of [['GET', '/api/v1/locations'], ['POST', '/api/v1/locations'], ['PATCH', `/api/v1/locations/${theirs.id}`], ['DELETE', `/api/v1/locations/${theirs.id}`], ['GET', `/api/v1/recipes/${NOWHERE}`], ['PUT', `/api/v1/recipes/${NOWHERE}`]] as const) {
      expectError(await t.req({ method, url, cookie: staff, ...(method === 'POST' || method === 'PATCH' || method === 'PUT' ? { payload: {} } : {}) }), 403, 'FORBIDDEN', /geen toegang/);
      expectError(await t.req({ method, url, ...(method === 'POST' || method === 'PATCH' || method === 'PUT' ? { payload: {} } : {}) }), 401, 'UNAUTHORIZED');
    }
    expectError(await t.req({ method: 'PATCH', url: `/api/v1/locations/${theirs.id}`, cookie: admin, payload: { name: 'Van ons' } }), 404, 'NOT_FOUND');
    expectError(await t.req({ method: 'PATCH', url: `/api/v1/locations/${theirs.id}`, cookie: admin, payload: { is_default: true } }), 404, 'NOT_FOUND');
    expectError(await t.req({ method: 'DELETE', url: `/api/v1/locations/${theirs.id}`, cookie: admin }), 404, 'NOT_FOUND');
    expect((await t.services.stock.listLocations(other.id))[0]).toMatchObject({ name: 'Kelder', is_default: true, archived_at: null });
  });
});

describe('ingredients are products that are never sold (on_menu: false)', () => {
  it('they stay out of GET /menu and cannot be ordered, but admins see and stock them', async () => {
    const { t, r, admin, staff, beef, burger } = await stockSetup();
    const menu = (await t.req({ method: 'GET', url: '/api/v1/menu', cookie: staff })).json();
    const names = menu.categories.flatMap((c: any) => c.products.map((p: any) => p.name));
    expect(names).toContain('Burger');
    expect(names).not.toContain('Rundergehakt');
    expect(names).not.toContain('Hamburgerbroodje');
    // The public menu is built from the same menu: the guest does not see them either.
    const pub = await t.req({ method: 'GET', url: `/api/v1/public/menu/${r.slug}` });
    expect(pub.statusCode).toBe(200);
    expect(pub.body).toContain('Burger');
    expect(pub.body).not.toContain('Rundergehakt');
    const order = await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: { items: [{ product_id: beef.id, quantity: 1 }] } });
    expect(order.statusCode).toBe(400);
    expect(order.json().details[0].field).toBe('items.0.product_id');
    const products = (await t.req({ method: 'GET', url: '/api/v1/products', cookie: admin })).json().data;
    expect(products.find((p: any) => p.id === beef.id)).toMatchObject({ on_menu: false, unit: 'kg' });
    expect(products.find((p: any) => p.id === burger.id)).toMatchObject({ on_menu: true });
    // The flag can be changed: put on the menu, it is orderable.
    await t.req({ method: 'PATCH', url: `/api/v1/products/${beef.id}`, cookie: admin, payload: { on_menu: true } });
    expect((await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: { items: [{ product_id: beef.id, quantity: 1 }] } })).statusCode).toBe(201);
  });
});

describe('recipes (CONTRACT §16)', () => {
  it('PUT replaces a recipe, GET shows it with its ingredient cost; an empty list removes it', async () => {
    const { t, r, admin, beef, buns, burger } = await stockSetup();
    const empty = await t.req({ method: 'GET', url: `/api/v1/recipes/${burger.id}`, cookie: admin });
    expect(empty.json()).toEqual({ product_id: burger.id, ingredients: [], cost_cents: null, complete: true, updated_at: null });
    const put = await t.req({ method: 'PUT', url: `/api/v1/recipes/${burger.id}`, cookie: admin, payload: { ingredients: [{ product_id: beef.id, quantity: 0.18 }, { product_id: buns.id, quantity: 1 }] } });
    expect(put.statusCode).toBe(200);
    // 0.18 kg × 1200 ct/kg + 1 × 35 ct = 251 ct
    expect(put.json()).toEqual({
      product_id: burger.id,
      ingredients: [
        { product_id: beef.id, name: 'Rundergehakt', unit: 'kg', quantity: 0.18, cost_cents: 216 },
        { product_id: buns.id, name: 'Hamburgerbroodje', unit: 'stuk', quantity: 1, cost_cents: 35 },
      ],
      cost_cents: 251,
      complete: true,
      updated_at: t.clock.now().toISOString(),
    });
    expect((await t.req({ method: 'GET', url: `/api/v1/recipes/${burger.id}`, cookie: admin })).json()).toEqual(put.json());
    expect(await t.services.stock.recipeCost(r.id, burger.id)).toBe(251);
    // An ingredient without a cost: counted as 0 and said so.
    const salt = await t.services.menu.createProduct(r.id, { name: 'Zout', price_cents: 0, unit: 'gram', on_menu: false });
    const withSalt = (await t.req({ method: 'PUT', url: `/api/v1/recipes/${burger.id}`, cookie: admin, payload: { ingredients: [{ product_id: beef.id, quantity: 0.18 }, { product_id: salt.id, quantity: 2 }] } })).json();
    expect(withSalt).toMatchObject({ cost_cents: 216, complete: false });
    const removed = (await t.req({ method: 'PUT', url: `/api/v1/recipes/${burger.id}`, cookie: admin, payload: { ingredients: [] } })).json();
    expect(removed).toMatchObject({ ingredients: [], cost_cents: null });
    expect(await t.services.stock.recipeCost(r.id, burger.id)).toBeNull();
    expect((await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.entity === 'recipe')).toHaveLength(3);
  });

  it('validation (400), unknown or another restaurant’s products in the path or the body (404); nothing changes', async () => {
    const { t, r, admin, beef, burger } = await stockSetup();
    const other = await t.seedTenant();
    const theirs = await t.services.menu.createProduct(other.id, { name: 'Kaas', price_cents: 0, unit: 'kg' });
    await t.services.stock.putRecipe(r.id, burger.id, { ingredients: [{ product_id: beef.id, quantity: 0.2 }] });
    const before = await t.services.stock.getRecipe(r.id, burger.id);
    const put = (id: string, payload: unknown) => t.req({ method: 'PUT', url: `/api/v1/recipes/${id}`, cookie: admin, payload: payload as object });
    for (const [payload, field, msg] of [
      [{ ingredients: [{ product_id: beef.id, quantity: 0 }] }, 'ingredients.0.quantity', /groter dan 0/],
      [{ ingredients: [{ product_id: beef.id, quantity: 0.0005 }] }, 'ingredients.0.quantity', /3 decimalen/],
      [{ ingredients: [{ product_id: beef.id, quantity: 1 }, { product_id: beef.id, quantity: 2 }] }, 'ingredients.1.product_id', /staat al eerder in het recept/],
      [{ ingredients: [{ product_id: 'rund', quantity: 1 }] }, 'ingredients.0.product_id', /geldige id/],
      [{}, 'ingredients', /verplicht/],
      [{ ingredients: [], extra: 1 }, 'extra', /Onbekend veld/],
    ] as const) {
      const b = expectError(await put(burger.id, payload), 400, 'VALIDATION', /^Ongeldige invoer: /);
      expect(b.details[0].field).toBe(field);
      expect(b.details[0].error).toMatch(msg);
    }
    expectError(await put(burger.id, { ingredients: [{ product_id: theirs.id, quantity: 1 }] }), 404, 'NOT_FOUND', /Ingrediënt niet gevonden/);
    expectError(await put(burger.id, { ingredients: [{ product_id: NOWHERE, quantity: 1 }] }), 404, 'NOT_FOUND');
    expectError(await put(theirs.id, { ingredients: [{ product_id: beef.id, quantity: 1 }] }), 404, 'NOT_FOUND', /^Product niet gevonden\.$/);
    expectError(await t.req({ method: 'GET', url: `/api/v1/recipes/${theirs.id}`, cookie: admin }), 404, 'NOT_FOUND');
    expect(await t.services.stock.getRecipe(r.id, burger.id)).toEqual(before);
    expect(await t.services.stock.getRecipe(other.id, theirs.id)).toMatchObject({ ingredients: [] });
  });
});

describe('recipe consumption when an order completes', () => {
  it('books each ingredient once from the default location, allowed below zero and flagged; a repeated completion books nothing more', async () => {
    const { t, r, admin, staff, beef, buns, burger, beer, koelcel } = await stockSetup();
    await t.services.stock.putRecipe(r.id, burger.id, { ingredients: [{ product_id: beef.id, quantity: 0.18 }, { product_id: buns.id, quantity: 1 }] });
    await t.services.stock.putRecipe(r.id, beer.id, { ingredients: [{ product_id: beer.id, quantity: 1 }] }); // a drink consumes itself
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 1 });
    await postStock(t, staff, { productId: buns.id, locationId: koelcel.id, type: 'INTAKE', quantity: 2 });
    const order = (await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: { items: [{ product_id: burger.id, quantity: 2 }, { product_id: beer.id, quantity: 3 }, { product_id: burger.id, quantity: 1 }] } })).json();
    // Not before it is completed.
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: 'ready' } });
    expect((await t.services.stock.movements(r.id, { limit: 50, offset: 0 })).total).toBe(2);
    const done = await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: 'completed' } });
    expect(done.statusCode).toBe(200);
    const sales = (await t.services.stock.movements(r.id, { limit: 50, offset: 0 })).data.filter((m) => m.source === 'sale');
    expect(sales.map((m) => [m.product_id, m.location_id, m.quantity, m.ref_id, m.note]).sort()).toEqual(
      [
        [beef.id, koelcel.id, -0.54, order.id, `Bestelling ${order.number}`],
        [buns.id, koelcel.id, -3, order.id, `Bestelling ${order.number}`],
        [beer.id, koelcel.id, -3, order.id, `Bestelling ${order.number}`],
      ].sort(),
    );
    expect(await levelOf(t, r.id, beef.id, koelcel.id)).toBe(0.46);
    expect(await levelOf(t, r.id, buns.id, koelcel.id)).toBe(-1);
    const stock = (await t.req({ method: 'GET', url: '/api/v1/stock', cookie: staff })).json().data;
    expect(stock.find((i: any) => i.product_id === buns.id)).toMatchObject({ total: -1, below_zero: true, locations: [{ name: 'Koelcel', quantity: -1, below_zero: true }] });
    // Completed again: a no-op for the order, and nothing booked twice.
    expect((await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: 'completed' } })).statusCode).toBe(200);
    expect((await t.req({ method: 'POST', url: `/api/v1/orders/${order.id}/advance`, cookie: staff, payload: { status: 'completed' } })).statusCode).toBeLessThan(500);
    expect((await t.services.stock.movements(r.id, { limit: 50, offset: 0 })).data.filter((m) => m.source === 'sale')).toHaveLength(3);
    expect(await levelOf(t, r.id, buns.id, koelcel.id)).toBe(-1);
    // A cancelled order books nothing.
    const cancelled = (await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: { items: [{ product_id: burger.id, quantity: 1 }] } })).json();
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${cancelled.id}`, cookie: admin, payload: { status: 'cancelled' } });
    expect((await t.services.stock.movements(r.id, { limit: 50, offset: 0 })).data.filter((m) => m.source === 'sale')).toHaveLength(3);
  });

  it('a restaurant without locations gets one ("Voorraad", the default) the first time something must be booked', async () => {
    const { t, r, admin, staff } = await (async () => {
      const { createTestApp } = await import('../../../helpers/app.js');
      const t = await createTestApp();
      const r = await t.seedTenant();
      return { t, r, admin: await r.adminCookie(), staff: await r.staffCookie() };
    })();
    const fries = await t.services.menu.createProduct(r.id, { name: 'Friet', price_cents: 400 });
    const potatoes = await t.services.menu.createProduct(r.id, { name: 'Aardappelen', price_cents: 0, unit: 'kg', on_menu: false });
    await t.services.stock.putRecipe(r.id, fries.id, { ingredients: [{ product_id: potatoes.id, quantity: 0.25 }] });
    const order = (await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: { items: [{ product_id: fries.id, quantity: 2 }] } })).json();
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: 'completed' } });
    const locations = await t.services.stock.listLocations(r.id);
    expect(locations).toMatchObject([{ name: 'Voorraad', is_default: true }]);
    expect(await levelOf(t, r.id, potatoes.id, locations[0]!.id)).toBe(-0.5);
  });

  it('bookWaste (for the waste area) removes stock inside the caller’s transaction, below zero allowed, once per waste entry', async () => {
    const { t, r, beef, koelcel, bar } = await stockSetup();
    const wasteId = '0190a0a0-0000-7000-8000-0000000000aa';
    const book = () => t.changes.write(r.id, (w) => t.services.stock.bookWaste(w, { tenantId: r.id, wasteId, productId: beef.id, quantity: 1.5, reason: 'bederf', userId: r.staffId }));
    const first = await book();
    expect(first.movement).toMatchObject({ type: 'REMOVAL', source: 'waste', ref_id: wasteId, reason: 'bederf', quantity: -1.5, location_id: koelcel.id, level_after: -1.5 });
    expect((await book()).movement.id).toBe(first.movement.id);
    expect(await levelOf(t, r.id, beef.id, koelcel.id)).toBe(-1.5);
    // At a chosen location; a failing caller rolls the removal back with its own rows.
    await expect(
      t.changes.write(r.id, async (w) => {
        await t.services.stock.bookWaste(w, { tenantId: r.id, wasteId: '0190a0a0-0000-7000-8000-0000000000bb', productId: beef.id, quantity: 1, locationId: bar.id });
        throw new Error('the waste entry could not be stored');
      }),
    ).rejects.toThrow();
    expect(await levelOf(t, r.id, beef.id, bar.id)).toBe(0);
    await expect(t.changes.write(r.id, (w) => t.services.stock.bookWaste(w, { tenantId: r.id, wasteId, productId: beef.id, quantity: 0 }))).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(t.changes.write(r.id, (w) => t.services.stock.bookWaste(w, { tenantId: r.id, wasteId, productId: NOWHERE, quantity: 1 }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
