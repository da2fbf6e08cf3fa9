import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { setupFloor, statuses, type FloorSetup } from '../floor/helpers.js';
import { GENESIS } from '../../../../server/modules/journal/journal.chain.js';

/** The till (issue 25, CONTRACT §19, docs/till.md) on both lanes: payments with methods, split by dish, move and merge, discounts, VAT, receipts. */

const UNKNOWN = '0190a0a0-0000-7000-8000-000000000000';

async function setup(): Promise<FloorSetup> {
  return setupFloor(await createTestApp({ config: { rateLimitPerMinute: 100_000 } }));
}

async function order(s: FloorSetup, body: Record<string, unknown>, cookie = s.staff) {
  const res = await s.t.req({ method: 'POST', url: '/api/v1/orders', cookie, payload: body });
  if (res.statusCode !== 201) throw new Error(`POST /orders ${res.statusCode}: ${res.body}`);
  return res.json() as { id: string; items: Array<{ id: string; product_id: string; total_cents: number }>; total_cents: number };
}
const post = (t: TestApp, url: string, payload: unknown, cookie?: string) => t.req({ method: 'POST', url: `/api/v1${url}`, payload: payload as object, ...(cookie ? { cookie } : {}) });
const get = (t: TestApp, url: string, cookie: string) => t.req({ method: 'GET', url: `/api/v1${url}`, cookie });

/** T1: 2 × friet (3,95) and a burger (14,50) = 22,40. */
async function tableOfFour(s: FloorSetup) {
  const o = await order(s, { table_id: s.floor.t1.id, items: [{ product_id: s.menu.friet.id, quantity: 2 }, { product_id: s.menu.burger.id, quantity: 1 }] });
  const bill = (await get(s.t, `/floorplan/tables/${s.floor.t1.id}/bill`, s.staff)).json();
  return { o, bill, friet: o.items[0]!, burger: o.items[1]! };
}

describe('payments at the table with a method (CONTRACT §19)', () => {
  it('pin, then cash with change; the bill closes, its orders are paid and it gets a receipt number', async () => {
    const s = await setup();
    const { bill } = await tableOfFour(s);
    expect(bill).toMatchObject({ total_cents: 2240, open_cents: 2240, vat: [{ rate: 9, gross_cents: 2240, vat_cents: 185, net_cents: 2055 }] });
    const pin = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { amount_cents: 1000, method: 'pin' }, s.staff);
    expect(pin.statusCode).toBe(201);
    expect(pin.json().payment).toMatchObject({ amount_cents: 1000, method: 'pin', received_cents: null, change_cents: 0, items: [] });
    const cash = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { amount_cents: 1240, tip_cents: 60, method: 'contant', received_cents: 1500 }, s.staff);
    expect(cash.statusCode).toBe(201);
    expect(cash.json().change_cents).toBe(200);
    expect(cash.json().payment).toMatchObject({ method: 'contant', received_cents: 1500, change_cents: 200, tip_cents: 60 });
    expect(cash.json().bill).toMatchObject({ status: 'closed', close_reason: 'paid', open_cents: 0, tip_cents: 60 });
    expect(cash.json().bill.orders[0].payment_status).toBe('paid');
    const receipt = (await get(s.t, `/floorplan/bills/${bill.id}/receipt`, s.staff)).json();
    expect(receipt.receipt_number).toMatch(/^\d{4}-000001$/);
    expect(receipt).toMatchObject({
      table_name: 'T1',
      total_cents: 2240,
      vat: [{ rate: 9, gross_cents: 2240, vat_cents: 185, net_cents: 2055 }],
      payments: [
        { method: 'pin', amount_cents: 1000, tip_cents: 0, change_cents: 0 },
        { method: 'contant', amount_cents: 1240, tip_cents: 60, change_cents: 200, received_cents: 1500 },
      ],
    });
    expect(receipt.lines).toEqual([
      { name: 'Friet', quantity: 2, unit_price_cents: 395, total_cents: 790, options: [], vat_rate: 9 },
      { name: 'Burger', quantity: 1, unit_price_cents: 1450, total_cents: 1450, options: [], vat_rate: 9 },
    ]);
    const html = await s.t.req({ method: 'GET', url: `/api/v1/floorplan/bills/${bill.id}/receipt?format=html`, cookie: s.staff });
    expect(html.headers['content-type']).toMatch(/text\/html/);
    expect(html.body).toContain('80mm');
    expect(html.body).toContain('Wisselgeld');
    expect(html.body).toContain('€ 22,40');
    const print = await post(s.t, `/floorplan/bills/${bill.id}/receipt/print`, {}, s.staff);
    expect(print.statusCode).toBe(409);
    expect(print.json().error).toMatch(/^Er is geen bonprinter ingesteld/);
  });

  it('method left out is overig; refusals in Dutch change nothing (wrong method, too little cash, cash fields on pin, overpay 409)', async () => {
    const s = await setup();
    const { bill } = await tableOfFour(s);
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [{ amount_cents: 500, method: 'bitcoin' }, 400, 'method', /./],
      [{ amount_cents: 500, method: 'contant', received_cents: 400 }, 400, 'received_cents', /minder dan te betalen \(€ 5,00\)/],
      [{ amount_cents: 500, method: 'pin', received_cents: 1000 }, 400, 'received_cents', /alleen bij contante betaling/],
      [{ method: 'pin' }, 400, 'amount_cents', /verplicht/],
      [{ amount_cents: 2241, method: 'pin' }, 409, '', /Het bedrag \(€ 22,41\) is hoger dan wat nog openstaat \(€ 22,40\)/],
    ];
    for (const [body, status, field, msg] of cases) {
      const res = await post(s.t, `/floorplan/bills/${bill.id}/payments`, body, s.staff);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().error).toMatch(status === 409 ? msg : /^Ongeldige invoer/);
      if (field) expect(res.json().details[0].field).toBe(field);
      if (field && status === 400 && field !== 'method') expect(res.json().details[0].error).toMatch(msg);
    }
    expect((await get(s.t, `/floorplan/bills/${bill.id}`, s.staff)).json()).toMatchObject({ paid_cents: 0, payments: [] });
    const plain = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { amount_cents: 500 }, s.staff);
    expect(plain.json().payment.method).toBe('overig');
    expect((await post(s.t, `/floorplan/bills/${bill.id}/payments`, { amount_cents: 500 })).statusCode).toBe(401);
    expect((await post(s.t, `/floorplan/bills/${UNKNOWN}/payments`, { amount_cents: 500 }, s.staff)).statusCode).toBe(404);
  });

  it('split by dish: items pay exactly their lines; a line paid is not paid twice (409); the rest in cash', async () => {
    const s = await setup();
    const { bill, friet, burger } = await tableOfFour(s);
    const two = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { method: 'pin', items: [{ item_id: friet.id, quantity: 2 }] }, s.staff);
    expect(two.statusCode).toBe(201);
    expect(two.json().payment).toMatchObject({ amount_cents: 790, items: [{ item_id: friet.id, quantity: 2, amount_cents: 790 }] });
    const again = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { method: 'pin', items: [{ item_id: friet.id, quantity: 1 }] }, s.staff);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe("'Friet' is al betaald.");
    const wrongSum = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { method: 'pin', amount_cents: 1000, items: [{ item_id: burger.id, quantity: 1 }] }, s.staff);
    expect(wrongSum.statusCode).toBe(400);
    expect(wrongSum.json().details[0]).toEqual({ field: 'amount_cents', error: "'amount_cents' moet gelijk zijn aan wat de gekozen gerechten kosten (€ 14,50), of laat het weg." });
    const notHere = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { method: 'pin', items: [{ item_id: UNKNOWN, quantity: 1 }] }, s.staff);
    expect(notHere.statusCode).toBe(400);
    expect(notHere.json().details[0].field).toBe('items.0.item_id');
    const rest = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { method: 'contant', items: [{ item_id: burger.id, quantity: 1 }], received_cents: 2000 }, s.staff);
    expect(rest.statusCode).toBe(201);
    expect(rest.json()).toMatchObject({ change_cents: 550, bill: { status: 'closed', open_cents: 0 } });
  });

  it('a bill moves to a free table, and merges into the open bill of an occupied one', async () => {
    const s = await setup();
    const { bill } = await tableOfFour(s);
    const moved = await post(s.t, `/floorplan/bills/${bill.id}/move`, { table_id: s.floor.t2.id }, s.staff);
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ id: bill.id, table_id: s.floor.t2.id, table_name: 'T2', status: 'open', total_cents: 2240 });
    expect(moved.json().orders[0].table_id).toBe(s.floor.t2.id);
    expect(await statuses(s.t, s.staff)).toMatchObject({ T1: 'vrij', T2: 'bezet' });
    await order(s, { table_id: s.floor.t3.id, items: [{ product_id: s.menu.cola.id, quantity: 1 }] });
    const merged = await post(s.t, `/floorplan/bills/${bill.id}/move`, { table_id: s.floor.t3.id }, s.staff);
    expect(merged.statusCode).toBe(200);
    expect(merged.json()).toMatchObject({ table_id: s.floor.t3.id, status: 'open', total_cents: 2540, merged_bills: [bill.id] });
    expect(merged.json().orders).toHaveLength(2);
    expect(await statuses(s.t, s.staff)).toMatchObject({ T2: 'vrij', T3: 'bezet' });
    const plan = (await get(s.t, '/floorplan', s.staff)).json();
    const t3 = plan.zones.flatMap((z: { tables: Array<{ name: string; bill: unknown }> }) => z.tables).find((t: { name: string }) => t.name === 'T3');
    expect(t3.bill).toEqual({ id: merged.json().id, total_cents: 2540, open_cents: 2540 });
    // The merged bill is paid on the bill it lives in.
    const pay = await post(s.t, `/floorplan/bills/${bill.id}/payments`, { amount_cents: 2540, method: 'pin' }, s.staff);
    expect(pay.json().bill).toMatchObject({ id: merged.json().id, status: 'closed' });
    expect((await post(s.t, `/floorplan/bills/${bill.id}/move`, { table_id: s.floor.t1.id }, s.staff)).statusCode).toBe(409);
    expect((await post(s.t, `/floorplan/bills/${merged.json().id}/move`, { table_id: UNKNOWN }, s.staff)).statusCode).toBe(409);
    const other = await s.t.seedTenant();
    const theirs = await s.t.services.floor.createTable(other.id, { zone_id: (await s.t.services.floor.createZone(other.id, { name: 'z' })).id, name: 'X', seats: 2, x: 0, y: 0 });
    const fresh = await tableOfFour(s);
    const res = await post(s.t, `/floorplan/bills/${fresh.bill.id}/move`, { table_id: theirs.id }, s.staff);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Tafel niet gevonden.', code: 'NOT_FOUND' });
  });
});

describe('payments on an order without a table', () => {
  it('partial, then the rest in cash with change; paid in full the order is paid and gets a receipt; overpay and a table order are 409', async () => {
    const s = await setup();
    const o = await order(s, { items: [{ product_id: s.menu.burger.id, quantity: 2 }] });
    const part = await post(s.t, `/orders/${o.id}/payments`, { amount_cents: 900, method: 'creditcard' }, s.staff);
    expect(part.statusCode).toBe(201);
    expect(part.json()).toMatchObject({ paid_cents: 900, open_cents: 2000, change_cents: 0, order: { payment_status: 'open' } });
    const over = await post(s.t, `/orders/${o.id}/payments`, { amount_cents: 2001, method: 'pin' }, s.staff);
    expect(over.statusCode).toBe(409);
    expect(over.json()).toEqual({ error: 'Het bedrag (€ 20,01) is hoger dan wat nog openstaat (€ 20,00).', code: 'CONFLICT' });
    const rest = await post(s.t, `/orders/${o.id}/payments`, { amount_cents: 2000, method: 'contant', received_cents: 5000 }, s.staff);
    expect(rest.json()).toMatchObject({ paid_cents: 2900, open_cents: 0, change_cents: 3000, order: { payment_status: 'paid' } });
    const receipt = (await get(s.t, `/orders/${o.id}/receipt`, s.staff)).json();
    expect(receipt.receipt_number).toMatch(/^\d{4}-000001$/);
    expect(receipt.payments.map((p: { method: string }) => p.method)).toEqual(['creditcard', 'contant']);
    expect((await post(s.t, `/orders/${o.id}/payments`, { amount_cents: 1 }, s.staff)).json().error).toBe('Deze bestelling is al betaald.');
    const onTable = await order(s, { table_id: s.floor.t1.id, items: [{ product_id: s.menu.cola.id, quantity: 1 }] });
    expect((await post(s.t, `/orders/${onTable.id}/payments`, { amount_cents: 300 }, s.staff)).statusCode).toBe(409);
    // The table order's receipt is its bill's.
    expect((await get(s.t, `/orders/${onTable.id}/receipt`, s.staff)).json()).toMatchObject({ table_name: 'T1', receipt_number: null });
    expect((await post(s.t, `/orders/${UNKNOWN}/payments`, { amount_cents: 1 }, s.staff)).statusCode).toBe(404);
  });

  it('20 payments at once: receipt numbers gapless, each once', async () => {
    const s = await setup();
    const orders = [];
    for (let i = 0; i < 20; i++) orders.push(await order(s, { items: [{ product_id: s.menu.cola.id, quantity: 1 }] }));
    const actor = { tenantId: s.r.id, userId: s.r.staffId, via: 'pos' as const };
    const results = await Promise.all(orders.map((o) => s.t.services.till.payOrder(actor, o.id, { amount_cents: 300, method: 'pin' })));
    expect(results.every((r) => r.order.payment_status === 'paid')).toBe(true);
    const numbers = await Promise.all(orders.map(async (o) => (await s.t.services.till.orderReceipt(s.r.id, o.id)).receipt_number!));
    const seqs = numbers.map((n) => Number(n.slice(5))).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});

describe('discounts (CONTRACT §19)', () => {
  it('staff up to 10 % of the order; above it 403 (nothing given), an admin may; comp on a line; totals and VAT after discounts', async () => {
    const s = await setup();
    const { o, friet, bill } = await tableOfFour(s);
    const ten = await post(s.t, `/orders/${o.id}/discounts`, { kind: 'percent', value: 10, reason: 'vaste gast' }, s.staff);
    expect(ten.statusCode).toBe(201);
    expect(ten.json().discount).toMatchObject({ kind: 'percent', value: 10, amount_cents: 224, item_id: null, reason: 'vaste gast', user_id: s.r.staffId });
    expect(ten.json().order).toMatchObject({ discount_cents: 224, total_cents: 2016 });
    const more = await post(s.t, `/orders/${o.id}/discounts`, { kind: 'amount', value: 100, reason: 'wachttijd' }, s.staff);
    expect(more.statusCode).toBe(403);
    expect(more.json()).toEqual({ error: 'Een medewerker mag hoogstens 10% korting geven (€ 2,24 op deze bestelling, al gegeven € 2,24); vraag een beheerder.', code: 'FORBIDDEN' });
    expect((await get(s.t, `/orders/${o.id}`, s.staff)).json()).toMatchObject({ discount_cents: 224, total_cents: 2016 });
    const comp = await post(s.t, `/orders/${o.id}/discounts`, { kind: 'comp', item_id: friet.id, reason: 'koud geserveerd' }, s.admin);
    expect(comp.statusCode).toBe(201);
    // Friet 7,90 had 0,79 of the 10 % (2,24 spread by amount: 79 + 145); comp takes the 7,11 left of it.
    expect(comp.json().discount.amount_cents).toBe(711);
    expect(comp.json().order).toMatchObject({ discount_cents: 935, total_cents: 1305, vat: [{ rate: 9, gross_cents: 1305, vat_cents: 108, net_cents: 1197 }] });
    const after = (await get(s.t, `/floorplan/bills/${bill.id}`, s.staff)).json();
    expect(after).toMatchObject({ total_cents: 1305, open_cents: 1305 });
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ kind: 'percent', reason: 'x' }, 400, 'value'],
      [{ kind: 'percent', value: 101, reason: 'x' }, 400, 'value'],
      [{ kind: 'comp', value: 5, reason: 'x' }, 400, 'value'],
      [{ kind: 'amount', value: 100 }, 400, 'reason'],
      [{ kind: 'gratis', reason: 'x' }, 400, 'kind'],
      [{ kind: 'amount', value: 100, item_id: UNKNOWN, reason: 'x' }, 400, 'item_id'],
    ];
    for (const [body, status, field] of cases) {
      const res = await post(s.t, `/orders/${o.id}/discounts`, body, s.admin);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().details[0].field).toBe(field);
    }
    expect((await post(s.t, `/orders/${o.id}/discounts`, { kind: 'comp', reason: 'x' })).statusCode).toBe(401);
    expect((await post(s.t, `/orders/${UNKNOWN}/discounts`, { kind: 'comp', reason: 'x' }, s.admin)).statusCode).toBe(404);
    // Paid: no more discounts.
    await post(s.t, `/floorplan/bills/${bill.id}/payments`, { amount_cents: 1305, method: 'pin' }, s.staff);
    expect((await post(s.t, `/orders/${o.id}/discounts`, { kind: 'amount', value: 1, reason: 'x' }, s.admin)).statusCode).toBe(409);
    const receipt = (await get(s.t, `/floorplan/bills/${bill.id}/receipt`, s.staff)).json();
    expect(receipt).toMatchObject({ total_cents: 1305, discount_cents: 935, discounts: [{ kind: 'percent', amount_cents: 224 }, { kind: 'comp', amount_cents: 711 }] });
  });

  it('points: a guest attached by phone (06 notation) pays with points at the point value; too few points 409, no points taken', async () => {
    const s = await setup();
    const o = await order(s, { items: [{ product_id: s.menu.burger.id, quantity: 1 }] });
    const noGuest = await post(s.t, `/orders/${o.id}/discounts`, { kind: 'points', value: 10, reason: 'punten' }, s.staff);
    expect(noGuest.statusCode).toBe(409);
    const attached = await post(s.t, `/orders/${o.id}/customer`, { phone: '06 12345678', name: 'Anna' }, s.staff);
    expect(attached.statusCode).toBe(200);
    expect(attached.json().customer).toEqual({ name: 'Anna', phone: '+31612345678' });
    const bad = await post(s.t, `/orders/${o.id}/customer`, { phone: '12' }, s.staff);
    expect(bad.statusCode).toBe(400);
    const c = await s.t.services.loyalty.getByPhone(s.r.id, '+31 6 1234 5678');
    await s.t.services.loyalty.adjust({ tenantId: s.r.id, userId: null }, { customer_id: c.id, points: 100, note: 'welkom' });
    const tooMany = await post(s.t, `/orders/${o.id}/discounts`, { kind: 'points', value: 200, reason: 'punten' }, s.staff);
    expect(tooMany.statusCode).toBe(409);
    expect(tooMany.json().error).toMatch(/^Onvoldoende punten/);
    expect((await s.t.services.loyalty.getByPhone(s.r.id, '0612345678')).balance).toBe(100);
    const pts = await post(s.t, `/orders/${o.id}/discounts`, { kind: 'points', value: 100, reason: 'punten' }, s.staff);
    expect(pts.statusCode).toBe(201);
    // 100 points × 5 cents: 5,00 off, and staff may (points are the guest's own, not the staff limit).
    expect(pts.json().order).toMatchObject({ discount_cents: 500, total_cents: 950 });
    expect((await s.t.services.loyalty.getByPhone(s.r.id, '0612345678')).balance).toBe(0);
    const paid = await post(s.t, `/orders/${o.id}/payments`, { amount_cents: 950, method: 'pin' }, s.staff);
    expect(paid.json().order.payment_status).toBe('paid');
  });
});

describe('the journal and a closed day (CONTRACT §19)', () => {
  it('till payments and discounts are journaled with their method; in a closed business day they are 409 and change nothing (points go back)', async () => {
    const s = await setup();
    s.t.clock.set('2026-11-20T18:00:00.000Z');
    s.staff = await s.r.staffCookie();
    s.admin = await s.r.adminCookie();
    const o = await order(s, { items: [{ product_id: s.menu.burger.id, quantity: 2 }] });
    await post(s.t, `/orders/${o.id}/discounts`, { kind: 'amount', value: 200, reason: 'verjaardag' }, s.admin);
    await post(s.t, `/orders/${o.id}/payments`, { amount_cents: 1000, method: 'contant', received_cents: 2000 }, s.staff);
    const { bill } = await tableOfFour(s);
    await post(s.t, `/floorplan/bills/${bill.id}/payments`, { amount_cents: 500, method: 'cadeaubon' }, s.staff);
    const entries = await s.t.handle.db.selectFrom('journal_entries').selectAll().where('tenant_id', '=', s.r.id).orderBy('chain_seq').execute();
    expect(entries.map((e) => [e.kind, e.amount_cents, e.method])).toEqual([
      ['discount', 200, null],
      ['payment', 1000, 'contant'],
      ['payment', 500, 'cadeaubon'],
    ]);
    await s.t.handle.db
      .insertInto('day_closes')
      .values({ id: '0190a0a0-0000-7000-8000-0000000000c1', tenant_id: s.r.id, number: 1, business_date: '2026-11-20', origin: s.t.changes.origin, closed_at: '2026-11-20T23:00:00.000Z', closed_by: null, forced: 0, cash_counted_cents: 0, report: '{}', covered: '{}', previous_hash: GENESIS, hash: GENESIS, created_at: '2026-11-20T23:00:00.000Z' })
      .execute();
    s.t.clock.set('2026-11-21T01:00:00.000Z'); // 02:00: still Friday's business day
    s.staff = await s.r.staffCookie();
    const pay = await post(s.t, `/orders/${o.id}/payments`, { amount_cents: 100, method: 'pin' }, s.staff);
    expect(pay.statusCode).toBe(409);
    expect(pay.json().error).toMatch(/is al afgesloten/);
    const c = await s.t.services.loyalty.upsert({ tenantId: s.r.id, userId: null }, { phone: '0687654321', name: 'Bas' });
    await s.t.services.loyalty.adjust({ tenantId: s.r.id, userId: null }, { customer_id: c.customer.id, points: 50, note: 'welkom' });
    await post(s.t, `/orders/${o.id}/customer`, { phone: '06 87654321' }, s.staff);
    const pts = await post(s.t, `/orders/${o.id}/discounts`, { kind: 'points', value: 20, reason: 'punten' }, s.staff);
    expect(pts.statusCode).toBe(409);
    expect((await s.t.services.loyalty.getByPhone(s.r.id, '0687654321')).balance).toBe(50);
    const again = await s.t.services.orders.get(s.r.id, o.id);
    expect(again).toMatchObject({ discount_cents: 200, total_cents: 2700 });
    expect((await s.t.services.till.orderPayments(s.r.id, o.id)).map((p) => p.amount_cents)).toEqual([1000]);
    expect((await s.t.services.journal.verify(s.r.id)).verified).toBe(true);
  });
});
