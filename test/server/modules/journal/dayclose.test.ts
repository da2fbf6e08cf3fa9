import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { setupFloor } from '../floor/helpers.js';

/** The day close (CONTRACT §19, docs/till.md "Day close"). Friday 2026-11-20, 19:00 in Amsterdam. */
async function setup() {
  const t = await createTestApp();
  t.clock.set('2026-11-20T18:00:00.000Z');
  const s = await setupFloor(t);
  const call = (cookie: string | undefined, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.req({ method, url: `/api/v1${url}`, cookie, ...(payload ? { payload } : {}) });
  return { ...s, call };
}

describe('the day close', () => {
  it('figures equal the sum of the day’s payments; a close is final (409 for a payment, a second close 409)', async () => {
    const s = await setup();
    const { call, staff, admin, menu, floor } = s;
    const order = (await call(staff, 'POST', '/orders', { table_id: floor.t1.id, items: [{ product_id: menu.burger.id, quantity: 2 }] })).json();
    const bill = (await call(staff, 'GET', `/floorplan/tables/${floor.t1.id}/bill`)).json();
    expect((await call(staff, 'POST', `/floorplan/bills/${bill.id}/payments`, { amount_cents: 1000, tip_cents: 50 })).statusCode).toBe(201);
    expect((await call(staff, 'POST', `/floorplan/bills/${bill.id}/payments`, { amount_cents: 1900 })).statusCode).toBe(201);
    const counter = (await call(staff, 'POST', '/orders', { items: [{ product_id: menu.cola.id, quantity: 1 }] })).json();
    expect((await call(admin, 'PATCH', `/orders/${counter.id}`, { payment_status: 'paid' })).statusCode).toBe(200);

    const preview = await call(admin, 'GET', '/day-closes/preview');
    expect(preview.statusCode).toBe(200);
    expect(preview.json()).toMatchObject({ business_date: '2026-11-20', closed: false, orders: { count: 2, gross_cents: 3200 }, by_method: [{ method: 'overig', count: 3, amount_cents: 3200, tip_cents: 50 }], voids: { count: 0, cents: 0 } });
    expect(preview.json().vat).toEqual([{ rate: 9, gross_cents: 3200, vat_cents: 264, net_cents: 2936 }]);
    expect((await call(staff, 'GET', '/day-closes/preview')).statusCode).toBe(403);
    expect((await call(admin, 'POST', '/day-closes', { cash_counted_cents: -5 })).statusCode).toBe(400);

    const closed = await call(admin, 'POST', '/day-closes', { cash_counted_cents: 1500 });
    expect(closed.statusCode).toBe(201);
    const c = closed.json();
    expect(c).toMatchObject({ number: 1, business_date: '2026-11-20', orders: { count: 2, gross_cents: 3200 }, cash_expected_cents: 0, cash_counted_cents: 1500, cash_difference_cents: 1500, forced: false });
    expect(c.hash).toMatch(/^[0-9a-f]{64}$/);
    const again = await call(admin, 'POST', '/day-closes', { cash_counted_cents: 1500 });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ code: 'CONFLICT', error: 'De dag 20-11-2026 is al afgesloten.' });
    const late = (await call(staff, 'POST', '/orders', { items: [{ product_id: menu.cola.id, quantity: 1 }] })).json();
    const refused = await call(admin, 'PATCH', `/orders/${late.id}`, { payment_status: 'paid' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatch(/al afgesloten/);
    expect((await call(admin, 'GET', '/day-closes')).json()).toMatchObject({ total: 1, data: [{ id: c.id, number: 1 }] });
    expect((await call(admin, 'GET', `/day-closes/${c.id}`)).json()).toEqual(c);
    const csv = await call(admin, 'GET', `/day-closes/${c.id}?format=csv`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body).toContain('Kasverschil;15,00');
    const html = await call(admin, 'GET', `/day-closes/${c.id}?format=html`);
    expect(html.headers['content-type']).toMatch(/text\/html/);
    expect(html.body).toContain('Dagafsluiting nr. 1');
    expect((await s.t.services.journal.verify(s.r.id)).verified).toBe(true);
    expect(order.id).toBeDefined();
  });

  it('the printable close and its CSV are headed by the restaurant as its receipts are: name, address, BTW and KvK', async () => {
    const s = await setup();
    const { call, admin, staff, menu } = s;
    expect((await call(admin, 'PATCH', '/settings', { name: 'Bistro De Gouden Lepel', address: 'Lepelstraat 1, 1011 AB Amsterdam', vat_number: 'NL001234567B01', kvk_number: '12345678' })).statusCode).toBe(200);
    const counter = (await call(staff, 'POST', '/orders', { items: [{ product_id: menu.burger.id, quantity: 1 }] })).json();
    expect((await call(staff, 'POST', `/orders/${counter.id}/payments`, { amount_cents: 1450, method: 'contant', received_cents: 2000 })).statusCode).toBe(201);
    const c = (await call(admin, 'POST', '/day-closes', { cash_counted_cents: 1400 })).json();
    const html = (await call(admin, 'GET', `/day-closes/${c.id}?format=html`)).body;
    expect(html).toContain('<h1>Bistro De Gouden Lepel</h1>');
    expect(html).toContain('Lepelstraat 1, 1011 AB Amsterdam');
    expect(html).toContain('BTW NL001234567B01');
    expect(html).toContain('KvK 12345678');
    expect(html).not.toContain('Kassa');
    // Local time and Dutch dates and money for the accountant: closed at 19:00 in Amsterdam.
    expect(html).toContain('20-11-2026 19:00');
    expect(html).toContain('<th scope="row">Verschil</th><td>− € 0,50</td>');
    expect(html).toContain('<th scope="row">Contant (1×)</th><td>€ 14,50</td>');
    const csv = (await call(admin, 'GET', `/day-closes/${c.id}?format=csv`)).body;
    expect(csv).toContain('Restaurant;Bistro De Gouden Lepel\r\nAdres;Lepelstraat 1, 1011 AB Amsterdam\r\nBtw-nummer;NL001234567B01\r\nKvK-nummer;12345678\r\n');
    expect(csv).toContain('Kasverschil;-0,50');
  });

  it('money of a closed day that arrives later (a guest paying at the table after the close) is kept and reported once, in the next close as late; that close adds up to its own day’s payments by method', async () => {
    const s = await setup();
    const { call, menu, floor, t, r } = s;
    // Friday: T1 orders two burgers (29,00) and has not paid when the manager closes the day.
    expect((await call(s.staff, 'POST', '/orders', { table_id: floor.t1.id, items: [{ product_id: menu.burger.id, quantity: 2 }] })).statusCode).toBe(201);
    const bill = (await call(s.staff, 'GET', `/floorplan/tables/${floor.t1.id}/bill`)).json();
    const friday = (await call(s.admin, 'POST', '/day-closes', { cash_counted_cents: 0 })).json();
    expect(friday).toMatchObject({ number: 1, business_date: '2026-11-20', orders: { count: 0, gross_cents: 0 }, late: { count: 0, payments_cents: 0 } });

    // 02:00 on Saturday is still Friday's business day: staff cannot book it (409), but the guest's own
    // payment at the table (money already taken by the provider) is kept, journaled on Friday.
    t.clock.set('2026-11-21T01:00:00.000Z');
    const refused = await call(await r.staffCookie(), 'POST', `/floorplan/bills/${bill.id}/payments`, { amount_cents: 2900, method: 'pin' });
    expect(refused.statusCode).toBe(409);
    const online = await t.changes.write(r.id, (w) => t.services.floor.recordBillPayment(w, { tenantId: r.id, billId: bill.id, amount_cents: 2900, tip_cents: 100, payment_id: 'tr_laat' }));
    expect(online).toMatchObject({ closed: true, paid_cents: 2900 });

    // Saturday evening: three payments of Saturday itself, then the close.
    t.clock.set('2026-11-21T18:00:00.000Z');
    const staff = await r.staffCookie();
    const admin = await r.adminCookie();
    const counter = async (productId: string, quantity: number, payment: object) => {
      const o = (await call(staff, 'POST', '/orders', { items: [{ product_id: productId, quantity }] })).json();
      expect((await call(staff, 'POST', `/orders/${o.id}/payments`, payment)).statusCode).toBe(201);
    };
    await counter(menu.cola.id, 2, { amount_cents: 600, method: 'contant', received_cents: 1000 });
    await counter(menu.burger.id, 1, { amount_cents: 1450, tip_cents: 50, method: 'pin' });
    await counter(menu.friet.id, 1, { amount_cents: 395, method: 'creditcard' });
    const saturday = await call(admin, 'POST', '/day-closes', { cash_counted_cents: 600 });
    expect(saturday.statusCode).toBe(201);
    const z = saturday.json();
    expect(z).toMatchObject({
      number: 2,
      business_date: '2026-11-21',
      orders: { count: 3, gross_cents: 2445 },
      by_method: [
        { method: 'contant', count: 1, amount_cents: 600, tip_cents: 0 },
        { method: 'creditcard', count: 1, amount_cents: 395, tip_cents: 0 },
        { method: 'pin', count: 1, amount_cents: 1450, tip_cents: 50 },
      ],
      cash_expected_cents: 600,
      cash_difference_cents: 0,
      late: { count: 1, payments_cents: 2900, refunds_cents: 0, days: ['2026-11-20'] },
    });
    // The close's figures are the sum of Saturday's journaled payments, method by method.
    const journal = (await call(admin, 'GET', '/journal?from=2026-11-21&to=2026-11-21')).json().data.filter((e: { kind: string }) => e.kind === 'payment');
    const byMethod = new Map<string, number>();
    for (const e of journal) byMethod.set(e.method, (byMethod.get(e.method) ?? 0) + e.amount_cents);
    expect(Object.fromEntries(byMethod)).toEqual(Object.fromEntries(z.by_method.map((m: { method: string; amount_cents: number }) => [m.method, m.amount_cents])));
    expect(z.vat.reduce((sum: number, v: { gross_cents: number }) => sum + v.gross_cents, 0)).toBe(z.orders.gross_cents);
    // Friday's close stays as it was; the late money is on the printed close and the CSV.
    expect((await call(admin, 'GET', `/day-closes/${friday.id}`)).json()).toEqual(friday);
    expect((await call(admin, 'GET', `/day-closes/${z.id}?format=html`)).body).toContain('1 regel van 20-11-2026');
    expect((await call(admin, 'GET', `/day-closes/${z.id}?format=csv`)).body).toContain('Nagekomen (1 regel);29,00');

    // Counted once: Sunday's close has nothing late.
    t.clock.set('2026-11-22T18:00:00.000Z');
    const sunday = (await call(await r.adminCookie(), 'POST', '/day-closes', { cash_counted_cents: 0 })).json();
    expect(sunday).toMatchObject({ number: 3, business_date: '2026-11-22', late: { count: 0, payments_cents: 0 } });
    expect((await t.services.journal.verify(r.id)).verified).toBe(true);
  });

  it('an appliance whose sync is behind refuses to close (Dutch 409) unless force', async () => {
    const s = await setup();
    await s.t.services.sync.board.report(s.r.id, { enabled: true, started: true, online: false, lastSuccessAt: '2026-11-20T16:00:00.000Z' });
    const res = await s.call(s.admin, 'POST', '/day-closes', { cash_counted_cents: 0 });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringMatching(/^De dag kan nog niet worden afgesloten: de laatste geslaagde synchronisatie met de cloud is van 120 minuten geleden/) });
    const forced = await s.call(s.admin, 'POST', '/day-closes', { cash_counted_cents: 0, force: true });
    expect(forced.statusCode).toBe(201);
    expect(forced.json()).toMatchObject({ number: 1, forced: true });
  });
});
