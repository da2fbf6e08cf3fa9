import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { orderBody, seedMenu } from '../../../helpers/factories.js';
import { settle, startReceiver, until } from './receiver.js';

/**
 * The webhook consumer wakes at once only for an event a live subscription of the tenant receives
 * (ChangeConsumer.wants): every other staff write moves its cursor late, in one batch, instead of a
 * transaction and a commit (an fsync on the appliance) after each (bench/README.md "The order path,
 * session 11"). Every event still reaches it once, in order.
 */
describe('webhook consumer: woken at once only by subscribed events', () => {
  it('without webhooks an order does not run the consumer at once; after subscribing, its event is delivered at once; an unsubscribed event waits', async () => {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const menu = await seedMenu(t, r.id);
    const staff = await r.staffCookie();
    const admin = await r.adminCookie();
    const position = () => t.app.consumers.position('webhooks', r.id);
    const order = async () => {
      const res = await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: orderBody(menu) });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string };
    };
    // The first order: the tenant's subscriptions are not known yet, so it runs at once and reads them (none).
    await order();
    await settle(t);
    expect(await position()).toBe(await t.changes.lastSeq(r.id));
    // Now known to have none: the next orders leave the cursor where it is until the late batch.
    const start = await position();
    await order();
    await order();
    await settle(t);
    expect(await position()).toBe(start);
    await until(async () => (await position()) === (await t.changes.lastSeq(r.id)), 5000, 'the late batch');

    const rx = await startReceiver();
    const sub = await t.req({ method: 'POST', url: '/api/v1/webhooks', cookie: admin, payload: { url: rx.url, events: ['order.created'] } });
    expect(sub.statusCode, sub.body).toBe(201);
    const o = await order();
    await settle(t);
    // At once, not a second later.
    expect(await position()).toBe(await t.changes.lastSeq(r.id));
    expect(rx.requests.map((q) => (q.body.data as { order: { id: string } }).order.id)).toEqual([o.id]);
    // order.status_changed is not subscribed: late.
    const before = await position();
    const adv = await t.req({ method: 'POST', url: `/api/v1/orders/${o.id}/advance`, cookie: staff, payload: { status: 'accepted' } });
    expect(adv.statusCode, adv.body).toBe(200);
    await settle(t);
    expect(await position()).toBe(before);
    await until(async () => (await position()) === (await t.changes.lastSeq(r.id)), 5000, 'the late batch');
    // Still one delivery: the earlier orders were before the subscription, the status change is not subscribed.
    await settle(t);
    expect(rx.requests).toHaveLength(1);
  });
});
