import { describe, expect, it } from 'vitest';
import { EXTERNAL_READS_PER_MINUTE } from '../../../../server/modules/apikeys/apikeys.schemas.js';
import { MoveStockBody } from '../../../../server/modules/stock/stock.schemas.js';
import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';
import { orderBody, seedMenu, type SeededMenu } from '../../../helpers/factories.js';
import { settle, startReceiver, verifies } from '../webhooks/receiver.js';

/**
 * The partner API (spec §4.9, CONTRACT §12): bearer keys with scopes, and each endpoint calling the
 * service of its area (the staff API's rules).
 */

interface Keys {
  read: string;
  write: string;
  admin: string;
  revoked: string;
}

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const menu = await seedMenu(t, r.id);
  const keys = await makeKeys(t, r);
  return { t, r, menu, keys, admin: await r.adminCookie(), staff: await r.staffCookie() };
}

async function makeKeys(t: TestApp, r: SeededTenant): Promise<Keys> {
  const make = async (scopes: string[]) => (await t.services.apiKeys.create(r.id, { name: scopes.join('+'), scopes: scopes as ['read'] }, null)).key;
  const revokedKey = await t.services.apiKeys.create(r.id, { name: 'oud', scopes: ['admin'] }, null);
  await t.services.apiKeys.revoke(r.id, revokedKey.id);
  return { read: await make(['read']), write: await make(['write']), admin: await make(['admin']), revoked: revokedKey.key };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function newOrder(t: TestApp, r: SeededTenant, menu: SeededMenu) {
  const { order } = await t.services.orders.create({ tenantId: r.id, userId: r.staffId, via: 'pos' }, orderBody(menu));
  return order;
}

const setStatus = (t: TestApp, key: string | null, id: string, payload: unknown) =>
  t.req({ method: 'POST', url: `/api/v1/external/orders/${id}/status`, headers: key ? bearer(key) : {}, payload: payload as object });

describe('partner API authentication: the 401/403 matrix (CONTRACT §12)', () => {
  it('every endpoint: 401 without, with a malformed, unknown or revoked key; 403 when the scope is too small', async () => {
    const { t, r, menu, keys } = await setup();
    const order = await newOrder(t, r, menu);
    await t.services.loyalty.upsert({ tenantId: r.id, userId: null }, { phone: '+31612345678', name: 'Jansen' });
    const endpoints: Array<{ method: 'GET' | 'POST'; url: string; scope: 'read' | 'write'; payload?: object; ok: number[] }> = [
      { method: 'GET', url: '/api/v1/external/orders', scope: 'read', ok: [200] },
      { method: 'GET', url: '/api/v1/external/menu', scope: 'read', ok: [200] },
      { method: 'GET', url: '/api/v1/external/stock', scope: 'read', ok: [200] },
      { method: 'GET', url: '/api/v1/external/reservations?date=2026-11-21', scope: 'read', ok: [200] },
      { method: 'GET', url: '/api/v1/external/loyalty/0612345678', scope: 'read', ok: [200] },
      { method: 'POST', url: `/api/v1/external/orders/${order.id}/status`, scope: 'write', payload: { status: 'accepted' }, ok: [200] },
    ];
    const bad: Array<[string, Record<string, string>, string]> = [
      ['no header', {}, "Geen API-sleutel meegestuurd: gebruik de header 'Authorization: Bearer svc_…'."],
      ['not bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, 'Deze API-sleutel is onbekend of ingetrokken.'],
      ['malformed', { authorization: 'Bearer svc_1234' }, 'Deze API-sleutel is onbekend of ingetrokken.'],
      ['unknown', bearer(`svc_${'ab'.repeat(32)}`), 'Deze API-sleutel is onbekend of ingetrokken.'],
      ['revoked', bearer(keys.revoked), 'Deze API-sleutel is onbekend of ingetrokken.'],
      ['a session cookie is not a key', { cookie: await (await t.seedTenant()).adminCookie() }, "Geen API-sleutel meegestuurd: gebruik de header 'Authorization: Bearer svc_…'."],
    ];
    for (const e of endpoints) {
      for (const [what, headers, message] of bad) {
        const res = await t.req({ method: e.method, url: e.url, headers, ...(e.payload ? { payload: e.payload } : {}) });
        expect(res.statusCode, `${e.method} ${e.url}: ${what}`).toBe(401);
        expect(res.json()).toEqual({ code: 'UNAUTHORIZED', error: message });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      for (const scope of ['read', 'write', 'admin'] as const) {
        const res = await t.req({ method: e.method, url: e.url, headers: bearer(keys[scope]), ...(e.payload ? { payload: e.payload } : {}) });
        const allowed = e.scope === 'read' || scope !== 'read';
        if (allowed) {
          expect(e.ok, `${e.method} ${e.url} with ${scope}: ${res.body}`).toContain(res.statusCode);
        } else {
          expect(res.statusCode, `${e.method} ${e.url} with ${scope}`).toBe(403);
          expect(res.json()).toEqual({ code: 'FORBIDDEN', error: "Deze API-sleutel mag dit niet: daarvoor is de scope 'write' nodig." });
        }
      }
    }
    // The status moved only through the allowed keys, and a refused request moved nothing.
    expect((await t.services.orders.history(r.id, order.id)).map((h) => [h.to_status, h.source])).toEqual([
      ['new', 'pos'],
      ['accepted', 'external'],
    ]);
  });
});

describe('GET /external/orders and /external/menu', () => {
  it("lists only the key's restaurant's orders, newest first, with status filter and pagination", async () => {
    const { t, r, menu, keys } = await setup();
    const other = await t.seedTenant();
    const otherMenu = await seedMenu(t, other.id);
    await newOrder(t, other, otherMenu);
    const a = await newOrder(t, r, menu);
    t.clock.advance(1000);
    const b = await newOrder(t, r, menu);
    t.clock.advance(1000);
    const c = await newOrder(t, r, menu);
    await t.services.orders.setStatus({ tenantId: r.id, userId: null, via: 'pos' }, b.id, 'ready');
    const all = await t.req({ method: 'GET', url: '/api/v1/external/orders', headers: bearer(keys.read) });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.json().data.map((o: { id: string }) => o.id)).toEqual([c.id, b.id, a.id]);
    expect(all.json().data[0]).toEqual(c);
    const ready = await t.req({ method: 'GET', url: '/api/v1/external/orders?status=ready,preparing', headers: bearer(keys.read) });
    expect(ready.json().data.map((o: { id: string }) => o.id)).toEqual([b.id]);
    const page = await t.req({ method: 'GET', url: '/api/v1/external/orders?limit=1&offset=1', headers: bearer(keys.read) });
    expect(page.json()).toMatchObject({ total: 3, limit: 1, offset: 1, data: [{ id: b.id }] });
    for (const [q, field] of [
      ['status=klaar', 'status.0'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['offset=-1', 'offset'],
      ['sort=asc', 'sort'],
    ]) {
      const res = await t.req({ method: 'GET', url: `/api/v1/external/orders?${q}`, headers: bearer(keys.read) });
      expect(res.statusCode, q).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /) });
      expect(res.json().details[0].field, q).toBe(field);
    }
  });

  it('the menu: live categories with products and prices, no costs', async () => {
    const { t, r, keys } = await setup();
    const res = await t.req({ method: 'GET', url: '/api/v1/external/menu', headers: bearer(keys.read) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(await t.services.menu.staffMenu(r.id));
    const main = res.json().categories.find((c: { name: string }) => c.name === 'Hoofdgerechten');
    expect(main.products).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Friet', price_cents: 395, available: true }), expect.objectContaining({ name: 'Burger', price_cents: 1450 })]));
    expect(res.body).not.toMatch(/cost_cents/);
  });
});

describe('GET /external/stock, /external/reservations, /external/loyalty/:phone (the other areas’ reads)', () => {
  it('stock: the same answer as the staff’s GET /stock, of this restaurant only', async () => {
    const { t, r, menu, keys, staff } = await setup();
    const other = await t.seedTenant();
    await seedMenu(t, other.id);
    const loc = await t.services.stock.createLocation(r.id, { name: 'Keuken', is_default: true });
    await t.services.stock.recordMovement({ tenantId: r.id, userId: null }, MoveStockBody.parse({ productId: menu.friet.id, locationId: loc.id, type: 'ADDITION', quantity: 12.5 }));
    const res = await t.req({ method: 'GET', url: '/api/v1/external/stock', headers: bearer(keys.read) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual((await t.req({ method: 'GET', url: '/api/v1/stock', cookie: staff })).json());
    expect(res.json().data.find((p: { product_id: string }) => p.product_id === menu.friet.id)).toMatchObject({ name: 'Friet', total: 12.5 });
    expect(JSON.stringify(res.json())).not.toContain(other.id);
  });

  it('reservations: the bookings of the date asked, by time; a bad date is 400', async () => {
    const { t, r, keys } = await setup();
    const actor = { tenantId: r.id, userId: null };
    for (const tenantId of [r.id]) {
      const zone = await t.services.floor.createZone(tenantId, { name: 'Zaal' });
      for (const [name, seats] of [['T1', 4], ['T2', 2], ['T3', 2]] as const) await t.services.floor.createTable(tenantId, { zone_id: zone.id, name, seats, x: 0, y: 0 });
    }
    const late = await t.services.reservations.bookStaff(actor, { date: '2026-11-21', time: '19:00', party_size: 4, name: 'Jansen', phone: '0612345678' });
    const early = await t.services.reservations.bookStaff(actor, { date: '2026-11-21', time: '17:30', party_size: 2, name: 'De Vries' });
    await t.services.reservations.bookStaff(actor, { date: '2026-11-22', time: '12:30', party_size: 2, name: 'Zondag' });
    const other = await t.seedTenant();
    const otherZone = await t.services.floor.createZone(other.id, { name: 'Terras' });
    await t.services.floor.createTable(other.id, { zone_id: otherZone.id, name: 'A', seats: 2, x: 0, y: 0 });
    await t.services.reservations.bookStaff({ tenantId: other.id, userId: null }, { date: '2026-11-21', time: '18:00', party_size: 2, name: 'Elders' });
    const res = await t.req({ method: 'GET', url: '/api/v1/external/reservations?date=2026-11-21', headers: bearer(keys.read) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: [early, late] });
    for (const [q, message] of [
      ['date=21-11-2026', /JJJJ-MM-DD/],
      ['date=2026-02-30', /bestaande datum/],
      ['date=2026-13-01', /bestaande datum/],
      ['datum=2026-11-21', /Onbekend veld/],
    ] as const) {
      const bad = await t.req({ method: 'GET', url: `/api/v1/external/reservations?${q}`, headers: bearer(keys.read) });
      expect(bad.statusCode, q).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'VALIDATION', details: [{ error: expect.stringMatching(message) }] });
    }
  });

  it('loyalty: the balance by phone in any notation; unknown or another restaurant’s customer is 404, not a number 400', async () => {
    const { t, r, keys } = await setup();
    const { customer } = await t.services.loyalty.upsert({ tenantId: r.id, userId: null }, { phone: '+31612345678', name: 'Jansen' });
    const other = await t.seedTenant();
    await t.services.loyalty.upsert({ tenantId: other.id, userId: null }, { phone: '+31687654321', name: 'Elders' });
    for (const phone of ['0612345678', '+31612345678', '0031612345678', '+31 6 1234 5678']) {
      const res = await t.req({ method: 'GET', url: `/api/v1/external/loyalty/${encodeURIComponent(phone)}`, headers: bearer(keys.read) });
      expect(res.statusCode, `${phone}: ${res.body}`).toBe(200);
      expect(res.json()).toEqual({ customer_id: customer.id, phone: '+31612345678', name: 'Jansen', balance: 0 });
    }
    for (const phone of ['0611111111', '0687654321']) {
      const res = await t.req({ method: 'GET', url: `/api/v1/external/loyalty/${phone}`, headers: bearer(keys.read) });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', error: 'Klant niet gevonden.' });
    }
    const bad = await t.req({ method: 'GET', url: '/api/v1/external/loyalty/geen-nummer', headers: bearer(keys.read) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'phone' }] });
  });
});

describe('POST /external/orders/:id/status', () => {
  it('moves the order by the order rules, recorded as external, and sends order.status_changed with { order, from, to }', async () => {
    const { t, r, menu, keys, admin } = await setup();
    const rx = await startReceiver();
    const hook = (await t.req({ method: 'POST', url: '/api/v1/webhooks', cookie: admin, payload: { url: rx.url, events: ['order.status_changed'] } })).json();
    const order = await newOrder(t, r, menu);
    const res = await setStatus(t, keys.write, order.id, { status: 'preparing' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ...order, status: 'preparing', updated_at: t.clock.now().toISOString() });
    const history = await t.services.orders.history(r.id, order.id);
    expect(history.at(-1)).toMatchObject({ from_status: 'new', to_status: 'preparing', source: 'external', user_id: null });
    await settle(t);
    expect(rx.requests).toHaveLength(1);
    const got = rx.requests[0]!;
    expect(verifies(hook.secret, got.raw, got.headers['x-service-signature'])).toBe(true);
    expect(got.body).toMatchObject({ type: 'order.status_changed', tenant: { id: r.id, slug: r.slug }, data: { order: res.json(), from: 'new', to: 'preparing' } });

    // Skipping steps forward is allowed; the current status again is a no-op answered 200.
    expect((await setStatus(t, keys.admin, order.id, { status: 'completed' })).json().status).toBe('completed');
    const seq = await t.changes.lastSeq(r.id);
    const again = await setStatus(t, keys.write, order.id, { status: 'completed' });
    expect(again.statusCode).toBe(200);
    expect(again.json().status).toBe('completed');
    expect(await t.changes.lastSeq(r.id)).toBe(seq);
    await settle(t);
    expect(rx.requests.map((q) => q.body.data.to)).toEqual(['preparing', 'completed']);
  });

  it('backward or out of a final status is 409; another restaurant’s order is 404; bad input is 400; none of them changes anything', async () => {
    const { t, r, menu, keys } = await setup();
    const order = await newOrder(t, r, menu);
    await setStatus(t, keys.write, order.id, { status: 'ready' });
    const other = await t.seedTenant();
    const theirs = await newOrder(t, other, await seedMenu(t, other.id));
    const snapshot = async () => ({ seq: await t.changes.lastSeq(r.id), theirSeq: await t.changes.lastSeq(other.id), mine: await t.services.orders.get(r.id, order.id), theirs: await t.services.orders.get(other.id, theirs.id) });
    const before = await snapshot();

    const back = await setStatus(t, keys.write, order.id, { status: 'new' });
    expect(back.statusCode).toBe(409);
    expect(back.json()).toEqual({ code: 'CONFLICT', error: "Deze statuswijziging is niet toegestaan (van 'ready' naar 'new')." });
    const foreign = await setStatus(t, keys.admin, theirs.id, { status: 'accepted' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ code: 'NOT_FOUND', error: 'Bestelling niet gevonden.' });
    expect((await setStatus(t, keys.write, '0190a0a0-0000-7000-8000-000000000000', { status: 'accepted' })).statusCode).toBe(404);
    for (const [payload, field, message] of [
      [{ status: 'klaar' }, 'status', /een van deze waarden/],
      [{}, 'status', /verplicht|een van deze waarden/],
      [{ status: 'completed', payment_status: 'paid' }, 'payment_status', /Onbekend veld/],
      [{ status: 7 }, 'status', /een van deze waarden|tekst/],
    ] as const) {
      const res = await setStatus(t, keys.write, order.id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION', details: [{ field, error: expect.stringMatching(message) }] });
    }
    const badId = await setStatus(t, keys.write, 'bestelling-1', { status: 'accepted' });
    expect(badId.statusCode).toBe(400);
    expect(badId.json().details[0].field).toBe('id');
    expect(await snapshot()).toEqual(before);
  });

  it('two partners racing: completed and cancelled at the same moment, exactly one wins and the history agrees', async () => {
    const { t, r, menu, keys } = await setup();
    for (let round = 0; round < 5; round++) {
      const order = await newOrder(t, r, menu);
      const [a, b] = await Promise.all([setStatus(t, keys.write, order.id, { status: 'completed' }), setStatus(t, keys.admin, order.id, { status: 'cancelled' })]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
      const winner = (a.statusCode === 200 ? a : b).json().status;
      expect((await t.services.orders.get(r.id, order.id)).status).toBe(winner);
      const finals = (await t.services.orders.history(r.id, order.id)).filter((h) => h.to_status === 'completed' || h.to_status === 'cancelled');
      expect(finals.map((h) => h.to_status)).toEqual([winner]);
    }
  });
});

describe('per-key read limit', () => {
  it(`${EXTERNAL_READS_PER_MINUTE} reads per minute per key over all read endpoints, then 429 with Retry-After; other keys and writes are not affected`, async () => {
    const { t, r, menu, keys } = await setup();
    const order = await newOrder(t, r, menu);
    const urls = ['/api/v1/external/menu', '/api/v1/external/orders?limit=1'];
    for (let i = 0; i < EXTERNAL_READS_PER_MINUTE; i++) {
      const res = await t.req({ method: 'GET', url: urls[i % 2]!, headers: bearer(keys.read) });
      if (res.statusCode !== 200) throw new Error(`read ${i + 1}: ${res.statusCode} ${res.body}`);
    }
    const limited = await t.req({ method: 'GET', url: '/api/v1/external/orders', headers: bearer(keys.read) });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ code: 'RATE_LIMITED', error: expect.stringMatching(/^Te veel verzoeken; probeer het over \d+ seconden opnieuw\.$/) });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await t.req({ method: 'GET', url: '/api/v1/external/menu', headers: bearer(keys.write) })).statusCode).toBe(200);
    expect((await setStatus(t, keys.admin, order.id, { status: 'accepted' })).statusCode).toBe(200);
    // A request with an unknown key is refused before it can spend anyone's budget.
    expect((await t.req({ method: 'GET', url: '/api/v1/external/menu', headers: bearer(`svc_${'0'.repeat(64)}`) })).statusCode).toBe(401);
  });
});

describe('OpenAPI: a partner can integrate from /api/v1/docs alone', () => {
  it('every /external endpoint is tagged Partner-API, needs the bearer key, says its scope and lists 401 and 403; webhooks explain the signature', async () => {
    const t = await createTestApp();
    const doc = (await t.req({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'http', scheme: 'bearer' });
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>)
      .filter(([path]) => path.startsWith('/api/v1/external/'))
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })));
    expect(ops.map((o) => o.route).sort()).toEqual([
      'GET /api/v1/external/loyalty/{phone}',
      'GET /api/v1/external/menu',
      'GET /api/v1/external/orders',
      'GET /api/v1/external/reservations',
      'GET /api/v1/external/stock',
      'POST /api/v1/external/orders/{id}/status',
    ]);
    for (const { route, op } of ops) {
      expect(op.tags, route).toEqual(['Partner-API']);
      expect(op.security, route).toEqual([{ apiKey: [] }]);
      expect(op.summary, route).toEqual(expect.any(String));
      expect(op.description, route).toMatch(/Authorization: Bearer svc_/);
      expect(op.description, route).toMatch(route.startsWith('POST') ? /Scope `write`/ : new RegExp(`Scope \`read\`. At most ${EXTERNAL_READS_PER_MINUTE} reads per minute`));
      expect(Object.keys(op.responses), route).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
      expect(op.responses['200'].content['application/json'].schema, route).toBeDefined();
    }
    const hooks = doc.paths['/api/v1/webhooks'].post;
    expect(hooks.tags).toEqual(['Webhooks']);
    expect(hooks.description).toMatch(/X-Service-Signature: sha256=/);
    expect(hooks.description).toMatch(/X-Service-Delivery/);
    expect(hooks.description).toMatch(/1 s, 4 s and 16 s/);
    expect(doc.paths['/api/v1/api-keys'].post.tags).toEqual(['API-sleutels']);
  });
});
