/**
 * Offline floor work for bench/sync-push-sql.ts (GEN=bench/gen/floor.ts N=100): ten tables made in
 * the cloud and synced down, then N table visits on the appliance, the tables in turn: an order with
 * `table_id` (opens the table's bill: bill.opened, bill.round_added), a second round, staff paying
 * the whole bill at the table (bill.payment_recorded, which closes it: bill.closed, its orders'
 * order.paid), with the tables' status announcements (table.status_changed) in between.
 */
import type { GenEnv } from '../sync-push-sql.js';

export async function generate(env: GenEnv): Promise<void> {
  const { cloud, app, engine, tenantId, products, actor, N } = env;
  const zone = await cloud.services.floor.createZone(tenantId, { name: 'binnen' });
  const tables: string[] = [];
  for (let i = 0; i < 10; i++) tables.push((await cloud.services.floor.createTable(tenantId, { zone_id: zone.id, name: `T${i + 1}`, seats: 4, x: 10 * i, y: 0 })).id);
  await engine.syncOnce();
  for (let i = 0; i < N; i++) {
    const table_id = tables[i % tables.length]!;
    await app.services.orders.create(actor, { table_id, items: [{ product_id: products[i % products.length]!, quantity: 2 }] });
    await app.services.orders.create(actor, { table_id, items: [{ product_id: products[(i + 3) % products.length]!, quantity: 1 }] });
    const bill = await app.services.floor.tableBill(tenantId, table_id);
    await app.services.floor.payBill(actor, bill.id, { amount_cents: bill.open_cents, tip_cents: 50 });
  }
}
