import { describe, expect, it } from 'vitest';
import { seedMenu } from '../helpers/factories.js';
import { findEverywhere } from '../server/modules/loyalty/helpers.js';
import { settle, startReceiver } from '../server/modules/webhooks/receiver.js';
import { ManualClock } from '../../server/shared/clock.js';
import { createTestApp } from '../helpers/app.js';
import { createAppliance, FakeTransport, quiesce, replicatedState } from './harness.js';

/** twoNodes (harness.ts), with a cloud that may send webhooks to this test's receiver on 127.0.0.1. */
async function twoNodes() {
  const cloud = await createTestApp({ clock: new ManualClock(), env: { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused', WEBHOOK_ALLOW_PRIVATE: '1' } });
  const tenant = await cloud.seedTenant();
  const { sync_key } = await cloud.services.sync.cloud.createDevice(tenant.id, 'Kassa');
  const transport = new FakeTransport(() => cloud, sync_key);
  const appliance = await createAppliance(transport);
  return { cloud, tenant, transport, appliance };
}

/**
 * Issue 28 point 3 across sync: an erasure made on one side removes the person from reservations,
 * order notes and change-log copies on the other side too (and the cloud's webhook deliveries),
 * whichever side erases. Clock: Friday 20 November 2026, 13:00 in Amsterdam.
 */
const NEEDLES = ['24681357', '2468 1357', 'Vera Verborgen', 'vera@geheim.example'];

async function joined() {
  const n = await twoNodes();
  const menu = await seedMenu(n.cloud, n.tenant.id);
  const zone = await n.cloud.services.floor.createZone(n.tenant.id, { name: 'binnen' });
  await n.cloud.services.floor.createTable(n.tenant.id, { zone_id: zone.id, name: 'T1', seats: 4, x: 0, y: 0 });
  const rx = await startReceiver();
  const hook = await n.cloud.services.webhooks.create(n.tenant.id, { url: rx.url, events: ['order.created', 'reservation.created'] }, null);
  await n.appliance.engine.syncOnce();
  const who = { tenantId: n.tenant.id, userId: null };
  const pos = { tenantId: n.tenant.id, userId: null, via: 'pos' as const };
  // The person: a loyalty customer (appliance), a booking (cloud, guest pages), an order of theirs with notes (appliance).
  await n.appliance.services.loyalty.upsert(who, { phone: '0624681357', name: 'Vera Verborgen', email: 'vera@geheim.example' });
  const booking = await n.cloud.req({
    method: 'POST',
    url: `/api/v1/public/reservations/${n.tenant.slug}`,
    payload: { name: 'Vera Verborgen', phone: '+31 6 2468 1357', email: 'vera@geheim.example', date: '2026-11-27', time: '19:00', party_size: 2, notes: 'Vera Verborgen: raam' },
  });
  expect(booking.statusCode, booking.body).toBe(201);
  const own = (await n.appliance.services.orders.create(pos, { items: [{ product_id: menu.burger.id, quantity: 1, notes: 'Vera Verborgen: zonder ui' }], notes: 'bel 06-24681357', customer: { phone: '0624681357', name: 'Vera Verborgen' } })).order;
  await quiesce(n.appliance);
  await settle(n.cloud);
  // (Deliveries are queued narrow: their bodies are made from the change log, so no copy of the person is in webhook_deliveries yet.)
  expect(await findEverywhere(n.cloud.handle.db, n.cloud.handle.dialect, NEEDLES)).toEqual(expect.arrayContaining(['reservations.name', 'orders.notes', 'order_items.notes', 'change_log.payload']));
  expect(await findEverywhere(n.appliance.handle.db, 'sqlite', NEEDLES)).toEqual(expect.arrayContaining(['reservations.name', 'orders.notes', 'change_log.payload']));
  const customerId = (await n.cloud.services.loyalty.balanceByPhone(n.tenant.id, '0624681357')).customer_id;
  return { ...n, menu, who, pos, rx, hook, bookingId: booking.json().id as string, ownId: own.id, customerId };
}

async function expectGone(n: Awaited<ReturnType<typeof joined>>) {
  await n.cloud.services.loyalty.settled();
  await n.appliance.services.loyalty.settled();
  expect(await findEverywhere(n.cloud.handle.db, n.cloud.handle.dialect, NEEDLES)).toEqual([]);
  expect(await findEverywhere(n.appliance.handle.db, 'sqlite', NEEDLES)).toEqual([]);
  for (const rt of [n.cloud, n.appliance]) {
    expect(await rt.handle.db.selectFrom('reservations').select(['name', 'phone', 'email', 'notes', 'party_size']).where('id', '=', n.bookingId).executeTakeFirstOrThrow()).toEqual({ name: 'Gewist', phone: null, email: null, notes: null, party_size: 2 });
  }
  expect((await n.cloud.handle.db.selectFrom('webhook_deliveries').select('id').where('tenant_id', '=', n.tenant.id).execute()).length).toBeGreaterThanOrEqual(2);
  expect(await replicatedState(n.appliance, n.tenant.id)).toEqual(await replicatedState(n.cloud, n.tenant.id));
}

describe('sync: a loyalty erasure reaches reservations, notes and deliveries on both sides', () => {
  it('erased in the cloud while the appliance was offline: once back, the appliance redacts its copies too, and a note it had typed with the number before', async () => {
    const n = await joined();
    // A colleague on the appliance typed the number into another order's note (synced before the erasure).
    const other = (await n.appliance.services.orders.create(n.pos, { items: [{ product_id: n.menu.cola.id, quantity: 1 }], notes: 'terugbellen +31 6 2468 1357' })).order;
    await quiesce(n.appliance);
    n.transport.offline = true;
    await n.cloud.services.loyalty.erase(n.who, n.customerId);
    expect(await findEverywhere(n.cloud.handle.db, n.cloud.handle.dialect, NEEDLES)).toEqual([]);
    expect((await findEverywhere(n.appliance.handle.db, 'sqlite', NEEDLES)).length).toBeGreaterThan(0);
    n.transport.offline = false;
    await quiesce(n.appliance);
    await expectGone(n);
    for (const rt of [n.cloud, n.appliance]) {
      expect((await rt.handle.db.selectFrom('orders').select('notes').where('id', '=', other.id).executeTakeFirstOrThrow()).notes).toBe('terugbellen [gewist]');
    }
  });

  it('erased on the appliance: the cloud redacts its rows, change log and webhook deliveries', async () => {
    const n = await joined();
    await n.appliance.services.loyalty.erase(n.who, n.customerId);
    await quiesce(n.appliance);
    await expectGone(n);
  });
});
