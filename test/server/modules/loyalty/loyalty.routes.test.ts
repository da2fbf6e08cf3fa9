import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { lane } from '../../../helpers/db.js';
import { seedMenu } from '../../../helpers/factories.js';
import { rebuildAccounts } from '../../../../server/modules/loyalty/loyalty.ledger.js';
import { findEverywhere, paidOrder } from './helpers.js';

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const menu = await seedMenu(t, r.id);
  const staff = await r.staffCookie();
  const admin = await r.adminCookie();
  return { t, r, menu, staff, admin };
}

const upsert = (t: TestApp, cookie: string, payload: unknown) => t.req({ method: 'POST', url: '/api/v1/loyalty/customer', cookie, payload: payload as object });
const redeem = (t: TestApp, cookie: string, payload: unknown) => t.req({ method: 'POST', url: '/api/v1/loyalty/redeem', cookie, payload: payload as object });
const byPhone = (t: TestApp, cookie: string, phone: string) => t.req({ method: 'GET', url: `/api/v1/loyalty/customer/${encodeURIComponent(phone)}`, cookie });

async function eventCount(t: TestApp, tenantId: string, kind: string): Promise<number> {
  return (await t.handle.db.selectFrom('change_log').select('op_id').where('tenant_id', '=', tenantId).where('kind', '=', kind).execute()).length;
}

describe('phone numbers (CONTRACT §8): E.164, the Netherlands by default (server/shared/phone.ts)', () => {
  it('every valid notation of one number is one customer through the API; an invalid one is a Dutch 400 that changes nothing', async () => {
    const { t, r, staff } = await setup();
    const first = await upsert(t, staff, { phone: '06 12345678', name: 'Jansen' });
    expect(first.statusCode).toBe(201);
    for (const phone of ['0612345678', '0031612345678', '+31 6 1234 5678', '06-1234-5678', '0031 (0)6 12345678']) {
      const res = await upsert(t, staff, { phone });
      expect(res.statusCode, phone).toBe(200);
      expect(res.json().id).toBe(first.json().id);
      expect(res.json().phone).toBe('+31612345678');
    }
    for (const phone of ['0612', '06 1234567a', 'abc', '112']) {
      const res = await upsert(t, staff, { phone, name: 'Fout' });
      expect(res.statusCode, phone).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'phone', error: expect.stringContaining('geldig telefoonnummer') }] });
      expect(res.json().error).toMatch(/^Ongeldige invoer: 'phone' moet een geldig telefoonnummer zijn/);
    }
    const all = await t.req({ method: 'GET', url: '/api/v1/loyalty/customers', cookie: staff });
    expect(all.json().data).toHaveLength(1);
    expect(await eventCount(t, r.id, 'loyalty.customer_created')).toBe(1);
  });
});

describe('POST /loyalty/customer (upsert)', () => {
  it('201 when created with one loyalty.customer_created event; 200 when updated, no second event; an unchanged repeat writes nothing', async () => {
    const { t, r, staff } = await setup();
    const created = await upsert(t, staff, { phone: '06 11112222', name: 'Anna de Boer', email: 'anna@example.nl' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      id: expect.any(String),
      phone: '+31611112222',
      name: 'Anna de Boer',
      email: 'anna@example.nl',
      balance: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const event = await t.handle.db.selectFrom('change_log').selectAll().where('tenant_id', '=', r.id).where('kind', '=', 'loyalty.customer_created').execute();
    expect(event).toHaveLength(1);
    expect(JSON.parse(event[0]!.payload).customer).toMatchObject({ id: created.json().id, phone: '+31611112222', name: 'Anna de Boer' });

    t.clock.advance(60_000);
    const updated = await upsert(t, staff, { phone: '+31 6 1111 2222', name: 'Anna Bakker' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ id: created.json().id, name: 'Anna Bakker', email: 'anna@example.nl' });
    expect(updated.json().updated_at > created.json().updated_at).toBe(true);
    const before = await t.handle.db.selectFrom('change_log').select('op_id').where('tenant_id', '=', r.id).execute();
    const again = await upsert(t, staff, { phone: '0611112222', name: 'Anna Bakker' });
    expect(again.statusCode).toBe(200);
    expect((await t.handle.db.selectFrom('change_log').select('op_id').where('tenant_id', '=', r.id).execute()).length).toBe(before.length);
    expect(await eventCount(t, r.id, 'loyalty.customer_created')).toBe(1);
    expect(await eventCount(t, r.id, 'loyalty.customer_updated')).toBe(1);
  });

  it('twenty concurrent upserts of one new number make one customer and one event', async () => {
    const { t, r, staff } = await setup();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => upsert(t, staff, { phone: i % 2 ? '06 24681357' : '+31624681357', name: `Gast ${i}` })));
    expect(results.map((x) => x.statusCode).filter((s) => s === 201), results.map((x) => x.body).join()).toHaveLength(1);
    expect(results.every((x) => x.statusCode === 201 || x.statusCode === 200)).toBe(true);
    expect(new Set(results.map((x) => x.json().id)).size).toBe(1);
    expect(await eventCount(t, r.id, 'loyalty.customer_created')).toBe(1);
  });

  it.each([
    ['missing phone', { name: 'X' }, 'phone', /verplicht/],
    ['phone not a string', { phone: 612345678 }, 'phone', /tekst/],
    ['invalid e-mail', { phone: '0612345678', email: 'geen-mail' }, 'email', /e-mailadres/],
    ['empty name', { phone: '0612345678', name: '  ' }, 'name', /leeg/],
    ['name too long', { phone: '0612345678', name: 'x'.repeat(121) }, 'name', /maximaal 120/],
    ['unknown field', { phone: '0612345678', points: 10 }, 'points', /Onbekend veld/],
  ])('%s is 400 VALIDATION naming the field, and nothing is stored', async (_n, body, field, msg) => {
    const { t, r, staff } = await setup();
    const res = await upsert(t, staff, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION');
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().details[0].error).toMatch(msg);
    expect(await t.handle.db.selectFrom('loyalty_customers').select('id').where('tenant_id', '=', r.id).execute()).toHaveLength(0);
  });

  it('needs a session', async () => {
    const { t } = await setup();
    const res = await t.req({ method: 'POST', url: '/api/v1/loyalty/customer', payload: { phone: '0612345678' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' });
  });
});

describe('earning on paid orders', () => {
  it('a paid order with a phone earns 1 point per whole euro once, creating the customer; a repeated payment earns nothing more', async () => {
    const { t, r, menu, staff, admin } = await setup();
    const order = await paidOrder(t, r.id, menu, '06 12345678', { quantity: 3, name: 'Pieter' }); // 3 × 14,50 = 43,50 → 43
    let c = (await byPhone(t, staff, '0612345678')).json();
    expect(c).toMatchObject({ phone: '+31612345678', name: 'Pieter', balance: 43 });
    expect(c.transactions).toEqual([{ id: expect.any(String), type: 'earn', points: 43, order_id: order.id, note: null, created_at: expect.any(String) }]);
    // Paid again (cash desk and payment callback both): no second award, no second order.paid.
    await t.services.orders.markPaid({ tenantId: r.id, userId: null, via: 'pos' }, order.id);
    const patched = await t.req({ method: 'PATCH', url: `/api/v1/orders/${order.id}`, cookie: admin, payload: { payment_status: 'paid' } });
    expect(patched.statusCode).toBe(200);
    c = (await byPhone(t, staff, '+31612345678')).json();
    expect(c.balance).toBe(43);
    expect(c.transactions).toHaveLength(1);
    expect(await eventCount(t, r.id, 'loyalty.points_earned')).toBe(1);
    expect(await eventCount(t, r.id, 'loyalty.customer_created')).toBe(1);
  });

  it('the rate is the tenant setting; orders without a (valid) phone or under one euro earn nothing', async () => {
    const { t, r, menu, staff } = await setup();
    await t.services.tenants.patchSettings(r.id, { loyalty_points_per_euro: 3 });
    await paidOrder(t, r.id, menu, '0687654321', { quantity: 2 }); // 29,00 → 29 × 3
    expect((await byPhone(t, staff, '0687654321')).json().balance).toBe(87);
    await paidOrder(t, r.id, menu, undefined);
    await paidOrder(t, r.id, menu, '12345-nope');
    await t.services.tenants.patchSettings(r.id, { loyalty_points_per_euro: 0 });
    await paidOrder(t, r.id, menu, '0687654321');
    expect((await t.handle.db.selectFrom('loyalty_transactions').select('id').where('tenant_id', '=', r.id).execute()).length).toBe(1);
    expect((await t.handle.db.selectFrom('loyalty_customers').select('id').where('tenant_id', '=', r.id).execute()).length).toBe(1);
  });
});

describe('GET /loyalty/customer/:phone and GET /loyalty/customers', () => {
  it('the customer with balance and transactions newest first, by any notation; unknown 404; invalid 400; another tenant’s customer 404', async () => {
    const { t, r, menu, staff } = await setup();
    const first = await paidOrder(t, r.id, menu, '0612345678');
    t.clock.advance(60_000);
    const second = await paidOrder(t, r.id, menu, '0612345678', { quantity: 2 });
    t.clock.advance(60_000);
    const c0 = (await byPhone(t, staff, '06 12345678')).json();
    await redeem(t, staff, { customer_id: c0.id, points: 10 });
    const c = (await byPhone(t, staff, '0031612345678')).json();
    expect(c.balance).toBe(14 + 29 - 10);
    expect(c.redeemable_here).toBe(33);
    expect(c.transactions.map((x: { type: string; points: number; order_id: string | null }) => [x.type, x.points, x.order_id])).toEqual([
      ['redeem', -10, null],
      ['earn', 29, second.id],
      ['earn', 14, first.id],
    ]);
    expect((await byPhone(t, staff, '0622334455')).statusCode).toBe(404);
    expect((await byPhone(t, staff, '0622334455')).json()).toEqual({ error: 'Klant niet gevonden.', code: 'NOT_FOUND' });
    const bad = await byPhone(t, staff, '06-abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('phone');
    const other = await t.seedTenant();
    expect((await byPhone(t, await other.staffCookie(), '0612345678')).statusCode).toBe(404);
    expect((await t.req({ method: 'GET', url: '/api/v1/loyalty/customer/0612345678' })).statusCode).toBe(401);
  });

  it('search by name and e-mail (case-insensitive), by a phone in any notation or part of it; limit is checked', async () => {
    const { t, r, staff } = await setup();
    await upsert(t, staff, { phone: '0612345678', name: 'Sanne de Vries', email: 'sanne@voorbeeld.nl' });
    await upsert(t, staff, { phone: '0687654321', name: 'Daan Jansen', email: 'DAAN@example.com' });
    await upsert(t, staff, { phone: '+32470123456', name: 'Émile 50%' });
    const other = await t.seedTenant();
    await t.services.loyalty.upsert({ tenantId: other.id, userId: null }, { phone: '+31612345678', name: 'Sanne Ander' });
    const search = async (q: string) =>
      (await t.req({ method: 'GET', url: `/api/v1/loyalty/customers?search=${encodeURIComponent(q)}`, cookie: staff })).json().data.map((c: { name: string }) => c.name);
    expect(await search('sanne')).toEqual(['Sanne de Vries']);
    expect(await search('JANSEN')).toEqual(['Daan Jansen']);
    expect(await search('daan@EXAMPLE')).toEqual(['Daan Jansen']);
    expect(await search('voorbeeld.nl')).toEqual(['Sanne de Vries']);
    expect(await search('+31 6 1234 5678')).toEqual(['Sanne de Vries']);
    expect(await search('0031687654321')).toEqual(['Daan Jansen']);
    expect(await search('06-8765')).toEqual(['Daan Jansen']);
    // The start of a number as typed (phoneSearchPrefix): 06 and 0612 are the starts of +316… and +31612….
    expect(await search('0612')).toEqual(['Sanne de Vries']);
    expect(await search('06')).toEqual(['Daan Jansen', 'Sanne de Vries']);
    expect(await search('+32 47')).toEqual(['Émile 50%']);
    expect(await search('0031 68')).toEqual(['Daan Jansen']);
    expect(await search('470 12')).toEqual(['Émile 50%']);
    expect(await search('50%')).toEqual(['Émile 50%']);
    expect(await search('_')).toEqual([]);
    expect(await search('niemand')).toEqual([]);
    const all = await t.req({ method: 'GET', url: '/api/v1/loyalty/customers?limit=2', cookie: staff });
    expect(all.json().data).toHaveLength(2);
    expect(all.json().data[0]).toEqual({ id: expect.any(String), phone: expect.stringMatching(/^\+/), name: expect.any(String), email: expect.anything(), balance: 0, created_at: expect.any(String), updated_at: expect.any(String) });
    for (const q of ['limit=0', 'limit=201', 'limit=abc', 'offset=1']) {
      const res = await t.req({ method: 'GET', url: `/api/v1/loyalty/customers?${q}`, cookie: staff });
      expect(res.statusCode, q).toBe(400);
      expect(res.json().code).toBe('VALIDATION');
    }
    expect((await t.req({ method: 'GET', url: '/api/v1/loyalty/customers' })).statusCode).toBe(401);
    void r;
  });
});

describe('POST /loyalty/redeem (CONTRACT §8)', () => {
  it('redeems: answer { customer_id, points_redeemed, balance, transaction }; above the balance 409 with the Dutch message and nothing changed', async () => {
    const { t, r, menu, staff } = await setup();
    await paidOrder(t, r.id, menu, '0612345678', { quantity: 10 }); // 145 points
    const c = (await byPhone(t, staff, '0612345678')).json();
    const ok = await redeem(t, staff, { customer_id: c.id, points: 45 });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({
      customer_id: c.id,
      points_redeemed: 45,
      balance: 100,
      transaction: { id: expect.any(String), type: 'redeem', points: -45, order_id: null, note: null, created_at: expect.any(String) },
    });
    const log = await t.handle.db.selectFrom('change_log').select('op_id').where('tenant_id', '=', r.id).execute();
    const tooMuch = await redeem(t, staff, { customer_id: c.id, points: 200 });
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.json()).toEqual({ error: 'Onvoldoende punten: saldo 100, gevraagd 200.', code: 'CONFLICT' });
    expect((await byPhone(t, staff, '0612345678')).json().balance).toBe(100);
    expect((await t.handle.db.selectFrom('change_log').select('op_id').where('tenant_id', '=', r.id).execute()).length).toBe(log.length);
    const exact = await redeem(t, staff, { customer_id: c.id, points: 100 });
    expect(exact.json().balance).toBe(0);
    expect((await redeem(t, staff, { customer_id: c.id, points: 1 })).statusCode).toBe(409);
  });

  it.each([
    ['points 0', { points: 0 }, 'points', /minimaal 1/],
    ['negative points', { points: -5 }, 'points', /minimaal 1/],
    ['fractional points', { points: 1.5 }, 'points', /geheel getal/],
    ['points as text', { points: '10' }, 'points', /getal/],
    ['too many points', { points: 1_000_001 }, 'points', /maximaal/],
    ['bad customer id', { customer_id: 'klant-1' }, 'customer_id', /geldige id/],
    ['missing customer', { customer_id: undefined }, 'customer_id', /verplicht/],
  ])('%s is 400 VALIDATION and nothing is redeemed', async (_n, patch, field, msg) => {
    const { t, r, menu, staff } = await setup();
    await paidOrder(t, r.id, menu, '0612345678');
    const c = (await byPhone(t, staff, '0612345678')).json();
    const res = await redeem(t, staff, { customer_id: c.id, points: 5, ...patch });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toEqual({ field, error: expect.stringMatching(msg) });
    expect((await byPhone(t, staff, '0612345678')).json().balance).toBe(14);
  });

  it('a customer of another restaurant (id in the body) or an unknown id is 404, and nothing happens to it', async () => {
    const { t, menu, staff } = await setup();
    const other = await t.seedTenant();
    const otherMenu = await seedMenu(t, other.id);
    await paidOrder(t, other.id, otherMenu, '0612345678');
    const theirs = (await byPhone(t, await other.staffCookie(), '0612345678')).json();
    const res = await redeem(t, staff, { customer_id: theirs.id, points: 5 });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Klant niet gevonden.', code: 'NOT_FOUND' });
    expect((await redeem(t, staff, { customer_id: '0190a0a0-0000-7000-8000-000000000000', points: 1 })).statusCode).toBe(404);
    const admin = await t.req({ method: 'POST', url: '/api/v1/loyalty/adjust', cookie: await (await t.seedTenant()).adminCookie(), payload: { customer_id: theirs.id, points: -5, note: 'x' } });
    expect(admin.statusCode).toBe(404);
    expect((await byPhone(t, await other.staffCookie(), '0612345678')).json().balance).toBe(14);
    const anon = await t.req({ method: 'POST', url: '/api/v1/loyalty/redeem', payload: { customer_id: theirs.id, points: 5 } });
    expect(anon.statusCode).toBe(401);
    void menu;
  });

  it(`twenty concurrent redemptions that together exceed the balance leave it at >= 0 with the right number refused (${lane})`, async () => {
    const { t, r, menu, staff } = await setup();
    await paidOrder(t, r.id, menu, '0612345678', { quantity: 7 }); // 101,50 → 101 points
    const c = (await byPhone(t, staff, '0612345678')).json();
    expect(c.balance).toBe(101);
    const results = await Promise.all(Array.from({ length: 20 }, () => redeem(t, staff, { customer_id: c.id, points: 15 })));
    const ok = results.filter((x) => x.statusCode === 200);
    const refused = results.filter((x) => x.statusCode === 409);
    expect(ok).toHaveLength(6); // 6 × 15 = 90 ≤ 101 < 105
    expect(refused).toHaveLength(14);
    for (const x of refused) expect(x.json().error).toMatch(/^Onvoldoende punten: saldo 11, gevraagd 15\.$/);
    const after = (await byPhone(t, staff, '0612345678')).json();
    expect(after.balance).toBe(11);
    expect(after.transactions.filter((x: { type: string }) => x.type === 'redeem')).toHaveLength(6);
    // The maintained account equals the ledger's replay.
    const rebuilt = await rebuildAccounts(t.handle.db, r.id);
    expect(rebuilt.get(c.id)?.get('pool')).toBe(11);
    // The service level too (no HTTP in between), straight at the database.
    const direct = await Promise.allSettled(Array.from({ length: 20 }, () => t.services.loyalty.redeem({ tenantId: r.id, userId: null }, { customer_id: c.id, points: 1 })));
    expect(direct.filter((x) => x.status === 'fulfilled')).toHaveLength(11);
    expect((await byPhone(t, staff, '0612345678')).json().balance).toBe(0);
  });
});

describe('POST /loyalty/adjust (admin)', () => {
  it('adds and takes off points with a note; never below zero; staff 403, no session 401', async () => {
    const { t, r, staff, admin } = await setup();
    const c = (await upsert(t, staff, { phone: '0612345678', name: 'Kim' })).json();
    const plus = await t.req({ method: 'POST', url: '/api/v1/loyalty/adjust', cookie: admin, payload: { customer_id: c.id, points: 50, note: 'Excuus voor de wachttijd' } });
    expect(plus.statusCode).toBe(200);
    expect(plus.json()).toMatchObject({ customer_id: c.id, balance: 50, transaction: { type: 'adjust', points: 50, note: 'Excuus voor de wachttijd' } });
    const minus = await t.req({ method: 'POST', url: '/api/v1/loyalty/adjust', cookie: admin, payload: { customer_id: c.id, points: -20, note: 'Dubbel geboekt' } });
    expect(minus.json()).toMatchObject({ balance: 30, transaction: { type: 'adjust', points: -20 } });
    const over = await t.req({ method: 'POST', url: '/api/v1/loyalty/adjust', cookie: admin, payload: { customer_id: c.id, points: -31, note: 'Te veel' } });
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toBe('Onvoldoende punten: saldo 30, gevraagd 31.');
    const zero = await t.req({ method: 'POST', url: '/api/v1/loyalty/adjust', cookie: admin, payload: { customer_id: c.id, points: 0, note: 'x' } });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().details[0]).toEqual({ field: 'points', error: "'points' mag niet 0 zijn." });
    expect((await t.req({ method: 'POST', url: '/api/v1/loyalty/adjust', cookie: admin, payload: { customer_id: c.id, points: 5 } })).json().details[0].field).toBe('note');
    expect((await t.req({ method: 'POST', url: '/api/v1/loyalty/adjust', cookie: staff, payload: { customer_id: c.id, points: 5, note: 'x' } })).statusCode).toBe(403);
    expect((await t.req({ method: 'POST', url: '/api/v1/loyalty/adjust', payload: { customer_id: c.id, points: 5, note: 'x' } })).statusCode).toBe(401);
    expect((await byPhone(t, staff, '0612345678')).json().balance).toBe(30);
    void r;
  });
});

describe('privacy: export and erase (admin)', () => {
  it('export answers everything held about the customer and is logged; staff 403; another tenant 404', async () => {
    const { t, r, menu, staff, admin } = await setup();
    const order = await paidOrder(t, r.id, menu, '06 12345678', { name: 'Jan Klaassen' });
    const c = (await upsert(t, staff, { phone: '0612345678', email: 'jan@example.nl' })).json();
    const res = await t.req({ method: 'GET', url: `/api/v1/loyalty/customer/${c.id}/export`, cookie: admin });
    expect(res.statusCode).toBe(200);
    const x = res.json();
    expect(x).toMatchObject({
      tenant: { id: r.id },
      customer: { id: c.id, phone: '+31612345678', name: 'Jan Klaassen', email: 'jan@example.nl', erased_at: null },
      merged_records: [],
      balance: 14,
      transactions: [{ type: 'earn', points: 14, order_id: order.id }],
      orders: [{ id: order.id, number: order.number, customer_name: 'Jan Klaassen', customer_phone: '06 12345678' }],
      privacy_log: [{ action: 'export', created_at: expect.any(String) }],
    });
    expect(await eventCount(t, r.id, 'loyalty.privacy_logged')).toBe(1);
    expect((await t.req({ method: 'GET', url: `/api/v1/loyalty/customer/${c.id}/export`, cookie: staff })).statusCode).toBe(403);
    expect((await t.req({ method: 'GET', url: `/api/v1/loyalty/customer/${c.id}/export` })).statusCode).toBe(401);
    const other = await t.seedTenant();
    expect((await t.req({ method: 'GET', url: `/api/v1/loyalty/customer/${c.id}/export`, cookie: await other.adminCookie() })).statusCode).toBe(404);
    expect((await t.req({ method: 'GET', url: '/api/v1/loyalty/customer/niet-een-id/export', cookie: admin })).statusCode).toBe(400);
  });

  it('erase: phone, name and e-mail are found nowhere in the database afterwards, totals unchanged, logged; a second erase is 404', async () => {
    const { t, r, menu, staff, admin } = await setup();
    await paidOrder(t, r.id, menu, '06 13579246', { name: 'Geheime Gast', quantity: 4 });
    const c = (await upsert(t, staff, { phone: '+31613579246', email: 'geheim@example.nl' })).json();
    await redeem(t, staff, { customer_id: c.id, points: 8 });
    await t.req({ method: 'GET', url: `/api/v1/loyalty/customer/${c.id}/export`, cookie: admin });
    const needles = ['13579246', 'Geheime Gast', 'geheim@example.nl'];
    expect((await findEverywhere(t.handle.db, t.handle.dialect, needles)).length).toBeGreaterThan(0);
    const sumBefore = (await t.handle.db.selectFrom('loyalty_transactions').select('points').where('tenant_id', '=', r.id).execute()).reduce((s, x) => s + Number(x.points), 0);

    expect((await t.req({ method: 'DELETE', url: `/api/v1/loyalty/customer/${c.id}`, cookie: staff })).statusCode).toBe(403);
    const del = await t.req({ method: 'DELETE', url: `/api/v1/loyalty/customer/${c.id}`, cookie: admin });
    expect(del.statusCode).toBe(204);
    await t.services.loyalty.settled();
    expect(await findEverywhere(t.handle.db, t.handle.dialect, needles)).toEqual([]);
    const sumAfter = (await t.handle.db.selectFrom('loyalty_transactions').select('points').where('tenant_id', '=', r.id).execute()).reduce((s, x) => s + Number(x.points), 0);
    expect(sumAfter).toBe(sumBefore);
    expect(sumAfter).toBe(50);
    expect((await byPhone(t, staff, '0613579246')).statusCode).toBe(404);
    expect((await t.req({ method: 'GET', url: '/api/v1/loyalty/customers?search=geheim', cookie: staff })).json().data).toEqual([]);
    const exported = (await t.req({ method: 'GET', url: `/api/v1/loyalty/customer/${c.id}/export`, cookie: admin })).json();
    expect(exported.customer).toMatchObject({ phone: null, name: null, email: null, erased_at: expect.any(String) });
    expect(exported.balance).toBe(50);
    expect(exported.privacy_log.map((l: { action: string }) => l.action)).toEqual(['export', 'erase', 'export']);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/loyalty/customer/${c.id}`, cookie: admin })).statusCode).toBe(404);
    expect((await redeem(t, staff, { customer_id: c.id, points: 1 })).statusCode).toBe(404);
    // A new registration with the same number is a new customer (fresh consent), not the erased one.
    const fresh = await upsert(t, staff, { phone: '0613579246', name: 'Opnieuw' });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.json().id).not.toBe(c.id);
    expect(fresh.json().balance).toBe(0);
  });

  it('erase: other tenant 404, bad id 400, no session 401; a refused erase changes nothing', async () => {
    const { t, staff, admin } = await setup();
    const c = (await upsert(t, staff, { phone: '0612345678', name: 'Blijft' })).json();
    const other = await t.seedTenant();
    expect((await t.req({ method: 'DELETE', url: `/api/v1/loyalty/customer/${c.id}`, cookie: await other.adminCookie() })).statusCode).toBe(404);
    expect((await t.req({ method: 'DELETE', url: '/api/v1/loyalty/customer/123', cookie: admin })).statusCode).toBe(400);
    expect((await t.req({ method: 'DELETE', url: `/api/v1/loyalty/customer/${c.id}` })).statusCode).toBe(401);
    expect((await byPhone(t, staff, '0612345678')).json().name).toBe('Blijft');
  });
});

describe('loyalty.balanceByPhone (for GET /external/loyalty/:phone)', () => {
  it('any notation → { customer_id, phone, name, balance }; unknown NOT_FOUND; not a number VALIDATION', async () => {
    const { t, r, menu } = await setup();
    await paidOrder(t, r.id, menu, '0612345678', { name: 'Lotte', quantity: 2 });
    const id = (await t.services.loyalty.balanceByPhone(r.id, '+31 6 1234 5678')).customer_id;
    expect(await t.services.loyalty.balanceByPhone(r.id, '0031612345678')).toEqual({ customer_id: id, phone: '+31612345678', name: 'Lotte', balance: 29 });
    await expect(t.services.loyalty.balanceByPhone(r.id, '0622334455')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.services.loyalty.balanceByPhone(r.id, 'abc')).rejects.toMatchObject({ code: 'VALIDATION' });
    const other = await t.seedTenant();
    await expect(t.services.loyalty.balanceByPhone(other.id, '0612345678')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
