import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../../server/db/migrations/index.js';
import { PAUSED_MESSAGE } from '../../../../server/modules/public/public.service.js';
import { PROTOCOL_VERSION } from '../../../../sync/protocol.js';
import { countRows, payWorld, publicOrder, type PayWorld } from '../payments/helpers.js';

const V = `protocol_version=${PROTOCOL_VERSION}&schema_version=${SCHEMA_VERSION}`;

/** The appliance talking to the cloud the way its sync worker does (hello; pull). */
function appliance(w: PayWorld, key: string) {
  const auth = { authorization: `Bearer ${key}` };
  return {
    hello: () => w.t.req({ method: 'GET', url: `/api/v1/sync/hello?${V}`, headers: auth }),
    pull: () => w.t.req({ method: 'GET', url: `/api/v1/sync/pull?${V}&cursor=0&limit=1`, headers: auth }),
  };
}

const status = async (w: PayWorld) => (await w.t.req({ method: 'GET', url: '/api/v1/public-ordering/status', cookie: w.admin })).json();

/**
 * Issue 12 item 6: while the restaurant's appliance is silent the cloud keeps taking public orders,
 * marked as not yet seen by the restaurant, shows admins how long it has been silent, and after the
 * tenant's `pause_public_orders_after_minutes` refuses them with a Dutch message until it is back.
 */
describe('the silent-appliance policy (cloud)', () => {
  it('accepted and marked unseen while silent, refused past the pause threshold, accepted again when it returns', async () => {
    const w = await payWorld({ cloud: true });
    const { sync_key } = await w.t.services.sync.cloud.createDevice(w.r.id, 'Kassa');
    const box = appliance(w, sync_key);
    expect((await box.hello()).statusCode).toBe(200);

    const first = await publicOrder(w);
    expect(first.statusCode).toBe(201);
    expect(first.json().restaurant_online).toBe(true);
    expect(first.json().order.number).toMatch(/^W-/);

    // Five minutes without a word from the appliance: still accepted, marked.
    w.t.clock.advanceMinutes(5);
    const second = await publicOrder(w);
    expect(second.statusCode).toBe(201);
    expect(second.json().restaurant_online).toBe(false);
    let s = await status(w);
    expect(s.appliance).toMatchObject({ silent: true, silent_seconds: 300 });
    expect(s.paused).toBe(false);
    expect(s.unseen_orders.map((o: { order_id: string; accepted_while_silent: boolean }) => [o.order_id, o.accepted_while_silent])).toEqual([
      [second.json().order.id, true],
      [first.json().order.id, false],
    ]);
    const view = await w.t.req({ method: 'GET', url: `/api/v1/public/order/${w.r.slug}/${second.json().order.id}` });
    expect(view.json().seen_by_restaurant).toBe(false);

    // The restaurant pauses public ordering after 10 silent minutes.
    const patch = await w.t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: w.admin, payload: { pause_public_orders_after_minutes: 10 } });
    expect(patch.statusCode).toBe(200);
    w.t.clock.advanceMinutes(4);
    expect((await publicOrder(w)).statusCode).toBe(201);
    w.t.clock.advanceMinutes(2);
    const refused = await publicOrder(w);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ code: 'CONFLICT', error: PAUSED_MESSAGE });
    expect(await countRows(w.t, 'orders', w.r.id)).toBe(3);
    expect(await countRows(w.t, 'payments', w.r.id)).toBe(3);
    const menu = (await w.t.req({ method: 'GET', url: `/api/v1/public/menu/${w.r.slug}` })).json();
    expect(menu.ordering).toEqual({ accepting: false, message: PAUSED_MESSAGE });
    s = await status(w);
    expect(s).toMatchObject({ paused: true, pause_after_minutes: 10, appliance: { silent: true, silent_seconds: 660 } });

    // The appliance is back (a pull is contact too): accepted again; what it pulled counts as seen.
    expect((await box.pull()).statusCode).toBe(200);
    w.t.clock.advanceMinutes(1);
    const back = await publicOrder(w);
    expect(back.statusCode).toBe(201);
    expect(back.json().restaurant_online).toBe(true);
    s = await status(w);
    expect(s.paused).toBe(false);
    expect(s.appliance.silent).toBe(false);
    expect(s.unseen_orders.map((o: { order_id: string }) => o.order_id)).toEqual([back.json().order.id]);
    w.t.clock.advanceMinutes(1);
    await box.pull();
    expect((await status(w)).unseen_orders).toEqual([]);
    expect((await w.t.req({ method: 'GET', url: `/api/v1/public/order/${w.r.slug}/${second.json().order.id}` })).json().seen_by_restaurant).toBe(true);
  });

  it('a restaurant without a registered appliance (its kitchen works in the cloud) is never paused', async () => {
    const w = await payWorld({ cloud: true });
    await w.t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: w.admin, payload: { pause_public_orders_after_minutes: 1 } });
    w.t.clock.advanceMinutes(60);
    expect((await publicOrder(w)).statusCode).toBe(201);
    w.admin = await w.r.adminCookie(); // the session went idle meanwhile
    expect((await status(w)).appliance).toBeNull();
  });

  it('an appliance that never made contact counts as silent since it was registered; a revoked one does not count', async () => {
    const w = await payWorld({ cloud: true });
    const { device } = await w.t.services.sync.cloud.createDevice(w.r.id, 'Kassa');
    await w.t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: w.admin, payload: { pause_public_orders_after_minutes: 5 } });
    w.t.clock.advanceMinutes(6);
    expect((await publicOrder(w)).statusCode).toBe(409);
    expect((await status(w)).appliance).toMatchObject({ last_contact_at: null, silent: true });
    await w.t.services.sync.cloud.revokeDevice(w.r.id, device.id);
    expect((await publicOrder(w)).statusCode).toBe(201);
  });
});
