import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { orderBody, seedMenu } from '../../../helpers/factories.js';
import { ORDER_STATUSES, type OrderStatus } from '../../../../server/modules/orders/orders.schemas.js';
import { transition } from '../../../../server/modules/orders/orders.rules.js';

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const menu = await seedMenu(t, r.id);
  const staff = await r.staffCookie();
  const admin = await r.adminCookie();
  return { t, r, menu, staff, admin };
}

const post = (t: TestApp, cookie: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: payload as object, headers });

describe('POST /orders (CONTRACT §5)', () => {
  it('creates an order with menu prices, never the client’s', async () => {
    const { t, menu, staff, r } = await setup();
    const res = await post(t, staff, { ...orderBody(menu), notes: 'tafel bij het raam', customer: { name: 'Jansen' } });
    expect(res.statusCode).toBe(201);
    const o = res.json();
    expect(o).toMatchObject({ status: 'new', source: 'pos', payment_status: 'open', notes: 'tafel bij het raam', customer: { name: 'Jansen', phone: null }, table_id: null });
    expect(o.items).toEqual([
      { id: expect.any(String), product_id: menu.friet.id, name: 'Friet', quantity: 2, unit_price_cents: 395, total_cents: 790, notes: null, modifiers: [], seat: null, course: 1, allergens: [], voided_quantity: 0, held: false, fired_at: expect.any(String), vat_rate: 9 },
      { id: expect.any(String), product_id: menu.burger.id, name: 'Burger', quantity: 1, unit_price_cents: 1450, total_cents: 1450, notes: 'zonder ui', modifiers: [], seat: null, course: 1, allergens: [], voided_quantity: 0, held: false, fired_at: expect.any(String), vat_rate: 9 },
    ]);
    expect(o.total_cents).toBe(2240);
    expect(o.number).toMatch(/^K-\d{3}$/);
    // A price sent by the client is not even accepted as a field.
    const cheat = await post(t, staff, { items: [{ product_id: menu.burger.id, quantity: 1, unit_price_cents: 1 }] });
    expect(cheat.statusCode).toBe(400);
    expect(cheat.json().details[0].field).toBe('items.0.unit_price_cents');
    // A later price change does not touch the order.
    await t.services.menu.updateProduct(r.id, menu.friet.id, { price_cents: 495 });
    expect((await t.req({ method: 'GET', url: `/api/v1/orders/${o.id}`, cookie: staff })).json().total_cents).toBe(2240);
  });

  it.each([
    ['empty items', { items: [] }, 'items', /minstens één/],
    ['quantity 0', { items: [{ product_id: '0190a0a0-0000-7000-8000-000000000000', quantity: 0 }] }, 'items.0.quantity', /minimaal 1/],
    ['quantity 1000', { items: [{ product_id: '0190a0a0-0000-7000-8000-000000000000', quantity: 1000 }] }, 'items.0.quantity', /maximaal 999/],
    ['fractional quantity', { items: [{ product_id: '0190a0a0-0000-7000-8000-000000000000', quantity: 1.5 }] }, 'items.0.quantity', /geheel getal/],
    ['bad product id', { items: [{ product_id: 'friet', quantity: 1 }] }, 'items.0.product_id', /geldige id/],
    ['no items', {}, 'items', /verplicht/],
  ])('%s is 400 VALIDATION naming the field', async (_n, body, field, msg) => {
    const { t, staff } = await setup();
    const res = await post(t, staff, body);
    expect(res.statusCode).toBe(400);
    const b = res.json();
    expect(b.code).toBe('VALIDATION');
    expect(b.details[0].field).toBe(field);
    expect(b.details[0].error).toMatch(msg);
    expect(b.error).toMatch(/^Ongeldige invoer: /);
  });

  it('unknown, unavailable, archived and other-tenant products are 400 and create nothing', async () => {
    const { t, r, menu, staff } = await setup();
    const other = await t.seedTenant();
    const otherMenu = await seedMenu(t, other.id);
    for (const pid of [menu.soep.id, menu.oud.id, otherMenu.friet.id, '0190a0a0-0000-7000-8000-000000000000']) {
      const res = await post(t, staff, { items: [{ product_id: menu.cola.id, quantity: 1 }, { product_id: pid, quantity: 1 }] });
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([{ field: 'items.1.product_id', error: expect.any(String) }]);
    }
    expect((await t.services.orders.list(r.id, {}, 50, 0)).total).toBe(0);
    const soep = await post(t, staff, { items: [{ product_id: menu.soep.id, quantity: 1 }] });
    expect(soep.json().error).toContain('Soep van de dag');
  });

  it('requires a session', async () => {
    const { t, menu } = await setup();
    const res = await t.req({ method: 'POST', url: '/api/v1/orders', payload: orderBody(menu) });
    expect(res.statusCode).toBe(401);
  });

  it('numbers are short, sequential per day in the tenant’s time zone, and restart the next day', async () => {
    const { t, menu, r } = await setup();
    t.clock.set('2026-11-20T22:30:00Z'); // 23:30 in Amsterdam
    const staff = await r.staffCookie();
    const a = (await post(t, staff, orderBody(menu))).json();
    const b = (await post(t, staff, orderBody(menu))).json();
    t.clock.set('2026-11-20T23:30:00Z'); // 00:30 the next day in Amsterdam
    const c = (await post(t, await r.staffCookie(), orderBody(menu))).json();
    expect([a.number, b.number, c.number]).toEqual(['K-001', 'K-002', 'K-001']);
  });
});

describe('idempotency (CONTRACT §5)', () => {
  it('a repeat with the same key and body answers 200 with the original; a different body is 409', async () => {
    const { t, r, menu, staff } = await setup();
    const first = await post(t, staff, orderBody(menu, { idempotency_key: 'tablet-3-0042' }));
    expect(first.statusCode).toBe(201);
    const again = await post(t, staff, orderBody(menu, { idempotency_key: 'tablet-3-0042' }));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const header = await post(t, staff, orderBody(menu), { 'idempotency-key': 'tablet-3-0042' });
    expect(header.statusCode).toBe(200);
    expect(header.json().id).toBe(first.json().id);
    const different = await post(t, staff, { items: [{ product_id: menu.cola.id, quantity: 1 }], idempotency_key: 'tablet-3-0042' });
    expect(different.statusCode).toBe(409);
    expect(different.json().code).toBe('CONFLICT');
    expect((await t.services.orders.list(r.id, {}, 50, 0)).total).toBe(1);
    const mismatch = await post(t, staff, orderBody(menu, { idempotency_key: 'a' }), { 'idempotency-key': 'b' });
    expect(mismatch.statusCode).toBe(400);
  });

  it('20 concurrent requests with one key create exactly one order, one number, one change-log entry', async () => {
    const { t, r, menu, staff } = await setup();
    const results = await Promise.all(Array.from({ length: 20 }, () => post(t, staff, orderBody(menu, { idempotency_key: 'burst-1' }))));
    const codes = results.map((x) => x.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 200)).toHaveLength(19);
    expect(new Set(results.map((x) => x.json().id)).size).toBe(1);
    expect((await t.services.orders.list(r.id, {}, 50, 0)).total).toBe(1);
    const created = (await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.kind === 'order.created');
    expect(created).toHaveLength(1);
    // The counter did not advance for the losers: the next order is number 2.
    expect((await post(t, staff, orderBody(menu))).json().number).toBe('K-002');
  });

  it('the same key in two tenants makes two orders', async () => {
    const { t, menu, staff } = await setup();
    const other = await t.seedTenant();
    const otherMenu = await seedMenu(t, other.id);
    const a = await post(t, staff, orderBody(menu, { idempotency_key: 'k1' }));
    const b = await post(t, await other.staffCookie(), orderBody(otherMenu, { idempotency_key: 'k1' }));
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().id).not.toBe(b.json().id);
  });
});

describe('status rules (CONTRACT §5)', () => {
  type Verdict = 'noop' | 'allowed' | 'forbidden';
  /**
   * Every move, written out from CONTRACT §5 (not computed, so not a copy of the rule under test):
   * forward in the order new, accepted, preparing, ready, delivering, completed, skipping allowed;
   * any non-final status to cancelled; backward or out of completed/cancelled forbidden (409);
   * the same status a no-op (200).
   */
  const pairs: ReadonlyArray<readonly [from: OrderStatus, to: OrderStatus, verdict: Verdict]> = [
    ['new', 'new', 'noop'], ['new', 'accepted', 'allowed'], ['new', 'preparing', 'allowed'], ['new', 'ready', 'allowed'], ['new', 'delivering', 'allowed'], ['new', 'completed', 'allowed'], ['new', 'cancelled', 'allowed'],
    ['accepted', 'new', 'forbidden'], ['accepted', 'accepted', 'noop'], ['accepted', 'preparing', 'allowed'], ['accepted', 'ready', 'allowed'], ['accepted', 'delivering', 'allowed'], ['accepted', 'completed', 'allowed'], ['accepted', 'cancelled', 'allowed'],
    ['preparing', 'new', 'forbidden'], ['preparing', 'accepted', 'forbidden'], ['preparing', 'preparing', 'noop'], ['preparing', 'ready', 'allowed'], ['preparing', 'delivering', 'allowed'], ['preparing', 'completed', 'allowed'], ['preparing', 'cancelled', 'allowed'],
    ['ready', 'new', 'forbidden'], ['ready', 'accepted', 'forbidden'], ['ready', 'preparing', 'forbidden'], ['ready', 'ready', 'noop'], ['ready', 'delivering', 'allowed'], ['ready', 'completed', 'allowed'], ['ready', 'cancelled', 'allowed'],
    ['delivering', 'new', 'forbidden'], ['delivering', 'accepted', 'forbidden'], ['delivering', 'preparing', 'forbidden'], ['delivering', 'ready', 'forbidden'], ['delivering', 'delivering', 'noop'], ['delivering', 'completed', 'allowed'], ['delivering', 'cancelled', 'allowed'],
    ['completed', 'new', 'forbidden'], ['completed', 'accepted', 'forbidden'], ['completed', 'preparing', 'forbidden'], ['completed', 'ready', 'forbidden'], ['completed', 'delivering', 'forbidden'], ['completed', 'completed', 'noop'], ['completed', 'cancelled', 'forbidden'],
    ['cancelled', 'new', 'forbidden'], ['cancelled', 'accepted', 'forbidden'], ['cancelled', 'preparing', 'forbidden'], ['cancelled', 'ready', 'forbidden'], ['cancelled', 'delivering', 'forbidden'], ['cancelled', 'completed', 'forbidden'], ['cancelled', 'cancelled', 'noop'],
  ];

  it('the table names every pair of statuses once, and transition() gives its verdict for each', () => {
    expect(pairs.map(([from, to]) => `${from}→${to}`).sort()).toEqual(ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => `${from}→${to}`)).sort());
    expect(pairs.map(([from, to]) => [from, to, transition(from, to)])).toEqual(pairs);
  });

  it.each(pairs)('%s → %s is %s', async (from, to, verdict) => {
    const { t, r, menu, staff, admin } = await setup();
    const order = (await post(t, staff, orderBody(menu))).json();
    if (from !== 'new') await t.services.orders.setStatus({ tenantId: r.id, userId: null, via: 'pos' }, order.id, from);
    const before = (await t.services.orders.history(r.id, order.id)).length;
    const res = await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: to } });
    const history = await t.services.orders.history(r.id, order.id);
    if (verdict === 'forbidden') {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: `Deze statuswijziging is niet toegestaan (van '${from}' naar '${to}').`, code: 'CONFLICT' });
      expect(history).toHaveLength(before);
    } else {
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe(to);
      expect(history).toHaveLength(verdict === 'noop' ? before : before + 1);
    }
    expect((await t.services.orders.get(r.id, order.id)).status).toBe(verdict === 'forbidden' ? from : to);
  });

  it('keeps every change as history: who, when, from, to', async () => {
    const { t, r, menu, staff, admin } = await setup();
    const order = (await post(t, staff, orderBody(menu))).json();
    t.clock.advanceMinutes(3);
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: 'preparing' } });
    t.clock.advanceMinutes(9);
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: 'completed' } });
    const res = await t.req({ method: 'GET', url: `/api/v1/orders/${order.id}/history`, cookie: staff });
    expect(res.json().data.map((h: { from_status: string | null; to_status: string; user_id: string }) => [h.from_status, h.to_status, h.user_id])).toEqual([
      [null, 'new', r.staffId],
      ['new', 'preparing', r.adminId],
      ['preparing', 'completed', r.adminId],
    ]);
    expect(res.json().data[2].created_at).toBe('2026-11-20T12:12:00.000Z');
  });

  it('PATCH is admin-only, validates the status, and is 404 for unknown or other-tenant orders', async () => {
    const { t, menu, staff, admin } = await setup();
    const order = (await post(t, staff, orderBody(menu))).json();
    expect((await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: staff, payload: { status: 'accepted' } })).statusCode).toBe(403);
    const bad = await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: 'klaar' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('status');
    const other = await t.seedTenant();
    const otherAdmin = await other.adminCookie();
    const foreign = await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: otherAdmin, payload: { status: 'accepted' } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Bestelling niet gevonden.', code: 'NOT_FOUND' });
    expect((await t.req({ method: 'GET', url: `/api/v1/orders/${order.id}`, cookie: otherAdmin })).statusCode).toBe(404);
    expect((await t.services.orders.get(order.id ? (await t.req({ method: 'GET', url: '/api/v1/auth/me', cookie: staff })).json().tenant.id : '', order.id)).status).toBe('new');
  });

  it('marking paid emits order.paid once; paid never reverts; a cancelled order cannot be paid', async () => {
    const { t, r, menu, staff, admin } = await setup();
    const order = (await post(t, staff, orderBody(menu))).json();
    const paid = await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { payment_status: 'paid', status: 'completed' } });
    expect(paid.statusCode).toBe(200);
    expect(paid.json()).toMatchObject({ payment_status: 'paid', status: 'completed' });
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { payment_status: 'paid' } });
    const kinds = (await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.entity_id === order.id).map((c) => c.kind);
    expect(kinds).toEqual(['order.created', 'order.paid', 'order.status_changed']);
    expect((await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { payment_status: 'open' } })).statusCode).toBe(400);
    const second = (await post(t, staff, orderBody(menu))).json();
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${second.id}`, cookie: admin, payload: { status: 'cancelled' } });
    expect((await t.req({ method: 'PATCH', url: `/api/v1/orders/${second.id}`, cookie: admin, payload: { payment_status: 'paid' } })).statusCode).toBe(409);
  });
});

describe('GET /orders and /orders/live', () => {
  async function many() {
    const s = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      s.t.clock.advanceMinutes(1);
      ids.push((await post(s.t, s.staff, { items: [{ product_id: s.menu.cola.id, quantity: i + 1 }] })).json().id);
    }
    const actor = { tenantId: s.r.id, userId: null, via: 'pos' as const };
    await s.t.services.orders.setStatus(actor, ids[0]!, 'completed');
    await s.t.services.orders.setStatus(actor, ids[1]!, 'cancelled');
    await s.t.services.orders.setStatus(actor, ids[2]!, 'ready');
    return { ...s, ids };
  }

  it('lists newest first with total, limit and offset, and filters by status and source', async () => {
    const { t, admin, ids } = await many();
    const page = (await t.req({ method: 'GET', url: '/api/v1/orders?limit=3&offset=1', cookie: admin })).json();
    expect(page).toMatchObject({ total: 7, limit: 3, offset: 1 });
    expect(page.data.map((o: { id: string }) => o.id)).toEqual([ids[5], ids[4], ids[3]]);
    const defaults = (await t.req({ method: 'GET', url: '/api/v1/orders', cookie: admin })).json();
    expect([defaults.limit, defaults.offset, defaults.data.length]).toEqual([50, 0, 7]);
    const finals = (await t.req({ method: 'GET', url: '/api/v1/orders?status=completed,cancelled', cookie: admin })).json();
    expect(finals.total).toBe(2);
    expect(finals.data.map((o: { id: string }) => o.id)).toEqual([ids[1], ids[0]]);
    expect((await t.req({ method: 'GET', url: '/api/v1/orders?source=web', cookie: admin })).json().total).toBe(0);
    expect((await t.req({ method: 'GET', url: '/api/v1/orders?source=pos&status=ready', cookie: admin })).json().total).toBe(1);
  });

  it.each([['limit=0'], ['limit=201'], ['limit=abc'], ['offset=-1'], ['status=klaar'], ['status=new,,ready'], ['source=fax'], ['foo=1']])(
    '?%s is 400 VALIDATION, not clamped',
    async (qs) => {
      const { t, admin } = await setup();
      const res = await t.req({ method: 'GET', url: `/api/v1/orders?${qs}`, cookie: admin });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION');
      expect(res.json().details.length).toBeGreaterThan(0);
    },
  );

  it('GET /orders is admin-only; /orders/live is for any session and shows active orders oldest first', async () => {
    const { t, staff, ids } = await many();
    expect((await t.req({ method: 'GET', url: '/api/v1/orders', cookie: staff })).statusCode).toBe(403);
    const live = (await t.req({ method: 'GET', url: '/api/v1/orders/live', cookie: staff })).json();
    expect(live.data.map((o: { id: string }) => o.id)).toEqual(ids.slice(2));
    expect(live.data.every((o: { status: string }) => ['new', 'accepted', 'preparing', 'ready', 'delivering'].includes(o.status))).toBe(true);
    expect(live.data[0].items).toHaveLength(1);
  });

  it('never shows another tenant’s orders', async () => {
    const { t, admin, staff, menu } = await setup();
    await post(t, staff, orderBody(menu));
    const other = await t.seedTenant();
    const otherMenu = await seedMenu(t, other.id);
    await post(t, await other.staffCookie(), orderBody(otherMenu));
    await post(t, await other.staffCookie(), orderBody(otherMenu));
    expect((await t.req({ method: 'GET', url: '/api/v1/orders', cookie: admin })).json().total).toBe(1);
    expect((await t.req({ method: 'GET', url: '/api/v1/orders/live', cookie: staff })).json().data).toHaveLength(1);
  });
});

describe('domain events in the change log', () => {
  it('order.created and order.status_changed are written with the order snapshot in the same transaction', async () => {
    const { t, r, menu, staff, admin } = await setup();
    const order = (await post(t, staff, orderBody(menu))).json();
    await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { status: 'accepted' } });
    const log = (await t.changes.readSince(r.id, 0, 1000)).filter((c) => c.entity === 'order');
    expect(log.map((c) => c.kind)).toEqual(['order.created', 'order.status_changed']);
    expect((log[0]!.payload as { order: unknown }).order).toEqual(order);
    expect(log[1]!.payload).toMatchObject({ from: 'new', to: 'accepted', order: { id: order.id, status: 'accepted' } });
    expect(log[1]!.seq).toBeGreaterThan(log[0]!.seq);
  });

  it('a failed creation leaves no order, no number and no change-log entry', async () => {
    const { t, r, menu, staff } = await setup();
    const before = await t.changes.lastSeq(r.id);
    const res = await post(t, staff, { items: [{ product_id: menu.friet.id, quantity: 1 }, { product_id: menu.soep.id, quantity: 1 }] });
    expect(res.statusCode).toBe(400);
    expect(await t.changes.lastSeq(r.id)).toBe(before);
    expect((await post(t, staff, orderBody(menu))).json().number).toBe('K-001');
  });
});
