import { afterAll, describe, expect, it } from 'vitest';
import { Cluster, http } from './cluster.js';

/**
 * Issue 8 end to end with real processes (test/e2e/cluster.ts: a cloud on a fresh PostgreSQL
 * database, an appliance on SQLite with CLOUD_URL and SYNC_KEY): stock set up in the cloud reaches
 * the appliance; with the cloud killed, staff on the appliance book intake, removals, a transfer and
 * a count, are refused a removal below zero, and complete an order whose recipe consumes stock;
 * the cloud comes back and books a delivery of its own; afterwards both sides show the same levels
 * (GET /stock), the same ledger, and exactly what the movements add up to.
 */
describe('stock end to end: moved on the appliance during a cloud outage', () => {
  let cluster: Cluster | null = null;
  afterAll(async () => {
    await cluster?.close();
  });

  it('the same levels on both sides afterwards', async () => {
    const c = (cluster = await Cluster.create());
    const cookies = (c as unknown as { cookies: { cloudAdmin: string; cloudStaff: string; applianceStaff: string; applianceAdmin: string } }).cookies;
    const products = (c as unknown as { products: Array<{ id: string; price_cents: number }> }).products;
    const friet = products.find((p) => p.price_cents === 350)!;
    const bier = products.find((p) => p.price_cents === 425)!;
    const ok = (r: { status: number; body: unknown }, status = 201) => {
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      return r.body as any;
    };

    // Set up in the cloud: an ingredient, two locations, recipes, opening stock.
    const cloud = (method: string, url: string, body?: unknown, cookie = cookies.cloudAdmin) => http(c.cloud.base, method, url, { cookie, body });
    const appliance = (method: string, url: string, body?: unknown, cookie = cookies.applianceStaff) => http(c.appliance.base, method, url, { cookie, body });
    const potatoes = ok(await cloud('POST', '/api/v1/products', { name: 'Aardappelen', price_cents: 0, cost_cents: 90, unit: 'kg', min_level: 5, on_menu: false }));
    const koelcel = ok(await cloud('POST', '/api/v1/locations', { name: 'Koelcel' }));
    const bar = ok(await cloud('POST', '/api/v1/locations', { name: 'Bar' }));
    ok(await cloud('PUT', `/api/v1/recipes/${friet.id}`, { ingredients: [{ product_id: potatoes.id, quantity: 0.25 }] }), 200);
    ok(await cloud('PUT', `/api/v1/recipes/${bier.id}`, { ingredients: [{ product_id: bier.id, quantity: 1 }] }), 200);
    ok(await cloud('POST', '/api/v1/stock', { productId: potatoes.id, locationId: koelcel.id, type: 'INTAKE', quantity: 10 }, cookies.cloudStaff));
    ok(await cloud('POST', '/api/v1/stock', { productId: bier.id, locationId: koelcel.id, type: 'INTAKE', quantity: 24 }, cookies.cloudStaff));
    const stockOf = async (base: string, cookie: string) => {
      const r = await http(base, 'GET', '/api/v1/stock', { cookie });
      return r.status === 200 ? (r.body.data as Array<{ product_id: string; total: number; locations: Array<{ location_id: string; quantity: number }> }>) : null;
    };
    await c.until('the stock on the appliance', 30_000, async () => JSON.stringify(await stockOf(c.appliance.base, cookies.applianceStaff)) === JSON.stringify(await stockOf(c.cloud.base, cookies.cloudStaff)));

    // The cloud is gone. Staff keep counting and moving stock on the appliance.
    await c.cloud.kill('SIGKILL');
    ok(await appliance('POST', '/api/v1/stock', { productId: potatoes.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 1.5, reason: 'personeelsmaaltijd' }));
    ok(await appliance('POST', '/api/v1/stock', { productId: bier.id, locationId: koelcel.id, type: 'TRANSFER_OUT', toLocationId: bar.id, quantity: 12 }));
    ok(await appliance('POST', '/api/v1/stock', { productId: bier.id, locationId: bar.id, type: 'ADJUSTMENT', quantity: 11, note: 'telling' }));
    ok(await appliance('POST', '/api/v1/stock', { product_id: potatoes.id, location_id: bar.id, type: 'INTAKE', quantity: 2.5 }));
    const refused = await appliance('POST', '/api/v1/stock', { productId: potatoes.id, locationId: bar.id, type: 'REMOVAL', quantity: 3 });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/^Onvoldoende voorraad op deze locatie/);
    // An order of 4 Friet and 2 Bier, completed: 1 kg potatoes and 2 beers from the default location (Koelcel).
    const order = ok(await appliance('POST', '/api/v1/orders', { items: [{ product_id: friet.id, quantity: 4 }, { product_id: bier.id, quantity: 2 }] }));
    ok(await appliance('PATCH', `/api/v1/orders/${order.id}`, { status: 'completed' }, cookies.applianceAdmin), 200);
    ok(await appliance('PATCH', `/api/v1/orders/${order.id}`, { status: 'completed' }, cookies.applianceAdmin), 200); // again: nothing more
    expect(await c.pending()).toBeGreaterThan(0);

    // The cloud comes back; a delivery is booked there while the appliance catches up.
    await c.cloud.start();
    ok(await cloud('POST', '/api/v1/stock', { productId: potatoes.id, locationId: koelcel.id, type: 'INTAKE', quantity: 5 }, cookies.cloudStaff));
    await c.until('both sides with the same stock and nothing pending', 30_000, async () => {
      if ((await c.pending()) !== 0) return false;
      const [a, b] = [await stockOf(c.appliance.base, cookies.applianceStaff), await stockOf(c.cloud.base, cookies.cloudStaff)];
      return a !== null && JSON.stringify(a) === JSON.stringify(b) && a.find((i) => i.product_id === potatoes.id)?.total === 15;
    });
    for (const [base, cookie] of [[c.appliance.base, cookies.applianceStaff], [c.cloud.base, cookies.cloudStaff]] as const) {
      const items = (await stockOf(base, cookie))!;
      const at = (productId: string, locationId: string) => items.find((i) => i.product_id === productId)?.locations.find((l) => l.location_id === locationId)?.quantity;
      expect(at(potatoes.id, koelcel.id)).toBe(12.5); // 10 − 1.5 − 1 (sold) + 5 (delivered in the cloud)
      expect(at(potatoes.id, bar.id)).toBe(2.5);
      expect(at(bier.id, koelcel.id)).toBe(10); // 24 − 12 − 2 (sold)
      expect(at(bier.id, bar.id)).toBe(11); // counted
      // The ledger is the same on both sides: every movement once.
      const ledger = (await http(base, 'GET', '/api/v1/stock/movements?limit=200', { cookie })).body;
      expect(ledger.total).toBe(10); // 2 opening intakes, removal, transfer (2 legs), count, intake, 2 sales, delivery
      expect(ledger.data.filter((m: { source: string }) => m.source === 'sale')).toHaveLength(2);
    }
    const ledgers = await Promise.all([c.appliance.base, c.cloud.base].map(async (base, i) => (await http(base, 'GET', '/api/v1/stock/movements?limit=200', { cookie: i === 0 ? cookies.applianceStaff : cookies.cloudStaff })).body.data));
    expect(ledgers[0]).toEqual(ledgers[1]);
  });
});
