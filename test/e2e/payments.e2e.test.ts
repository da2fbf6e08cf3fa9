import { afterAll, describe, expect, it } from 'vitest';
import { Cluster, http } from './cluster.js';

/**
 * Issue 12, "Done when": end to end with real processes (test/e2e/cluster.ts: a cloud on a fresh
 * PostgreSQL database and an appliance on SQLite, syncing). A guest orders from the cloud's public
 * menu, pays at the simulator's checkout (the cloud runs without MOLLIE_API_KEY), the callback is
 * handled in the cloud, and the appliance shows the order paid within 2 s.
 */
describe('payments end to end: paid in the cloud, paid on the appliance', () => {
  let cluster: Cluster | null = null;
  afterAll(async () => {
    await cluster?.close();
  });

  it('a public order paid in the cloud shows as paid on the appliance within 2 s', async () => {
    const c = (cluster = await Cluster.create());
    const menu = await http(c.cloud.base, 'GET', `/api/v1/public/menu/${c.slug}`);
    expect(menu.status).toBe(200);
    const products = menu.body.categories.flatMap((cat: { products: Array<{ id: string; price_cents: number }> }) => cat.products);
    const placed = await http(c.cloud.base, 'POST', `/api/v1/public/order/${c.slug}`, {
      body: { items: [{ product_id: products[0].id, quantity: 2 }], customer: { name: 'Eva', phone: '0612345678' }, type: 'pickup', idempotency_key: 'e2e-gast-1' },
    });
    expect(placed.status).toBe(201);
    const { order, checkout_url: checkoutUrl, payment_id: paymentId } = placed.body;
    expect(order.number).toMatch(/^W-/);
    expect(checkoutUrl.startsWith(`${c.cloud.base}/api/v1/payments/simulator/`)).toBe(true);

    // The kitchen has it (still unpaid) before the guest pays: what follows measures the payment alone.
    const view = (base: string) => http(base, 'GET', `/api/v1/public/order/${c.slug}/${order.id}`);
    await c.until('the order on the appliance', 15_000, async () => (await view(c.appliance.base)).body?.payment_status === 'open');

    // The guest chooses "betaald" on the checkout page (a form post, as the browser sends it).
    const chosen = await fetch(checkoutUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'uitkomst=betaald', redirect: 'manual' });
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe(`${c.cloud.base}/api/v1/public/betaling/${paymentId}`);
    const paidAt = Date.now();
    expect((await view(c.cloud.base)).body.payment_status).toBe('paid');

    const ms = await c.until('the order paid on the appliance', 2_000, async () => (await view(c.appliance.base)).body?.payment_status === 'paid');
    console.log(`paid in the cloud → paid on the appliance: ${Date.now() - paidAt} ms`);
    expect(ms).toBeLessThanOrEqual(2_000);
    // The payment itself arrived too (as the cloud recorded it), and the cloud sees a live appliance.
    const cookies = (c as unknown as { cookies: { applianceAdmin: string; cloudAdmin: string } }).cookies;
    await c.until('the payment on the appliance', 5_000, async () => (await http(c.appliance.base, 'GET', `/api/v1/payments/${paymentId}`, { cookie: cookies.applianceAdmin })).body?.status === 'paid');
    const status = await http(c.cloud.base, 'GET', '/api/v1/public-ordering/status', { cookie: cookies.cloudAdmin });
    expect(status.body.appliance).toMatchObject({ silent: false });
    // Seen by the restaurant: the appliance has pulled since the order was committed.
    await c.until('the order counted as seen', 25_000, async () => (await http(c.cloud.base, 'GET', '/api/v1/public-ordering/status', { cookie: cookies.cloudAdmin })).body.unseen_orders.length === 0);
    expect((await view(c.cloud.base)).body.seen_by_restaurant).toBe(true);
  });
});
