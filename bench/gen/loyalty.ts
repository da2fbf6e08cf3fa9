/**
 * Loyalty's offline work for bench/sync-push-sql.ts (GEN=bench/gen/loyalty.ts N=100):
 *
 * - in the cloud: an offline allowance of 200 points, 5 regulars with 300 points each (earned on
 *   paid cloud orders, so each regular's lease of 200 is granted to the appliance), synced down;
 * - on the appliance, offline: N paid orders with a guest's phone (4 of 5 a regular, 1 of 5 a new
 *   guest, created by the order's earn), and after every 4th order a redemption of 15 points from
 *   the lease of a regular.
 *
 * Pushed: per order its order ops and one `loyalty.points_earned` (plus `loyalty.customer_created`
 * for a new guest), and the `loyalty.points_redeemed` ops; the cloud tops up the leases after each.
 */
import type { GenEnv } from '../sync-push-sql.js';

const REGULARS = ['0612340001', '0612340002', '0612340003', '0612340004', '0612340005'];

export async function generate(env: GenEnv): Promise<void> {
  const { cloud, app, engine, tenantId, products, actor, N } = env;
  await cloud.services.tenants.patchSettings(tenantId, { loyalty_offline_allowance: 200 });
  for (const phone of REGULARS) {
    // 300 × € 1,00: 300 points; the cloud leases 200 of them to the appliance.
    const { order } = await cloud.services.orders.create(actor, { items: [{ product_id: products[0]!, quantity: 300 }], customer: { phone } });
    await cloud.services.orders.markPaid(actor, order.id);
  }
  await engine.syncOnce();
  const who = { tenantId, userId: actor.userId };
  const ids = new Map<string, string>();
  for (const phone of REGULARS) ids.set(phone, (await app.services.loyalty.balanceByPhone(tenantId, phone)).customer_id);
  for (let i = 0; i < N; i++) {
    const phone = i % 5 === 4 ? `06${String(55_000_000 + i).padStart(8, '0')}` : REGULARS[i % REGULARS.length]!;
    const items = Array.from({ length: 3 }, (_, k) => ({ product_id: products[(i + k) % products.length]!, quantity: 2 }));
    const { order } = await app.services.orders.create(actor, { items, customer: { phone } });
    await app.services.orders.markPaid(actor, order.id);
    if (i % 4 === 3) await app.services.loyalty.redeem(who, { customer_id: ids.get(REGULARS[i % REGULARS.length]!)!, points: 15 });
  }
}
