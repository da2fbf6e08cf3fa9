import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../../server/db/migrations/index.js';
import { newId } from '../../../../server/shared/ids.js';
import { PROTOCOL_VERSION, type WireOp } from '../../../../sync/protocol.js';
import { createAppliance, replicatedState, twoNodes } from '../../../sync/harness.js';
import { seedMenu } from '../../../helpers/factories.js';

const V = { protocol_version: PROTOCOL_VERSION, schema_version: SCHEMA_VERSION };
const PAY_TABLES = ['payments', 'payment_refunds', 'public_orders', 'orders'] as const;

async function world() {
  const n = await twoNodes();
  const menu = await seedMenu(n.cloud, n.tenant.id);
  await n.appliance.engine.syncOnce();
  const key = (n.transport as unknown as { key: string }).key;
  return { ...n, menu, key };
}

const place = (svc: { placeOrder: (...a: never[]) => unknown }, slug: string, productId: string) =>
  (svc.placeOrder as (s: string, b: object, k: undefined, o: string) => Promise<{ body: { order: { id: string }; payment_id: string; checkout_url: string } }>)(
    slug,
    { items: [{ product_id: productId, quantity: 2 }], customer: { name: 'Gast', phone: '0612345678' }, type: 'pickup' },
    undefined,
    'http://localhost',
  );

/** Issue 12 item 5: callbacks arrive in the cloud; the appliance learns of payments through sync; a paid order stays paid on both sides. */
describe('payments through sync', () => {
  it('a cloud order paid in the cloud (and refunded in part) reaches the appliance as it is; a new appliance bootstraps it', async () => {
    const { cloud, appliance, tenant, menu } = await world();
    const { body } = await place(cloud.services.publicOrders, tenant.slug, menu.friet.id);
    const sim = body.checkout_url.split('/').pop()!;
    await cloud.services.payments.simulator.decide(sim, 'paid');
    await cloud.services.payments.handleCallback([sim]);
    await cloud.services.payments.refund({ tenantId: tenant.id, userId: tenant.adminId }, body.payment_id, 100);
    await appliance.engine.syncOnce();
    const a = await replicatedState(appliance, tenant.id);
    const c = await replicatedState(cloud, tenant.id);
    for (const t of PAY_TABLES) expect(a[t], t).toEqual(c[t]);
    expect((await appliance.services.orders.get(tenant.id, body.order.id)).payment_status).toBe('paid');
    expect(await appliance.services.payments.get(tenant.id, body.payment_id)).toMatchObject({ status: 'paid', refunded_cents: 100 });
    // The appliance cannot refund a cloud payment (its provider is the cloud's).
    await expect(appliance.services.payments.refund({ tenantId: tenant.id, userId: tenant.adminId }, body.payment_id, 10)).rejects.toMatchObject({ code: 'CONFLICT' });
    // The simulator's records are the provider's side: they stay in the cloud.
    expect(await appliance.handle.db.selectFrom('payment_simulator').selectAll().execute()).toEqual([]);
    // A late joiner bootstraps from a snapshot with the same rows.
    const { FakeTransport } = await import('../../../sync/harness.js');
    const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Nieuwe kassa');
    const late = await createAppliance(new FakeTransport(() => cloud, sync_key));
    await late.engine.syncOnce();
    const l = await replicatedState(late, tenant.id);
    for (const t of PAY_TABLES) expect(l[t], t).toEqual(c[t]);
  });

  it('an appliance’s own public order paid at its own simulator goes up once; the order is paid on both sides', async () => {
    const { cloud, appliance, tenant, menu } = await world();
    const { body } = await place(appliance.services.publicOrders, tenant.slug, menu.burger.id);
    const sim = body.checkout_url.split('/').pop()!;
    await appliance.services.payments.simulator.decide(sim, 'paid');
    await Promise.all([1, 2, 3].map(() => appliance.services.payments.handleCallback([sim])));
    await appliance.engine.syncOnce();
    await appliance.engine.syncOnce();
    expect((await cloud.services.orders.get(tenant.id, body.order.id)).payment_status).toBe('paid');
    expect((await cloud.services.payments.get(tenant.id, body.payment_id)).status).toBe('paid');
    const paid = await cloud.handle.db.selectFrom('change_log').select('op_id').where('kind', '=', 'order.paid').where('entity_id', '=', body.order.id).execute();
    expect(paid).toHaveLength(1);
    const a = await replicatedState(appliance, tenant.id);
    const c = await replicatedState(cloud, tenant.id);
    for (const t of PAY_TABLES) expect(a[t], t).toEqual(c[t]);
  });

  it('the cloud rejects a device marking a cloud payment paid, a malformed payment and a link into another restaurant', async () => {
    const { cloud, appliance, tenant, menu, key, device } = await world();
    const { body } = await place(cloud.services.publicOrders, tenant.slug, menu.friet.id);
    await appliance.engine.syncOnce();
    const row = await cloud.handle.db.selectFrom('payments').selectAll().where('id', '=', body.payment_id).executeTakeFirstOrThrow();
    const other = await cloud.seedTenant();
    const otherOrder = (await place(cloud.services.publicOrders, other.slug, (await seedMenu(cloud, other.id)).friet.id)).body.order.id;
    // The device's own payment (its origin), but for another restaurant's order.
    const own = { ...row, id: newId(), origin: device.id, order_id: otherOrder, provider_payment_id: null, checkout_url: null };
    let seq = 1000;
    const op = (payload: unknown, entityId: string, kind = 'payment.status_changed'): WireOp => ({ op_id: newId(), device_seq: ++seq, entity: 'payment', entity_id: entityId, kind, payload, created_at: row.created_at });
    const res = await cloud.req({
      method: 'POST',
      url: '/api/v1/sync/push',
      headers: { authorization: `Bearer ${key}` },
      payload: {
        ...V,
        ops: [
          op({ payment: { ...row, status: 'paid', paid_at: row.created_at } }, row.id),
          op({ payment: { ...row, amount_cents: 'veel' } }, row.id),
          op({ payment: own }, own.id, 'payment.created'),
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    const results = res.json().results as Array<{ status: string; reason: string }>;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(results.map((r) => r.reason)).toEqual(['Deze betaling hoort bij een ander systeem.', "Ongeldige wijziging voor een betaling: 'payment.amount_cents' moet een getal zijn.", 'De bestelling bestaat niet bij dit restaurant.']);
    expect((await cloud.services.payments.get(tenant.id, body.payment_id)).status).toBe('open');
    expect((await cloud.services.orders.get(tenant.id, body.order.id)).payment_status).toBe('open');
    expect(await cloud.handle.db.selectFrom('payments').select('id').where('id', '=', own.id).executeTakeFirst()).toBeUndefined();
  });
});
