import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { seedMenu } from '../../../helpers/factories.js';

/**
 * GET /analytics/revenue (CONTRACT §19 "Revenue", docs/till.md "Revenue") on a Thursday and a Friday
 * in Amsterdam (business days start at 05:00), every figure worked out by hand below. Products:
 * Burger 14,50 and Friet 3,95 and Cola 3,00 at 9 %, Wijn 6,00 at 21 %.
 *
 * - Thu 19-11 18:30: order A = Burger + Wijn = 20,50, pin, tip 1,50.
 *     9 %: 14,50 → btw 1,20 (1450×9/109 = 119,7); 21 %: 6,00 → btw 1,04 (600×21/121 = 104,1). Net 18,26.
 * - Fri 20-11 12:10: order B = 2 Friet = 7,90, contant (received 10,00).
 * - Fri 20-11 18:45: order C = Burger + 2 Wijn = 26,50, 10 % off by the manager (2,65) = 23,85, pin.
 *     The payment is split over the rates by the lines: 21 %: 2385×1200/2650 = 1080; 9 %: the rest 1305.
 * - Sat 21-11 00:30 (still Friday's business day): order D = Cola 3,00, contant.
 *   Friday: 9 %: 790 + 1305 + 300 = 2395 → btw 198 (197,75); 21 %: 1080 → btw 187 (187,4). Gross 34,75,
 *   VAT 3,85, net 30,90, 3 orders, average 11,58 (1158,3).
 *   Both days: 9 %: 3845 → 317 (317,48); 21 %: 1680 → 292 (291,57). Gross 55,25,
 *   VAT 6,09, net 49,16, 4 orders, average 13,81 (1381,25).
 * - Labour: Sanne (14,50/h) Fri 16:00–23:00 with a 30-minute break = 6,5 h = 94,25; the manager (no
 *   wage) Thu 18:00–20:00 = 2 h unpriced. Friday labour % = 9425 / 3090 = 305,0; both days 9425 / 4916 = 191,7.
 */
async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const menu = await seedMenu(t, r.id);
  const wine = await t.services.menu.createProduct(r.id, { name: 'Wijn', price_cents: 600, vat_rate: 21 });
  const call = (cookie: string | undefined, method: 'GET' | 'POST', url: string, payload?: object) => t.req({ method, url: `/api/v1${url}`, cookie, ...(payload ? { payload } : {}) });
  const pay = async (at: string, items: Array<{ product_id: string; quantity: number }>, payment: object, discount?: object) => {
    // Sessions follow the clock (15 minutes idle): log in at the time of each sale.
    t.clock.set(at);
    const staff = await r.staffCookie();
    const admin = await r.adminCookie();
    const order = (await call(staff, 'POST', '/orders', { items })).json();
    if (discount) expect((await call(admin, 'POST', `/orders/${order.id}/discounts`, discount)).statusCode).toBe(201);
    const res = await call(staff, 'POST', `/orders/${order.id}/payments`, payment);
    expect(res.statusCode, res.body).toBe(201);
    return order.id as string;
  };
  await pay('2026-11-19T17:30:00.000Z', [{ product_id: menu.burger.id, quantity: 1 }, { product_id: wine.id, quantity: 1 }], { amount_cents: 2050, tip_cents: 150, method: 'pin' });
  await pay('2026-11-20T11:10:00.000Z', [{ product_id: menu.friet.id, quantity: 2 }], { amount_cents: 790, method: 'contant', received_cents: 1000 });
  await pay('2026-11-20T17:45:00.000Z', [{ product_id: menu.burger.id, quantity: 1 }, { product_id: wine.id, quantity: 2 }], { amount_cents: 2385, method: 'pin' }, { kind: 'percent', value: 10, reason: 'Vaste gast' });
  await pay('2026-11-20T23:30:00.000Z', [{ product_id: menu.cola.id, quantity: 1 }], { amount_cents: 300, method: 'contant' });
  t.clock.set('2026-11-20T23:40:00.000Z');
  const actor = { tenantId: r.id, userId: r.adminId };
  await t.services.shifts.create(actor, { user_id: r.staffId, start: '2026-11-20T15:00:00.000Z', end: '2026-11-20T22:00:00.000Z', break_minutes: 30 });
  await t.services.shifts.create(actor, { user_id: r.adminId, start: '2026-11-19T17:00:00.000Z', end: '2026-11-19T19:00:00.000Z' });
  return { t, r, call, staff: await r.staffCookie(), admin: await r.adminCookie() };
}

describe('GET /analytics/revenue', () => {
  it('per day: gross, VAT per rate, net, orders, average ticket, tips, discounts and labour; a day equals its day close', async () => {
    const { call, admin } = await setup();
    const res = await call(admin, 'GET', '/analytics/revenue?from=2026-11-19&to=2026-11-20');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ from: '2026-11-19', to: '2026-11-20', days: 2, group: 'day' });
    expect(body.data).toEqual([
      { key: '2026-11-19', orders: 1, gross_cents: 2050, vat_cents: 224, net_cents: 1826, avg_ticket_cents: 2050, tips_cents: 150, discounts_cents: 0, days: 1, labour_cents: 0, labour_percent: 0 },
      { key: '2026-11-20', orders: 3, gross_cents: 3475, vat_cents: 385, net_cents: 3090, avg_ticket_cents: 1158, tips_cents: 0, discounts_cents: 265, days: 1, labour_cents: 9425, labour_percent: 305 },
    ]);
    expect(body.totals).toEqual({ orders: 4, gross_cents: 5525, vat_cents: 609, net_cents: 4916, avg_ticket_cents: 1381, tips_cents: 150, discounts_cents: 265, voids_cents: 0, refunds_cents: 0 });
    expect(body.vat).toEqual([
      { rate: 9, gross_cents: 3845, vat_cents: 317, net_cents: 3528 },
      { rate: 21, gross_cents: 1680, vat_cents: 292, net_cents: 1388 },
    ]);
    expect(body.by_method).toEqual([
      { method: 'contant', count: 2, amount_cents: 1090, tip_cents: 0 },
      { method: 'pin', count: 2, amount_cents: 4435, tip_cents: 150 },
    ]);
    expect(body).toMatchObject({ labour_cents: 9425, labour_percent: 191.7, labour_hours: 8.5, labour_unpriced_hours: 2, open_shifts: 0 });

    // The Friday row is the Friday's X report: the same money, the same VAT.
    const preview = (await call(admin, 'GET', '/day-closes/preview?date=2026-11-20')).json();
    expect(preview.orders).toEqual({ count: 3, gross_cents: 3475 });
    expect(preview.vat).toEqual([
      { rate: 9, gross_cents: 2395, vat_cents: 198, net_cents: 2197 },
      { rate: 21, gross_cents: 1080, vat_cents: 187, net_cents: 893 },
    ]);
    expect(preview.discounts_cents).toBe(265);
  });

  it('per hour of the wall clock and per weekday; the default period is the last 7 business days', async () => {
    const { call, admin } = await setup();
    const hours = (await call(admin, 'GET', '/analytics/revenue?group=hour')).json();
    expect(hours).toMatchObject({ from: '2026-11-14', to: '2026-11-20', days: 7, group: 'hour' });
    expect(hours.data.map((d: { key: string }) => d.key)).toEqual(Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')));
    const byKey = Object.fromEntries(hours.data.filter((d: { orders: number }) => d.orders > 0).map((d: { key: string }) => [d.key, d]));
    expect(Object.keys(byKey).sort()).toEqual(['00', '12', '18']);
    // 18:00-18:59 on both days: 20,50 + 23,85; 9 %: 1450 + 1305 = 2755 → 227; 21 %: 600 + 1080 → 292.
    expect(byKey['18']).toEqual({ key: '18', orders: 2, gross_cents: 4435, vat_cents: 519, net_cents: 3916, avg_ticket_cents: 2218, tips_cents: 150, discounts_cents: 265, days: 7, labour_cents: null, labour_percent: null });
    expect(byKey['12']).toMatchObject({ orders: 1, gross_cents: 790, vat_cents: 65, net_cents: 725 });
    // 00:30 on Saturday is Friday's business day but the 00 hour.
    expect(byKey['00']).toMatchObject({ orders: 1, gross_cents: 300, vat_cents: 25, net_cents: 275 });

    const week = (await call(admin, 'GET', '/analytics/revenue?group=weekday&from=2026-11-09&to=2026-11-20')).json();
    expect(week.data.map((d: { key: string }) => d.key)).toEqual(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
    const thu = week.data.find((d: { key: string }) => d.key === 'thu');
    const fri = week.data.find((d: { key: string }) => d.key === 'fri');
    expect(thu).toMatchObject({ orders: 1, gross_cents: 2050, net_cents: 1826, days: 2, labour_cents: 0 });
    expect(fri).toMatchObject({ orders: 3, gross_cents: 3475, net_cents: 3090, days: 2, labour_cents: 9425, labour_percent: 305 });
    expect(week.data.find((d: { key: string }) => d.key === 'sat')).toMatchObject({ orders: 0, gross_cents: 0, avg_ticket_cents: 0, days: 1, labour_cents: 0, labour_percent: null });
    expect(week.totals.gross_cents).toBe(5525);
  });

  it('refuses a period the wrong way round or longer than 366 days (400 in Dutch), a wrong group, staff (403) and no session (401)', async () => {
    const { call, admin, staff } = await setup();
    const reversed = await call(admin, 'GET', '/analytics/revenue?from=2026-11-20&to=2026-11-19');
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json()).toEqual({ code: 'VALIDATION', error: "Ongeldige invoer: 'from' mag niet na 'to' liggen.", details: [{ field: 'from', error: "'from' mag niet na 'to' liggen." }] });
    const long = await call(admin, 'GET', '/analytics/revenue?from=2025-11-19&to=2026-11-20');
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: 'to' mag hoogstens 365 dagen na 'from' liggen/), details: [{ field: 'to' }] });
    expect((await call(admin, 'GET', '/analytics/revenue?from=2025-11-20&to=2026-11-20')).statusCode).toBe(200);
    const group = await call(admin, 'GET', '/analytics/revenue?group=month');
    expect(group.statusCode).toBe(400);
    expect(group.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'group' }] });
    expect((await call(admin, 'GET', '/analytics/revenue?from=gisteren')).json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'from' }] });
    expect((await call(staff, 'GET', '/analytics/revenue')).statusCode).toBe(403);
    expect((await call(undefined, 'GET', '/analytics/revenue')).statusCode).toBe(401);
  });

  it('another restaurant’s sales and shifts are not counted', async () => {
    const { t, call } = await setup();
    const other = await t.seedTenant();
    const res = (await call(await other.adminCookie(), 'GET', '/analytics/revenue?from=2026-11-19&to=2026-11-20')).json();
    expect(res.totals).toMatchObject({ orders: 0, gross_cents: 0, net_cents: 0 });
    expect(res).toMatchObject({ labour_cents: 0, labour_percent: null, labour_hours: 0, vat: [], by_method: [] });
  });
});
