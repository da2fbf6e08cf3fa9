import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { orderBody, seedMenu } from '../../../helpers/factories.js';

/** The kitchen board's route (CONTRACT §16): any session moves an order forward; cancelling stays with admins. */
describe('POST /orders/:id/advance', () => {
  async function setup() {
    const t = await createTestApp();
    const r = await t.seedTenant();
    const menu = await seedMenu(t, r.id);
    const staff = await r.staffCookie();
    const order = (await t.req({ method: 'POST', url: '/api/v1/orders', cookie: staff, payload: orderBody(menu) })).json();
    const advance = (id: string, payload: unknown, cookie: string | undefined = staff) =>
      t.req({ method: 'POST', url: `/api/v1/orders/${id}/advance`, cookie, payload: payload as object });
    return { t, r, staff, order, advance };
  }

  it('a staff member moves an order forward, skipping steps, through the one status rule; the history says who', async () => {
    const { t, r, order, advance } = await setup();
    const a = await advance(order.id, { status: 'preparing' });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toMatchObject({ id: order.id, status: 'preparing' });
    expect((await advance(order.id, { status: 'preparing' })).statusCode).toBe(200); // the same again: no-op
    expect((await advance(order.id, { status: 'completed' })).json().status).toBe('completed');
    const history = await t.services.orders.history(r.id, order.id);
    expect(history.map((h) => [h.from_status, h.to_status, h.user_id])).toEqual([
      [null, 'new', r.staffId],
      ['new', 'preparing', r.staffId],
      ['preparing', 'completed', r.staffId],
    ]);
  });

  it('backwards and out of a final status is 409; cancelling is 403 even for an admin (PATCH cancels); nothing changes', async () => {
    const { t, r, order, advance } = await setup();
    await advance(order.id, { status: 'ready' });
    const back = await advance(order.id, { status: 'new' });
    expect(back.statusCode).toBe(409);
    expect(back.json()).toEqual({ code: 'CONFLICT', error: "Deze statuswijziging is niet toegestaan (van 'ready' naar 'new')." });
    const cancel = await advance(order.id, { status: 'cancelled' });
    expect(cancel.statusCode).toBe(403);
    expect(cancel.json()).toMatchObject({ code: 'FORBIDDEN', error: expect.stringMatching(/beheerder/) });
    expect((await advance(order.id, { status: 'cancelled' }, await r.adminCookie())).statusCode).toBe(403);
    expect((await t.services.orders.get(r.id, order.id)).status).toBe('ready');
  });

  it('validates the body, needs a session, and another restaurant’s order is 404', async () => {
    const { t, r, order, advance } = await setup();
    const bad = await advance(order.id, { status: 'klaar' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'status' }] });
    expect((await advance(order.id, { status: 'ready', extra: 1 })).statusCode).toBe(400);
    expect((await advance('not-a-uuid', { status: 'ready' })).statusCode).toBe(400);
    const anon = await t.req({ method: 'POST', url: `/api/v1/orders/${order.id}/advance`, payload: { status: 'ready' } });
    expect(anon.statusCode).toBe(401);
    const other = await t.seedTenant();
    const foreign = await advance(order.id, { status: 'ready' }, await other.staffCookie());
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ code: 'NOT_FOUND', error: 'Bestelling niet gevonden.' });
    expect((await t.services.orders.get(r.id, order.id)).status).toBe('new'); // nothing refused changed anything
  });
});
