import { describe, expect, it } from 'vitest';
import { callback, countChanges, countRows, guest, payWorld, publicOrder, type PayWorld } from '../payments/helpers.js';
import { conflict } from '../../../../server/shared/errors.js';
import type { ChangeRecord } from '../../../../server/db/change-log.js';

/** Each world's tables' pay-at-table codes by name (the links carry the code, CONTRACT §11). */
const codes = new WeakMap<PayWorld, Record<string, string>>();
const code = (w: PayWorld, name: string) => codes.get(w)?.[name] ?? name;

/** Two tables; T1 gets two staff orders (2 × Friet + Burger = 22,40 and a Cola = 3,00: 25,40 open). */
async function tableWorld(opts: { mollie?: boolean } = { mollie: true }) {
  const w = await payWorld(opts);
  const floor = w.t.services.floor;
  const zone = await floor.createZone(w.r.id, { name: 'binnen', position: 0 });
  const t1 = await floor.createTable(w.r.id, { zone_id: zone.id, name: 'T1', seats: 4, x: 10, y: 10 });
  const t2 = await floor.createTable(w.r.id, { zone_id: zone.id, name: 'T2', seats: 2, x: 100, y: 10 });
  codes.set(w, { T1: t1.public_code!, T2: t2.public_code! });
  const orders = [];
  for (const items of [[{ product_id: w.menu.friet.id, quantity: 2 }, { product_id: w.menu.burger.id, quantity: 1 }], [{ product_id: w.menu.cola.id, quantity: 1 }]]) {
    const res = await w.t.req({ method: 'POST', url: '/api/v1/orders', cookie: w.staff, payload: { items, table_id: t1.id, customer: { phone: guest.phone } } });
    if (res.statusCode !== 201) throw new Error(res.body);
    orders.push(res.json());
  }
  return { w, t1, orders };
}

/** Pays at the table named `table` by its code (a name that is not a table's is sent as it is). */
const pay = (w: PayWorld, body: unknown, table = 'T1', slug = w.r.slug) => w.t.req({ method: 'POST', url: `/api/v1/public/tafel/${slug}/${code(w, table)}/pay`, payload: body as object });
const bill = async (w: PayWorld, table = 'T1') => (await w.t.req({ method: 'GET', url: `/api/v1/public/tafel/${w.r.slug}/${code(w, table)}` })).json();

describe('pay-at-table: GET /public/tafel/:slug/:tafel', () => {
  it('the open bill by the table’s public code, as a guest may see it', async () => {
    const { w } = await tableWorld();
    const b = await bill(w);
    expect(b).toMatchObject({ table: { name: 'T1' }, total_cents: 2540, paid_cents: 0, open_cents: 2540 });
    expect(b.orders).toHaveLength(2);
    expect(b.orders[0]).toEqual({ number: expect.stringMatching(/^K-/), items: expect.any(Array), total_cents: 2240, payment_status: 'open' });
    expect(JSON.stringify(b)).not.toMatch(/phone|31612345678|bill_id|table_id/);
    expect(await bill(w, 'T2')).toMatchObject({ orders: [], total_cents: 0, open_cents: 0 });
    const unknown = await w.t.req({ method: 'GET', url: `/api/v1/public/tafel/${w.r.slug}/T9` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ code: 'NOT_FOUND', error: 'Tafel niet gevonden.' });
    const other = await w.t.seedTenant();
    expect((await w.t.req({ method: 'GET', url: `/api/v1/public/tafel/${other.slug}/${code(w, 'T1')}` })).statusCode).toBe(404);
  });
});

describe('issue 28 point 4: a table’s name opens nothing, its code does, and a renewed code replaces it at once', () => {
  const byName = (w: PayWorld, name: string, suffix = '') => w.t.req({ method: suffix ? 'POST' : 'GET', url: `/api/v1/public/tafel/${w.r.slug}/${name}${suffix}`, ...(suffix ? { payload: {} } : {}) });

  it('the table’s name (any case) is 404 for the bill and for paying, and starts no payment', async () => {
    const { w } = await tableWorld();
    for (const name of ['T1', 't1', 'T2']) {
      const read = await byName(w, name);
      expect(read.statusCode).toBe(404);
      expect(read.json()).toEqual({ code: 'NOT_FOUND', error: 'Tafel niet gevonden.' });
      expect((await byName(w, name, '/pay')).statusCode).toBe(404);
    }
    expect(await countRows(w.t, 'payments', w.r.id)).toBe(0);
    // The code: 16 characters of 32 (80 bits), one per table; a guest may type it in capitals.
    expect(code(w, 'T1')).toMatch(/^[a-km-np-z2-9]{16}$/);
    expect(code(w, 'T1')).not.toBe(code(w, 'T2'));
    expect((await w.t.req({ method: 'GET', url: `/api/v1/public/tafel/${w.r.slug}/${code(w, 'T1').toUpperCase()}` })).json()).toMatchObject({ table: { name: 'T1' }, open_cents: 2540 });
  });

  it('an admin renews the code: the old one is 404 at once (bill and pay), the new one works, staff see it on the floor plan; staff may not renew', async () => {
    const { w, t1 } = await tableWorld();
    const old = code(w, 'T1');
    const admin = w.admin;
    const denied = await w.t.req({ method: 'POST', url: `/api/v1/floorplan/tables/${t1.id}/new-code`, cookie: w.staff });
    expect(denied.statusCode).toBe(403);
    expect((await bill(w)).open_cents).toBe(2540);
    const res = await w.t.req({ method: 'POST', url: `/api/v1/floorplan/tables/${t1.id}/new-code`, cookie: admin });
    expect(res.statusCode).toBe(200);
    const fresh = res.json().public_code as string;
    expect(fresh).toMatch(/^[a-km-np-z2-9]{16}$/);
    expect(fresh).not.toBe(old);
    expect(res.json()).toMatchObject({ id: t1.id, name: 'T1' });
    const gone = await w.t.req({ method: 'GET', url: `/api/v1/public/tafel/${w.r.slug}/${old}` });
    expect(gone.statusCode).toBe(404);
    expect((await w.t.req({ method: 'POST', url: `/api/v1/public/tafel/${w.r.slug}/${old}/pay`, payload: {} })).statusCode).toBe(404);
    expect(await countRows(w.t, 'payments', w.r.id)).toBe(0);
    expect((await w.t.req({ method: 'GET', url: `/api/v1/public/tafel/${w.r.slug}/${fresh}` })).json()).toMatchObject({ table: { name: 'T1' }, open_cents: 2540 });
    const plan = (await w.t.req({ method: 'GET', url: '/api/v1/floorplan', cookie: w.staff })).json() as { zones: Array<{ tables: Array<{ id: string; public_code: string }> }> };
    expect(plan.zones[0]!.tables.find((x) => x.id === t1.id)!.public_code).toBe(fresh);
    // The renewal is a table change like any other (it replicates: floor.sync.ts).
    expect(await countChanges(w.t, w.r.id, 'table.updated', t1.id)).toBe(1);
    const unknown = await w.t.req({ method: 'POST', url: '/api/v1/floorplan/tables/00000000-0000-4000-8000-000000000000/new-code', cookie: admin });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ code: 'NOT_FOUND', error: 'Tafel niet gevonden.' });
  });

  it('a restaurant that turned on tafel_by_name (cards printed before the codes) still opens a bill by name', async () => {
    const { w } = await tableWorld();
    const admin = w.admin;
    expect((await w.t.req({ method: 'GET', url: '/api/v1/settings', cookie: admin })).json().tafel_by_name).toBe(false);
    expect((await w.t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: admin, payload: { tafel_by_name: true } })).statusCode).toBe(200);
    const read = await byName(w, 't1');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ table: { name: 'T1' }, open_cents: 2540 });
  });
});

describe('pay-at-table: POST /public/tafel/:slug/:tafel/pay', () => {
  it('partial payments with a tip up to what is open, never beyond; paid in full closes the bill and pays its orders once', async () => {
    const { w, orders } = await tableWorld();
    const first = await pay(w, { amount_cents: 1000, tip_cents: 150 });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ payment_id: expect.any(String), checkout_url: expect.stringMatching(/mollie\.com/) });
    const at = w.mollie!.paymentFor(first.json().payment_id);
    expect(at.amount.value).toBe('11.50');
    expect(at.webhookUrl).toBe('https://bestel.example.test/api/v1/public/tafel-webhook');
    // While that payment is open, more than the rest is refused.
    const over = await pay(w, { amount_cents: 1541 });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toEqual({ code: 'CONFLICT', error: 'Dit bedrag is hoger dan wat er nog openstaat voor deze tafel (nog € 15,40).' });
    w.mollie!.setStatus(at.id, 'paid');
    expect((await callback(w.t, at.id, '/api/v1/public/tafel-webhook')).statusCode).toBe(200);
    expect(await bill(w)).toMatchObject({ paid_cents: 1000, open_cents: 1540 });
    expect((await w.t.services.payments.get(w.r.id, first.json().payment_id)).tip_cents).toBe(150);

    // The rest, by leaving out the amount.
    const rest = await pay(w, {});
    expect(rest.statusCode).toBe(201);
    const at2 = w.mollie!.paymentFor(rest.json().payment_id);
    expect(at2.amount.value).toBe('15.40');
    w.mollie!.setStatus(at2.id, 'paid');
    // Mollie may call twice, at once.
    await Promise.all([callback(w.t, at2.id, '/api/v1/public/tafel-webhook'), callback(w.t, at2.id, '/api/v1/public/tafel-webhook')]);
    expect(await bill(w)).toMatchObject({ orders: [], open_cents: 0 });
    for (const o of orders) {
      expect((await w.t.services.orders.get(w.r.id, o.id)).payment_status).toBe('paid');
      expect(await countChanges(w.t, w.r.id, 'order.paid', o.id)).toBe(1);
      expect(w.paidHooks.get(o.id)).toBe(1);
    }
    expect(await countChanges(w.t, w.r.id, 'bill.payment_recorded')).toBe(2);
    // Nothing is open any more.
    const nothing = await pay(w, { amount_cents: 100 });
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json().error).toBe('Er staat voor deze tafel niets open om te betalen.');
  });

  it('paid in full: the payment, the bill’s close and its orders’ order.paid (with their awards) are one commit; a failure marking an order rolls all of it back, and the callback again does it all once', async () => {
    const { w, orders } = await tableWorld();
    const commits: string[][] = [];
    w.t.changes.on('committed', (tenantId: string, records: ChangeRecord[]) => {
      if (tenantId === w.r.id) commits.push(records.map((r) => `${r.kind}:${r.entity_id}`));
    });
    // A test seam: the orders' `paid` hooks run inside the callback's transaction; this one fails for the second order.
    const failFor = new Set([orders[1].id as string]);
    w.t.services.orders.on('paid', async (_w, _actor, order) => {
      if (failFor.has(order.id)) throw conflict('Testfout: deze bestelling weigert betaald te worden.');
    });
    const earned = async (orderId: string) =>
      (await w.t.handle.db.selectFrom('loyalty_transactions').select('id').where('order_id', '=', orderId).where('type', '=', 'earn').execute()).length;
    const p = (await pay(w, {})).json();
    const at = w.mollie!.paymentFor(p.payment_id);
    w.mollie!.setStatus(at.id, 'paid');
    const seq = await w.t.changes.lastSeq(w.r.id);

    // The failure is not taken for "the bill no longer takes it" (a CONFLICT caught and noted): the whole
    // callback transaction rolls back, the payment stays open, and the provider (or the reconcile job) asks again.
    expect((await callback(w.t, at.id, '/api/v1/public/tafel-webhook')).statusCode).toBe(500);
    expect(await w.t.changes.lastSeq(w.r.id)).toBe(seq);
    expect(await w.t.services.payments.get(w.r.id, p.payment_id)).toMatchObject({ status: 'open', note: null, paid_at: null });
    expect(await bill(w)).toMatchObject({ paid_cents: 0, open_cents: 2540 });
    for (const o of orders) {
      expect((await w.t.services.orders.get(w.r.id, o.id)).payment_status).toBe('open');
      expect(await countChanges(w.t, w.r.id, 'order.paid', o.id)).toBe(0);
      expect(await earned(o.id)).toBe(0);
    }

    failFor.clear();
    commits.length = 0;
    expect((await callback(w.t, at.id, '/api/v1/public/tafel-webhook')).statusCode).toBe(200);
    const withClose = commits.filter((c) => c.some((k) => k.startsWith('bill.closed:')));
    expect(withClose).toHaveLength(1);
    expect(withClose[0]).toEqual(expect.arrayContaining([`payment.status_changed:${p.payment_id}`, `order.paid:${orders[0].id}`, `order.paid:${orders[1].id}`]));
    expect(withClose[0]!.filter((k) => k.startsWith('bill.payment_recorded:'))).toHaveLength(1);
    expect(commits.flat().filter((k) => k.startsWith('order.paid:'))).toHaveLength(2);
    for (const o of orders) {
      const paid = (await w.t.changes.readSince(w.r.id, 0, 10_000)).filter((c) => c.kind === 'order.paid' && c.entity_id === o.id);
      expect(paid).toHaveLength(1);
      // The payment info is the pay-at-table payment's, as before.
      expect((paid[0]!.payload as { payment: unknown }).payment).toEqual({ provider: 'mollie', payment_id: p.payment_id, amount_cents: 2540, by: null, via: 'web' });
      expect(await earned(o.id)).toBe(1);
    }
    expect(await w.t.services.payments.get(w.r.id, p.payment_id)).toMatchObject({ status: 'paid', note: null });
  });

  it('two guests paying everything at the same moment: one checkout, the other refused', async () => {
    const { w } = await tableWorld();
    const both = await Promise.all([pay(w, {}), pay(w, {})]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(w.mollie!.payments.size).toBe(1);
    expect(await countRows(w.t, 'payments', w.r.id)).toBeLessThanOrEqual(2);
    const open = (await w.t.services.payments.list(w.r.id, { status: 'open' }, 50, 0)).data;
    expect(open).toHaveLength(1);
  });

  it('20 concurrent callbacks for a table payment record it on the bill once', async () => {
    const { w } = await tableWorld();
    const p = (await pay(w, { amount_cents: 500 })).json();
    const at = w.mollie!.paymentFor(p.payment_id);
    w.mollie!.setStatus(at.id, 'paid');
    const answers = await Promise.all(Array.from({ length: 20 }, () => callback(w.t, at.id, '/api/v1/public/tafel-webhook')));
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(await countChanges(w.t, w.r.id, 'bill.payment_recorded')).toBe(1);
    expect(await bill(w)).toMatchObject({ paid_cents: 500, open_cents: 2040 });
  });

  it('a failed table payment frees its amount again', async () => {
    const { w } = await tableWorld();
    const p = (await pay(w, {})).json();
    expect((await pay(w, { amount_cents: 1 })).statusCode).toBe(409);
    const at = w.mollie!.paymentFor(p.payment_id);
    w.mollie!.setStatus(at.id, 'failed');
    await callback(w.t, at.id, '/api/v1/public/tafel-webhook');
    expect((await pay(w, { amount_cents: 2540 })).statusCode).toBe(201);
  });

  it.each([
    ['zero', { amount_cents: 0 }, 'amount_cents', /minimaal 1/],
    ['a fraction', { amount_cents: 10.5 }, 'amount_cents', /geheel getal/],
    ['a negative tip', { tip_cents: -1 }, 'tip_cents', /minimaal 0/],
    ['an unknown field', { bedrag: 10 }, 'bedrag', /Onbekend veld/],
  ])('%s is 400 VALIDATION in Dutch, naming the field, and changes nothing', async (_n, body, field, msg) => {
    const { w } = await tableWorld();
    const res = await pay(w, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION');
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().details[0].error).toMatch(msg);
    expect(await countRows(w.t, 'payments', w.r.id)).toBe(0);
    expect(w.mollie!.payments.size).toBe(0);
  });

  it('an unknown table or restaurant is 404 and starts nothing', async () => {
    const { w } = await tableWorld();
    expect((await pay(w, {}, 'T9')).statusCode).toBe(404);
    expect((await pay(w, {}, 'T1', 'bestaat-niet')).statusCode).toBe(404);
    expect(await countRows(w.t, 'payments')).toBe(0);
  });

  it('the simulator works for tables too', async () => {
    const { w } = await tableWorld({});
    const p = (await pay(w, { amount_cents: 300, tip_cents: 50 })).json();
    const sim = p.checkout_url.split('/').pop();
    const page = await w.t.req({ method: 'GET', url: `/api/v1/payments/simulator/${sim}` });
    expect(page.body).toContain('€ 3,50');
    await w.t.req({ method: 'POST', url: `/api/v1/payments/simulator/${sim}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'uitkomst=betaald' });
    expect(await bill(w)).toMatchObject({ paid_cents: 300, open_cents: 2240 });
  });
});

describe('a public order to a table (issue 28 point 4: by the table’s code, like its bill)', () => {
  const tableOrder = (w: PayWorld, table: string, key?: string) =>
    publicOrder(w, { type: 'table', table, items: [{ product_id: w.menu.cola.id, quantity: 2 }], ...(key ? { idempotency_key: key } : {}) });
  const refused = { field: 'table', error: "'table' is geen tafel van dit restaurant." };

  it('by the table’s public code (any case): on the table’s bill, paid at the table (no checkout); the kitchen and the public order see the table’s name, never the code', async () => {
    const { w, t1 } = await tableWorld();
    const res = await tableOrder(w, code(w, 'T1').toUpperCase());
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ checkout_url: null, payment_id: null, order: { table_id: t1.id, notes: '[Aan tafel T1]' } });
    expect((await bill(w)).open_cents).toBe(2540 + 600);
    const row = await w.t.handle.db.selectFrom('public_orders').select(['type', 'table_name']).where('id', '=', res.json().order.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ type: 'table', table_name: 'T1' });
    const ofOrder = (await w.t.changes.readSince(w.r.id, 0, 10_000)).filter((c) => c.entity_id === res.json().order.id);
    expect(ofOrder.map((c) => c.kind).sort()).toEqual(['order.created', 'public_order.created']);
    expect(JSON.stringify(ofOrder)).not.toContain(code(w, 'T1'));
  });

  it('guessing a table’s name (any case) is refused with the same Dutch error as an unknown table, and creates nothing', async () => {
    const { w } = await tableWorld();
    const before = await countRows(w.t, 'orders', w.r.id);
    for (const guess of ['T1', 't1', 'T2', 'T9']) {
      const res = await tableOrder(w, guess);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /), details: [refused] });
    }
    expect(await countRows(w.t, 'orders', w.r.id)).toBe(before);
    expect(await countRows(w.t, 'public_orders', w.r.id)).toBe(0);
    expect((await bill(w)).open_cents).toBe(2540);
  });

  it('a renewed code: the old one takes no order any more, the new one does', async () => {
    const { w, t1 } = await tableWorld();
    const old = code(w, 'T1');
    expect((await tableOrder(w, old)).statusCode).toBe(201);
    const fresh = (await w.t.req({ method: 'POST', url: `/api/v1/floorplan/tables/${t1.id}/new-code`, cookie: w.admin })).json().public_code as string;
    const stale = await tableOrder(w, old);
    expect(stale.statusCode).toBe(400);
    expect(stale.json().details).toEqual([refused]);
    expect(await countRows(w.t, 'public_orders', w.r.id)).toBe(1);
    const now = await tableOrder(w, fresh);
    expect(now.statusCode).toBe(201);
    expect(now.json().order.table_id).toBe(t1.id);
    expect((await w.t.req({ method: 'GET', url: `/api/v1/public/tafel/${w.r.slug}/${fresh}` })).json().open_cents).toBe(2540 + 1200);
  });

  it('by name only while the restaurant has tafel_by_name on (and not once it is off again)', async () => {
    const { w, t1 } = await tableWorld();
    const setByName = async (on: boolean) => expect((await w.t.req({ method: 'PATCH', url: '/api/v1/settings', cookie: w.admin, payload: { tafel_by_name: on } })).statusCode).toBe(200);
    await setByName(true);
    const res = await tableOrder(w, 't1');
    expect(res.statusCode).toBe(201);
    expect(res.json().order).toMatchObject({ table_id: t1.id, notes: '[Aan tafel T1]' });
    expect((await tableOrder(w, 'T9')).json().details).toEqual([refused]);
    await setByName(false);
    const again = await tableOrder(w, 'T1');
    expect(again.statusCode).toBe(400);
    expect(again.json().details).toEqual([refused]);
    expect(await countRows(w.t, 'public_orders', w.r.id)).toBe(1);
  });
});
