import { describe, expect, it } from 'vitest';
import { countChanges, countRows, guest, payWorld, publicOrder } from '../payments/helpers.js';

describe('GET /public/menu/:slug', () => {
  it('the restaurant’s name and its available products by category, without costs or internal fields', async () => {
    const w = await payWorld();
    const res = await w.t.req({ method: 'GET', url: `/api/v1/public/menu/${w.r.slug}` });
    expect(res.statusCode).toBe(200);
    const m = res.json();
    expect(m.restaurant).toMatchObject({ name: 'Eetcafé De Proef', slug: w.r.slug, address: null, phone: null, max_party_size: 8 });
    expect(m.restaurant.opening_hours.fri).toEqual([['12:00', '14:30'], ['17:00', '23:00']]);
    expect(m.ordering).toEqual({ accepting: true, message: null });
    const names = m.categories.flatMap((c: { products: Array<{ name: string }> }) => c.products.map((p) => p.name));
    expect(names.sort()).toEqual(['Burger', 'Cola', 'Friet']);
    expect(m.categories[0]).toEqual({ id: w.menu.categoryId, name: 'Hoofdgerechten', products: expect.any(Array) });
    expect(m.categories[0].products[0]).toEqual({ id: expect.any(String), name: expect.any(String), description: null, price_cents: expect.any(Number), allergens: [], dietary: [], modifier_groups: [] });
    expect(res.body).not.toMatch(/cost_cents|vat_rate|archived|min_level|available/);
  });

  it('shows guests where the restaurant is, how to call and when it is open (settings; issue 26)', async () => {
    const w = await payWorld();
    const admin = await w.r.adminCookie();
    const set = await w.t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, payload: { address: 'Lepelstraat 1, 1011 AB Amsterdam', phone: '020 123 4567', opening_hours: { sat: [['17:00', '23:00']] }, max_party_size: 10 } });
    expect(set.statusCode).toBe(200);
    const m = (await w.t.req({ method: 'GET', url: `/api/v1/public/menu/${w.r.slug}` })).json();
    expect(m.restaurant).toEqual({ name: 'Eetcafé De Proef', slug: w.r.slug, address: 'Lepelstraat 1, 1011 AB Amsterdam', phone: '020 123 4567', opening_hours: { sat: [['17:00', '23:00']] }, max_party_size: 10 });
    const long = await w.t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, payload: { address: 'x'.repeat(201) } });
    expect(long.statusCode).toBe(400);
    expect(long.json().details[0].field).toBe('address');
    expect((await w.t.req({ method: 'PATCH', url: '/api/v1/settings', payload: { address: 'x' } })).statusCode).toBe(401);
    expect((await w.t.req({ method: 'GET', url: `/api/v1/public/menu/${w.r.slug}` })).json().restaurant.address).toBe('Lepelstraat 1, 1011 AB Amsterdam');
  });

  it('a new name shows at once although the restaurant was looked up by its slug before (the cached row is forgotten on the change)', async () => {
    const w = await payWorld();
    const menu = async () => (await w.t.req({ method: 'GET', url: `/api/v1/public/menu/${w.r.slug}` })).json();
    expect((await menu()).restaurant.name).toBe('Eetcafé De Proef');
    const set = await w.t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: await w.r.adminCookie(), payload: { name: 'De Nieuwe Proef' } });
    expect(set.statusCode).toBe(200);
    expect((await menu()).restaurant.name).toBe('De Nieuwe Proef');
    const order = await publicOrder(w);
    expect(order.statusCode).toBe(201);
  });

  it("the slug's read gives the settings too: a restaurant's first web order reads its row once, and a change through the service is still seen at once", async () => {
    const w = await payWorld();
    const tenants = w.t.services.tenants;
    const { tenant } = await tenants.create({ slug: 'de-tweede', name: 'De Tweede', admin_email: 'admin@tweede.test', admin_password: 'geheim-wachtwoord-1' });
    const row = await tenants.cachedBySlug('de-tweede');
    expect(row?.id).toBe(tenant.id);
    // Changed behind the service's back (no change, no notice): only a read would see it. The
    // settings come from the row the slug lookup read, so no second read happens.
    await w.t.handle.db.updateTable('tenants').set({ settings: JSON.stringify({ max_party_size: 3 }) }).where('id', '=', tenant.id).execute();
    expect((await tenants.cachedSettings(tenant.id)).max_party_size).toBe(8);
    // A change through the service (this node's commit) drops both at once.
    await tenants.patchSettings(tenant.id, { max_party_size: 12 });
    expect((await tenants.cachedSettings(tenant.id)).max_party_size).toBe(12);
    expect((await w.t.req({ method: 'GET', url: '/api/v1/public/menu/de-tweede' })).json().restaurant.max_party_size).toBe(12);
  });

  it('an unknown slug is 404 in Dutch', async () => {
    const w = await payWorld();
    const res = await w.t.req({ method: 'GET', url: '/api/v1/public/menu/bestaat-niet' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', error: 'Restaurant niet gevonden.' });
  });
});

describe('POST /public/order/:slug (CONTRACT §11)', () => {
  it('prices from the menu, source web, order.created once, 201 with the order and a checkout_url', async () => {
    const w = await payWorld();
    const res = await publicOrder(w, { notes: 'extra mayo', customer: { ...guest, phone: '+31 6 1234 5678' } });
    expect(res.statusCode).toBe(201);
    const b = res.json();
    expect(b.order).toMatchObject({ source: 'web', status: 'new', payment_status: 'open', total_cents: 2240, notes: '[Afhalen] extra mayo', customer: { name: 'Jan Jansen', phone: '+31612345678' } });
    expect(b.order.number).toMatch(/^K-\d{3}$/);
    expect(b.checkout_url).toMatch(/\/api\/v1\/payments\/simulator\/sim_/);
    expect(b.restaurant_online).toBe(true);
    expect(await countChanges(w.t, w.r.id, 'order.created', b.order.id)).toBe(1);
    expect(await countChanges(w.t, w.r.id, 'public_order.created', b.order.id)).toBe(1);
    // The kitchen sees it on the live board.
    const live = await w.t.req({ method: 'GET', url: '/api/v1/orders/live', cookie: w.staff });
    expect(live.json().data.map((o: { id: string }) => o.id)).toContain(b.order.id);
    // The guest can follow it; phone numbers stay private.
    const view = await w.t.req({ method: 'GET', url: `/api/v1/public/order/${w.r.slug}/${b.order.id}` });
    expect(view.json()).toMatchObject({ id: b.order.id, type: 'pickup', payment_status: 'open', seen_by_restaurant: true, payment: { id: b.payment_id, status: 'open' } });
    expect(view.body).not.toContain('31612345678');
  });

  it('delivery carries its address to the kitchen; a price sent by the guest is not even accepted', async () => {
    const w = await payWorld();
    const res = await publicOrder(w, { type: 'delivery', delivery_address: 'Dorpsstraat 1, Utrecht' });
    expect(res.statusCode).toBe(201);
    expect(res.json().order.notes).toBe('[Bezorgen: Dorpsstraat 1, Utrecht]');
    const cheat = await w.t.req({ method: 'POST', url: `/api/v1/public/order/${w.r.slug}`, payload: { items: [{ product_id: w.menu.burger.id, quantity: 1, unit_price_cents: 1 }], customer: guest, type: 'pickup' } });
    expect(cheat.statusCode).toBe(400);
    expect(cheat.json().details[0].field).toBe('items.0.unit_price_cents');
  });

  it.each([
    ['no customer', { customer: undefined }, 'customer', /verplicht/],
    ['no phone', { customer: { name: 'Jan' } }, 'customer.phone', /verplicht/],
    ['a phone that is not one', { customer: { name: 'Jan', phone: '1234567' } }, 'customer.phone', /geldig telefoonnummer/],
    ['a phone the number plan does not have', { customer: { name: 'Jan', phone: '06 99999999' } }, 'customer.phone', /geldig telefoonnummer/],
    ['a bad e-mail', { customer: { ...guest, email: 'jan@' } }, 'customer.email', /e-mailadres/],
    ['an unknown type', { type: 'drone' }, 'type', /pickup, delivery, table/],
    ['table without its table', { type: 'table' }, 'table', /verplicht bij type 'table'/],
    ['delivery without an address', { type: 'delivery' }, 'delivery_address', /verplicht bij type 'delivery'/],
    ['no items', { items: [] }, 'items', /minstens één/],
    ['quantity 0', { items: [{ product_id: '0190a0a0-0000-7000-8000-000000000000', quantity: 0 }] }, 'items.0.quantity', /minimaal 1/],
    ['an unknown product', { items: [{ product_id: '0190a0a0-0000-7000-8000-000000000000', quantity: 1 }] }, 'items.0.product_id', /geen product van deze menukaart/],
  ])('%s is 400 VALIDATION in Dutch naming the field, and nothing is created', async (_n, extra, field, msg) => {
    const w = await payWorld();
    const res = await publicOrder(w, extra);
    expect(res.statusCode).toBe(400);
    const b = res.json();
    expect(b.code).toBe('VALIDATION');
    expect(b.error).toMatch(/^Ongeldige invoer: /);
    expect(b.details[0].field).toBe(field);
    expect(b.details[0].error).toMatch(msg);
    expect(await countRows(w.t, 'orders', w.r.id)).toBe(0);
    expect(await countRows(w.t, 'payments', w.r.id)).toBe(0);
    expect(await countRows(w.t, 'public_orders', w.r.id)).toBe(0);
  });

  it('unavailable, archived and other restaurants’ products are refused; another slug is 404', async () => {
    const w = await payWorld();
    const other = await w.t.seedTenant();
    const { seedMenu } = await import('../../../helpers/factories.js');
    const otherMenu = await seedMenu(w.t, other.id);
    for (const pid of [w.menu.soep.id, w.menu.oud.id, otherMenu.friet.id]) {
      const res = await publicOrder(w, { items: [{ product_id: pid, quantity: 1 }] });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].field).toBe('items.0.product_id');
    }
    expect((await publicOrder(w, {}, 'bestaat-niet')).statusCode).toBe(404);
    expect(await countRows(w.t, 'orders')).toBe(0);
    // A guest cannot read another restaurant's order, nor a staff order.
    const mine = (await publicOrder(w)).json();
    expect((await w.t.req({ method: 'GET', url: `/api/v1/public/order/${other.slug}/${mine.order.id}` })).statusCode).toBe(404);
    const staffOrder = await w.t.req({ method: 'POST', url: '/api/v1/orders', cookie: w.staff, payload: { items: [{ product_id: w.menu.cola.id, quantity: 1 }] } });
    expect((await w.t.req({ method: 'GET', url: `/api/v1/public/order/${w.r.slug}/${staffOrder.json().id}` })).statusCode).toBe(404);
  });

  it('idempotent: the same key (body or header) answers 200 with the same order and checkout; another body is 409', async () => {
    const w = await payWorld();
    const first = await publicOrder(w, { idempotency_key: 'gast-42' });
    const again = await publicOrder(w, { idempotency_key: 'gast-42' });
    expect([first.statusCode, again.statusCode]).toEqual([201, 200]);
    expect(again.json().order.id).toBe(first.json().order.id);
    expect(again.json().checkout_url).toBe(first.json().checkout_url);
    const header = await w.t.req({
      method: 'POST',
      url: `/api/v1/public/order/${w.r.slug}`,
      headers: { 'idempotency-key': 'gast-42' },
      payload: { items: [{ product_id: w.menu.friet.id, quantity: 2 }, { product_id: w.menu.burger.id, quantity: 1 }], customer: guest, type: 'pickup' },
    });
    expect(header.statusCode).toBe(200);
    expect(header.json().order.id).toBe(first.json().order.id);
    const different = await publicOrder(w, { idempotency_key: 'gast-42', items: [{ product_id: w.menu.cola.id, quantity: 1 }] });
    expect(different.statusCode).toBe(409);
    expect(different.json().code).toBe('CONFLICT');
    // A guest's key never meets a staff order's key.
    const staff = await w.t.req({ method: 'POST', url: '/api/v1/orders', cookie: w.staff, payload: { items: [{ product_id: w.menu.cola.id, quantity: 1 }], idempotency_key: 'gast-43' } });
    expect(staff.statusCode).toBe(201);
    expect((await publicOrder(w, { idempotency_key: 'gast-43' })).statusCode).toBe(201);
    expect(await countRows(w.t, 'orders', w.r.id)).toBe(3);
    expect(await countRows(w.t, 'payments', w.r.id)).toBe(2);
  });

  it('ten identical requests at once make one order and one payment', async () => {
    const w = await payWorld();
    const all = await Promise.all(Array.from({ length: 10 }, () => publicOrder(w, { idempotency_key: 'tegelijk' })));
    expect(all.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(all.filter((r) => r.statusCode === 200)).toHaveLength(9);
    expect(new Set(all.map((r) => r.json().checkout_url)).size).toBe(1);
    expect(await countRows(w.t, 'orders', w.r.id)).toBe(1);
    expect(await countRows(w.t, 'payments', w.r.id)).toBe(1);
    expect(await countRows(w.t, 'payment_simulator')).toBe(1);
    expect(await countChanges(w.t, w.r.id, 'order.created')).toBe(1);
  });

  it('a table order naming no table of this restaurant is refused (tafel.test.ts has the rest)', async () => {
    const w = await payWorld();
    const res = await publicOrder(w, { type: 'table', table: 'T-bestaat-niet' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toEqual({ field: 'table', error: "'table' is geen tafel van dit restaurant." });
    expect(await countRows(w.t, 'orders', w.r.id)).toBe(0);
  });
});

describe('GET /public-ordering/status (admin)', () => {
  it('401 without a session, 403 for staff; on the appliance nothing is silent', async () => {
    const w = await payWorld();
    expect((await w.t.req({ method: 'GET', url: '/api/v1/public-ordering/status' })).statusCode).toBe(401);
    expect((await w.t.req({ method: 'GET', url: '/api/v1/public-ordering/status', cookie: w.staff })).statusCode).toBe(403);
    const res = await w.t.req({ method: 'GET', url: '/api/v1/public-ordering/status', cookie: w.admin });
    expect(res.json()).toEqual({ role: 'local', appliance: null, pause_after_minutes: null, paused: false, unseen_orders: [] });
  });
});
