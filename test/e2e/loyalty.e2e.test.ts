import { afterAll, describe, expect, it } from 'vitest';
import { Cluster, http } from './cluster.js';

/**
 * Issue 9 end to end with real processes (test/e2e/cluster.ts: a cloud on a fresh PostgreSQL
 * database, an appliance on SQLite with CLOUD_URL and SYNC_KEY): the escrow through the production
 * wiring. Points earned in the cloud; the cloud leases the appliance its allowance through sync; the
 * appliance redeems beyond its lease online (its HTTP link with the SYNC_KEY, returning the lease in
 * the request); with the cloud killed it redeems only what its lease holds; after the restart both
 * sides agree and nothing went below zero.
 */
describe('loyalty end to end: the escrow between a cloud and an appliance', () => {
  let cluster: Cluster | null = null;
  afterAll(async () => {
    await cluster?.close();
  });

  it('lease granted through sync, online redemption beyond it, offline redemption within it, both sides equal afterwards', async () => {
    const c = (cluster = await Cluster.create());
    const cookies = (c as unknown as { cookies: { cloudAdmin: string; cloudStaff: string; applianceStaff: string } }).cookies;
    const products = (c as unknown as { products: Array<{ id: string; price_cents: number }> }).products;
    const phone = '06 24681357';
    const view = async (base: string, cookie: string) => (await http(base, 'GET', `/api/v1/loyalty/customer/${encodeURIComponent(phone)}`, { cookie })).body;
    const redeem = (base: string, cookie: string, customer_id: string, points: number) => http(base, 'POST', '/api/v1/loyalty/redeem', { cookie, body: { customer_id, points } });

    expect((await http(c.cloud.base, 'PATCH', '/api/v1/settings', { cookie: cookies.cloudAdmin, body: { loyalty_offline_allowance: 50 } })).status).toBe(200);
    // 20 × Bier (€ 4,25) = € 85,00, paid in the cloud: 85 points; the appliance's lease 50, the cloud's pool 35.
    const bier = products.find((p) => p.price_cents === 425)!;
    const placed = await http(c.cloud.base, 'POST', '/api/v1/orders', { cookie: cookies.cloudStaff, body: { items: [{ product_id: bier.id, quantity: 20 }], customer: { name: 'Vera', phone } } });
    expect(placed.status).toBe(201);
    expect((await http(c.cloud.base, 'PATCH', `/api/v1/orders/${placed.body.id}`, { cookie: cookies.cloudAdmin, body: { payment_status: 'paid' } })).status).toBe(200);
    expect(await view(c.cloud.base, cookies.cloudStaff)).toMatchObject({ balance: 85, redeemable_here: 35 });
    await c.until('the points and the lease on the appliance', 15_000, async () => {
      const v = await view(c.appliance.base, cookies.applianceStaff);
      return v?.balance === 85 && v?.redeemable_here === 50;
    });
    const customerId = (await view(c.appliance.base, cookies.applianceStaff)).id as string;

    // Online, beyond the lease: the appliance returns its 50 and the cloud redeems 70 of 85.
    const online = await redeem(c.appliance.base, cookies.applianceStaff, customerId, 70);
    expect(online.status).toBe(200);
    expect(online.body).toMatchObject({ customer_id: customerId, points_redeemed: 70, balance: 15 });
    // The cloud tops the lease up from what is left (15) and the appliance pulls it.
    await c.until('the new lease on the appliance', 15_000, async () => {
      const v = await view(c.appliance.base, cookies.applianceStaff);
      return v?.balance === 15 && v?.redeemable_here === 15;
    });

    // The cloud is gone: the appliance spends only its lease.
    await c.cloud.kill('SIGKILL');
    const offline = await redeem(c.appliance.base, cookies.applianceStaff, customerId, 10);
    expect(offline.status).toBe(200);
    expect(offline.body.balance).toBe(5);
    const refused = await redeem(c.appliance.base, cookies.applianceStaff, customerId, 10);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('Onvoldoende punten: saldo 5, gevraagd 10.');

    await c.cloud.start();
    await c.until('the offline redemption in the cloud', 30_000, async () => (await view(c.cloud.base, cookies.cloudStaff))?.balance === 5);
    const cloudSide = await view(c.cloud.base, cookies.cloudStaff);
    const applianceSide = await view(c.appliance.base, cookies.applianceStaff);
    expect(cloudSide.transactions).toEqual(applianceSide.transactions);
    expect(cloudSide.transactions.map((t: { type: string; points: number }) => `${t.type} ${t.points}`)).toEqual(['redeem -10', 'redeem -70', 'earn 85']);
    expect(cloudSide.redeemable_here + applianceSide.redeemable_here).toBe(5);
  });
});
