import { afterAll, describe, expect, it } from 'vitest';
import { startReceiver, verifies } from '../server/modules/webhooks/receiver.js';
import { Cluster, http, sleep } from './cluster.js';

/**
 * Issue 16 end to end with real processes (test/e2e/cluster.ts: a cloud on a fresh PostgreSQL
 * database, an appliance on SQLite with CLOUD_URL and SYNC_KEY) and a real receiver on 127.0.0.1:
 * - an order made on the appliance while the cloud is down is delivered by the cloud, once per
 *   event, after the appliance synced; the appliance itself sends nothing;
 * - the cloud SIGKILLed while a delivery waits for its retry: after the restart the retry goes out
 *   with the same delivery id (attempt 2), and nothing is sent twice.
 */
describe('webhooks end to end: one sender, and a restart during the retries', () => {
  let cluster: Cluster | null = null;
  afterAll(async () => {
    await cluster?.close();
  });

  it('delivered once by the cloud after sync; a SIGKILL between attempts loses nothing and repeats nothing', async () => {
    const c = (cluster = await Cluster.create());
    const cookies = (c as unknown as { cookies: { cloudAdmin: string; applianceStaff: string; applianceAdmin: string } }).cookies;
    const products = (c as unknown as { products: Array<{ id: string; price_cents: number }> }).products;
    const ok = (r: { status: number; body: unknown }, status = 201) => {
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      return r.body as any;
    };
    // The receiver is on 127.0.0.1: the operator lets this cloud reach its own network.
    const cloudEnv = { WEBHOOK_ALLOW_PRIVATE: '1' };
    await c.cloud.kill('SIGKILL');
    await c.cloud.start(cloudEnv);
    const rx = await startReceiver();
    const hook = ok(await http(c.cloud.base, 'POST', '/api/v1/webhooks', { cookie: cookies.cloudAdmin, body: { url: rx.url, events: ['order.created', 'order.status_changed', 'order.paid'] } }));
    await c.until('the webhook on the appliance', 30_000, async () => (await http(c.appliance.base, 'GET', '/api/v1/webhooks', { cookie: cookies.applianceAdmin })).body?.data?.length === 1);

    // The cloud is down; the restaurant keeps working.
    await c.cloud.kill('SIGKILL');
    const order = ok(await http(c.appliance.base, 'POST', '/api/v1/orders', { cookie: cookies.applianceStaff, body: { items: [{ product_id: products[0]!.id, quantity: 2 }] } }));
    ok(await http(c.appliance.base, 'PATCH', `/api/v1/orders/${order.id}`, { cookie: cookies.applianceAdmin, body: { status: 'ready' } }), 200);
    ok(await http(c.appliance.base, 'PATCH', `/api/v1/orders/${order.id}`, { cookie: cookies.applianceAdmin, body: { payment_status: 'paid' } }), 200);
    await sleep(1_500);
    expect(rx.requests).toHaveLength(0); // the appliance with a cloud sends nothing
    expect((await http(c.appliance.base, 'GET', `/api/v1/webhooks/${hook.id}/deliveries`, { cookie: cookies.applianceAdmin })).body.data).toEqual([]);

    await c.cloud.start(cloudEnv);
    await c.until('three deliveries from the cloud', 45_000, async () => rx.requests.length >= 3);
    await sleep(2_000);
    expect(rx.requests.map((q) => [q.body.type, q.body.data.order.id]).sort()).toEqual(
      [
        ['order.created', order.id],
        ['order.paid', order.id],
        ['order.status_changed', order.id],
      ].sort(),
    );
    for (const q of rx.requests) expect(verifies(hook.secret, q.raw, q.headers['x-service-signature'])).toBe(true);

    // A receiver that fails; the cloud dies while the delivery waits for its retry (due 1 s later).
    rx.answer = 500;
    const admin = cookies.cloudAdmin; // sessions live in the database: they survive the restarts
    const second = ok(await http(c.cloud.base, 'POST', '/api/v1/orders', { cookie: admin, body: { items: [{ product_id: products[1]!.id, quantity: 1 }] } }));
    let pending: any;
    await c.until('the first attempt recorded', 15_000, async () => {
      const list = (await http(c.cloud.base, 'GET', `/api/v1/webhooks/${hook.id}/deliveries?status=pending`, { cookie: admin })).body?.data ?? [];
      pending = list.find((d: any) => d.event.data.order.id === second.id && d.attempts === 1);
      return Boolean(pending);
    });
    await c.cloud.kill('SIGKILL');
    rx.answer = 200;
    await c.cloud.start(cloudEnv);
    await c.until('the retry after the restart', 30_000, async () => rx.requests.filter((q) => q.headers['x-service-delivery'] === pending.id).length >= 2);
    await sleep(6_000); // a poll of the delivery job: still nothing more
    const forSecond = rx.requests.filter((q) => q.body.data.order.id === second.id);
    expect(forSecond.map((q) => [q.headers['x-service-delivery'], q.headers['x-service-attempt']])).toEqual([
      [pending.id, '1'],
      [pending.id, '2'],
    ]);
    expect(forSecond[0]!.raw.equals(forSecond[1]!.raw)).toBe(true);
    const all = (await http(c.cloud.base, 'GET', `/api/v1/webhooks/${hook.id}/deliveries`, { cookie: admin })).body.data as any[];
    expect(all).toHaveLength(4);
    expect(all.every((d) => d.status === 'delivered')).toBe(true);
    // Every delivery id reached the receiver once per attempt, never more.
    const perId = new Map<string, number>();
    for (const q of rx.requests) perId.set(String(q.headers['x-service-delivery']), (perId.get(String(q.headers['x-service-delivery'])) ?? 0) + 1);
    expect([...perId.values()].sort()).toEqual([1, 1, 1, 2]);
  });
});
