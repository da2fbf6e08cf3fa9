import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { seedMenu } from '../../../helpers/factories.js';
import { seedFloor } from '../floor/helpers.js';
import { settle, startReceiver } from '../webhooks/receiver.js';
import { findEverywhere } from './helpers.js';

/**
 * Issue 28 point 3: a loyalty erasure left the person's name and phone in their reservation, its
 * change-log row, the webhook deliveries admins can read and resend, and free-text order notes.
 * Clock: Friday 20 November 2026, 13:00 in Amsterdam.
 */

/** Every way the person occurs below (numbers in the notations used, name, e-mail, their address). */
const NEEDLES = ['13579246', '1357 9246', '13 57 92 46', 'Geheime Gast', 'geheim@example.nl', 'Kerkstraat'];

async function world() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const menu = await seedMenu(t, r.id);
  await seedFloor(t, r.id);
  const admin = await r.adminCookie();
  const staff = await r.staffCookie();
  const rx = await startReceiver();
  const hook = await t.req({ method: 'POST', url: '/api/v1/webhooks', cookie: admin, payload: { url: rx.url, events: ['order.created', 'reservation.created', 'loyalty.customer_created'] } });
  expect(hook.statusCode, hook.body).toBe(201);

  const customer = await t.req({ method: 'POST', url: '/api/v1/loyalty/customer', cookie: staff, payload: { phone: '0613579246', name: 'Geheime Gast', email: 'geheim@example.nl' } });
  expect(customer.statusCode, customer.body).toBe(201);
  // Their booking, in another notation of the number.
  const booking = await t.req({
    method: 'POST',
    url: `/api/v1/public/reservations/${r.slug}`,
    payload: { name: 'Geheime Gast', phone: '+31 6 1357 9246', email: 'GEHEIM@example.nl', date: '2026-11-27', time: '19:00', party_size: 2, notes: 'Geheime Gast viert een verjaardag' },
  });
  expect(booking.statusCode, booking.body).toBe(201);
  // Their delivery order, with their address and number in the notes.
  const own = await t.req({
    method: 'POST',
    url: '/api/v1/orders',
    cookie: staff,
    payload: { items: [{ product_id: menu.burger.id, quantity: 1, notes: 'zonder ui, voor Geheime Gast' }], notes: 'Bezorgen: Kerkstraat 1; bel 06-13579246', customer: { phone: '06 13579246', name: 'Geheime Gast' } },
  });
  expect(own.statusCode, own.body).toBe(201);
  // Someone else's order whose note a colleague used for the person's number and name.
  const other = await t.req({
    method: 'POST',
    url: '/api/v1/orders',
    cookie: staff,
    payload: { items: [{ product_id: menu.cola.id, quantity: 1, notes: 'geen ijs' }], notes: 'Terugbellen: +31 6 13 57 92 46 (geheime gast), tafel 4' },
  });
  expect(other.statusCode, other.body).toBe(201);
  await settle(t);
  return { t, r, rx, admin, staff, hookId: hook.json().id as string, customerId: customer.json().id as string, bookingId: booking.json().id as string, ownId: own.json().id as string, otherId: other.json().id as string };
}

describe('issue 28 point 3: a loyalty erasure reaches every place the person was', () => {
  it('reservation, its change-log row, webhook deliveries (read and resent by admins) and order notes keep nothing of the person; the rest stays', async () => {
    const w = await world();
    const { t } = w;
    const before = await findEverywhere(t.handle.db, t.handle.dialect, NEEDLES);
    expect(before).toEqual(expect.arrayContaining(['reservations.name', 'reservations.phone', 'change_log.payload', 'orders.notes', 'order_items.notes']));
    // Deliveries are queued narrow: no copy of the body until an erasure stores the redacted one (webhooks.bodies.ts).
    expect(before).not.toContain('webhook_deliveries.body');
    const deliveriesBefore = (await t.req({ method: 'GET', url: `/api/v1/webhooks/${w.hookId}/deliveries`, cookie: w.admin })).json().data as unknown[];
    expect(deliveriesBefore).toHaveLength(4);
    // What an admin read (and a redelivery would send) before: the person, from the change log.
    const textBefore = JSON.stringify(deliveriesBefore).toLowerCase();
    for (const n of ['13579246', 'geheime gast', 'geheim@example.nl', 'kerkstraat']) expect(textBefore).toContain(n);

    const del = await t.req({ method: 'DELETE', url: `/api/v1/loyalty/customer/${w.customerId}`, cookie: w.admin });
    expect(del.statusCode).toBe(204);
    await t.services.loyalty.settled();
    expect(await findEverywhere(t.handle.db, t.handle.dialect, NEEDLES)).toEqual([]);

    // The booking stays (capacity, history) without the person: "Gewist", no number, e-mail or notes.
    const booking = await t.handle.db.selectFrom('reservations').selectAll().where('id', '=', w.bookingId).executeTakeFirstOrThrow();
    expect(booking).toMatchObject({ name: 'Gewist', phone: null, email: null, notes: null, party_size: 2, time: '19:00', status: 'booked' });
    const list = (await t.req({ method: 'GET', url: '/api/v1/reservations?date=2026-11-27', cookie: w.staff })).json().data;
    expect(list).toEqual([expect.objectContaining({ id: w.bookingId, name: 'Gewist', phone: null })]);
    // Their order loses its free text; the other order's note loses only the number and the name.
    const notes = async (id: string) => [
      (await t.handle.db.selectFrom('orders').select('notes').where('id', '=', id).executeTakeFirstOrThrow()).notes,
      ...(await t.handle.db.selectFrom('order_items').select('notes').where('order_id', '=', id).execute()).map((i) => i.notes),
    ];
    expect(await notes(w.ownId)).toEqual([null, null]);
    expect(await notes(w.otherId)).toEqual(['Terugbellen: [gewist] ([gewist]), tafel 4', 'geen ijs']);
    // The deliveries stay (the partner's history) and can be sent again, without the person.
    const deliveries = (await t.req({ method: 'GET', url: `/api/v1/webhooks/${w.hookId}/deliveries`, cookie: w.admin })).json().data as Array<{ id: string }>;
    expect(deliveries).toHaveLength(4);
    const text = JSON.stringify(deliveries);
    for (const n of NEEDLES) expect(text.toLowerCase()).not.toContain(n.toLowerCase());
    const bodies = await t.handle.db.selectFrom('webhook_deliveries').select(['event_type', 'body']).where('tenant_id', '=', w.r.id).execute();
    const byType = Object.fromEntries(bodies.map((b) => [b.event_type + ':' + (JSON.parse(b.body) as { data: { order?: { id: string } } }).data.order?.id, JSON.parse(b.body) as { data: Record<string, any> }]));
    expect(byType['reservation.created:undefined']!.data.reservation).toMatchObject({ id: w.bookingId, name: 'Gewist', phone: null, email: null, notes: null, party_size: 2 });
    expect(byType['loyalty.customer_created:undefined']!.data.customer).toMatchObject({ id: w.customerId, phone: null, name: null, email: null });
    expect(byType[`order.created:${w.ownId}`]!.data.order).toMatchObject({ id: w.ownId, customer: null, notes: null });
    expect(byType[`order.created:${w.otherId}`]!.data.order.notes).toBe('Terugbellen: [gewist] ([gewist]), tafel 4');
    // An admin sends a failed one again: the partner gets the redacted body.
    const own = (await t.handle.db.selectFrom('webhook_deliveries').select('id').where('body', 'like', `%${w.ownId}%`).executeTakeFirstOrThrow()).id;
    await t.handle.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', own).execute();
    const sent = w.rx.requests.length;
    const resend = await t.req({ method: 'POST', url: `/api/v1/webhooks/${w.hookId}/deliveries/${own}/redeliver`, cookie: w.admin });
    expect(resend.statusCode, resend.body).toBeLessThan(300);
    await settle(t);
    expect(w.rx.requests.length).toBe(sent + 1);
    const raw = w.rx.requests.at(-1)!.raw.toString('utf8');
    expect(raw).toContain(w.ownId);
    for (const n of NEEDLES) expect(raw.toLowerCase()).not.toContain(n.toLowerCase());
    expect(await findEverywhere(t.handle.db, t.handle.dialect, NEEDLES)).toEqual([]);
  });
});
