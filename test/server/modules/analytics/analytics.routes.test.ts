import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { orderAt } from './history.js';

/**
 * GET /analytics/menu-engineering and /analytics/top-products (CONTRACT §14) on crafted sales whose
 * answers are worked out by hand. Today is 2026-11-20 (Amsterdam); `days=30` covers 10-22 … 11-20.
 */
async function setup() {
  const t = await createTestApp();
  t.clock.set('2026-11-20T10:00:00.000Z');
  const r = await t.seedTenant();
  const p = async (name: string, price_cents: number, cost_cents?: number) => (await t.services.menu.createProduct(r.id, { name, price_cents, cost_cents })).id;
  return { t, r, p, staff: await r.staffCookie() };
}

const get = (t: TestApp, cookie: string | undefined, url: string) => t.req({ method: 'GET', url: `/api/v1/analytics/${url}`, cookie });

describe('GET /analytics/menu-engineering', () => {
  it('classifies a sales mix with one product in each class, one of them popular only under the 70 % rule', async () => {
    const { t, r, p, staff } = await setup();
    const A = await p('Biefstuk', 1500, 500); // margin 1000
    const B = await p('Friet', 500, 300); // margin 200
    const C = await p('Kreeft', 2000, 800); // margin 1200
    const D = await p('Soep', 600, 300); // margin 300
    const E = await p('Risotto', 1200, 400); // margin 800
    await orderAt(t, r.id, '2026-11-10T12:00:00.000Z', [{ product_id: A, quantity: 30 }, { product_id: B, quantity: 30 }]);
    await orderAt(t, r.id, '2026-11-12T18:00:00.000Z', [{ product_id: C, quantity: 10 }, { product_id: D, quantity: 10 }, { product_id: E, quantity: 18 }]);
    // The first business day of the window begins at 00:00 in Amsterdam: 22:30 UTC the evening before counts …
    await orderAt(t, r.id, '2026-10-21T22:30:00.000Z', [{ product_id: D, quantity: 2 }]);
    // … 23:30 local on 10-21 does not, nor do cancelled or unfinished orders, nor another restaurant's.
    await orderAt(t, r.id, '2026-10-21T21:30:00.000Z', [{ product_id: D, quantity: 5 }]);
    await orderAt(t, r.id, '2026-11-15T12:00:00.000Z', [{ product_id: D, quantity: 50 }], 'cancelled');
    await orderAt(t, r.id, '2026-11-19T12:00:00.000Z', [{ product_id: C, quantity: 20 }], 'ready');
    const other = await t.seedTenant();
    const X = (await t.services.menu.createProduct(other.id, { name: 'Bami', price_cents: 900, cost_cents: 100 })).id;
    await orderAt(t, other.id, '2026-11-15T12:00:00.000Z', [{ product_id: X, quantity: 99 }]);
    // A later price change does not rewrite what was charged.
    await t.services.menu.updateProduct(r.id, A, { price_cents: 1700 });

    const res = await get(t, staff, 'menu-engineering?days=30');
    expect(res.statusCode).toBe(200);
    const m = res.json();
    // N = 5 products sold, 100 items. Popularity threshold: 70 % × 1/5 = 14 % (14 items).
    // Weighted average margin: (30×1000 + 30×200 + 10×1200 + 12×300 + 18×800) / 100 = 66000 / 100 = 660.
    expect(m).toMatchObject({
      days: 30,
      from: '2026-10-22',
      to: '2026-11-20',
      method: 'kasavana_smith',
      product_count: 5,
      total_quantity: 100,
      thresholds: { popularity_percent: 14, popularity_quantity: 14, margin_cents: 660, adjusted_margin_cents: 660 },
      counts: { star: 2, plowhorse: 1, puzzle: 1, dog: 1 },
      waste_cost_cents: 0,
    });
    const byName = Object.fromEntries(m.data.map((d: { name: string }) => [d.name, d]));
    expect(byName.Biefstuk).toEqual({
      product_id: A,
      name: 'Biefstuk',
      quantity: 30,
      popularity_percent: 30,
      revenue_cents: 45000,
      price_cents: 1500,
      cost_cents: 500,
      margin_cents: 1000,
      margin_total_cents: 30000,
      popularity: 'high',
      margin: 'high',
      class: 'star',
      waste_cost_cents: 0,
      adjusted_margin_cents: 1000,
      adjusted_margin_total_cents: 30000,
      adjusted_margin: 'high',
      adjusted_class: 'star',
    });
    expect(byName.Friet).toMatchObject({ quantity: 30, margin_cents: 200, popularity: 'high', margin: 'low', class: 'plowhorse' });
    expect(byName.Kreeft).toMatchObject({ quantity: 10, margin_cents: 1200, popularity: 'low', margin: 'high', class: 'puzzle' });
    expect(byName.Soep).toMatchObject({ quantity: 12, popularity_percent: 12, margin_cents: 300, popularity: 'low', margin: 'low', class: 'dog' });
    // 18 % is below 1/N = 20 %, but at least 70 % of it: popular, and with 800 ≥ 660 a star.
    expect(byName.Risotto).toMatchObject({ quantity: 18, popularity_percent: 18, margin_cents: 800, popularity: 'high', margin: 'high', class: 'star' });
    // Sorted for the chart's legend: most sold first.
    expect(m.data.map((d: { name: string }) => d.name)).toEqual(['Biefstuk', 'Friet', 'Risotto', 'Soep', 'Kreeft']);
  });

  it('a product without a cost counts at cost 0; no sales is an empty analysis', async () => {
    const { t, r, p, staff } = await setup();
    expect((await get(t, staff, 'menu-engineering')).json()).toMatchObject({ days: 30, product_count: 0, total_quantity: 0, data: [], thresholds: { popularity_percent: 0, margin_cents: 0 } });
    const a = await p('Taart', 500);
    await orderAt(t, r.id, '2026-11-20T08:00:00.000Z', [{ product_id: a, quantity: 2 }]);
    const m = (await get(t, staff, 'menu-engineering?days=1')).json();
    expect(m.data[0]).toMatchObject({ name: 'Taart', cost_cents: null, margin_cents: 500, class: 'star' });
  });

  it.each(['days=0', 'days=366', 'days=x', 'limit=5'])('?%s is 400 VALIDATION', async (q) => {
    const { t, staff } = await setup();
    const res = await get(t, staff, `menu-engineering?${q}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /) });
  });

  it('needs a session', async () => {
    const { t, r } = await setup();
    expect((await get(t, undefined, 'menu-engineering')).statusCode).toBe(401);
    expect((await get(t, await r.adminCookie(), 'menu-engineering')).statusCode).toBe(200);
  });
});

describe('GET /analytics/menu-engineering: the waste-adjusted class', () => {
  it('waste booked against a star (its own and its ingredients’) turns it into a plowhorse; ingredient waste is shared by what each dish consumed', async () => {
    const { t, r, p, staff } = await setup();
    const A = await p('Biefstuk', 1500, 500);
    const B = await p('Friet', 500, 300);
    const C = await p('Kreeft', 2000, 800);
    const D = await p('Soep', 600, 300);
    const E = await p('Risotto', 1200, 400);
    const ingredient = async (name: string, cost_cents: number, unit: 'kg' | 'liter') => (await t.services.menu.createProduct(r.id, { name, price_cents: 0, cost_cents, unit, on_menu: false })).id;
    const haas = await ingredient('Runderhaas', 2000, 'kg');
    const room = await ingredient('Room', 1000, 'liter');
    const zout = await ingredient('Zout', 100, 'kg');
    await t.services.stock.putRecipe(r.id, A, { ingredients: [{ product_id: haas, quantity: 0.2 }] });
    await t.services.stock.putRecipe(r.id, C, { ingredients: [{ product_id: room, quantity: 0.1 }] });
    await t.services.stock.putRecipe(r.id, E, { ingredients: [{ product_id: room, quantity: 0.05 }] });
    await orderAt(t, r.id, '2026-11-10T12:00:00.000Z', [{ product_id: A, quantity: 30 }, { product_id: B, quantity: 30 }]);
    await orderAt(t, r.id, '2026-11-12T18:00:00.000Z', [{ product_id: C, quantity: 10 }, { product_id: D, quantity: 12 }, { product_id: E, quantity: 18 }]);
    const waste = async (at: string, product_id: string, quantity: number) => {
      t.clock.set(at);
      await t.services.waste.record({ tenantId: r.id, userId: r.staffId }, { product_id, quantity, reason: 'bederf' });
    };
    await waste('2026-11-11T20:00:00.000Z', A, 12); // 12 × 500 = 6000, Biefstuk's own
    await waste('2026-11-14T20:00:00.000Z', haas, 5); // 5 × 2000 = 10000: only Biefstuk uses Runderhaas
    await waste('2026-11-15T20:00:00.000Z', room, 1.9); // 1900: Kreeft used 10 × 0.1 = 1.0 l, Risotto 18 × 0.05 = 0.9 l → 1000 / 900
    await waste('2026-11-16T20:00:00.000Z', zout, 2); // 200: no dish sold uses it, not attributed
    await waste('2026-10-01T20:00:00.000Z', A, 10); // outside the 30 days
    t.clock.set('2026-11-20T10:00:00.000Z');

    const m = (await get(t, staff, 'menu-engineering')).json();
    // Classic: as before (threshold 660): Biefstuk and Risotto stars.
    // After waste: Biefstuk (30000 − 16000) / 30 = 466.67; threshold (66000 − 17900) / 100 = 481 → plowhorse.
    expect(m.thresholds).toEqual({ popularity_percent: 14, popularity_quantity: 14, margin_cents: 660, adjusted_margin_cents: 481 });
    expect(m.waste_cost_cents).toBe(17900);
    expect(m.counts).toEqual({ star: 2, plowhorse: 1, puzzle: 1, dog: 1 });
    expect(m.adjusted_counts).toEqual({ star: 1, plowhorse: 2, puzzle: 1, dog: 1 });
    const byName = Object.fromEntries(m.data.map((d: { name: string }) => [d.name, d]));
    expect(byName.Biefstuk).toMatchObject({
      margin_cents: 1000,
      class: 'star',
      waste_cost_cents: 16000,
      adjusted_margin_total_cents: 14000,
      adjusted_margin_cents: 467,
      adjusted_margin: 'low',
      adjusted_class: 'plowhorse',
    });
    expect(byName.Kreeft).toMatchObject({ waste_cost_cents: 1000, adjusted_margin_cents: 1100, class: 'puzzle', adjusted_class: 'puzzle' });
    expect(byName.Risotto).toMatchObject({ waste_cost_cents: 900, adjusted_margin_cents: 750, class: 'star', adjusted_class: 'star' });
    expect(byName.Friet).toMatchObject({ waste_cost_cents: 0, adjusted_class: 'plowhorse' });
    expect(byName.Soep).toMatchObject({ waste_cost_cents: 0, adjusted_class: 'dog' });
  });
});

describe('GET /analytics/top-products', () => {
  it('orders by quantity; ties share a rank and go by revenue, then name; with revenue and share', async () => {
    const { t, r, p, staff } = await setup();
    const cola = await p('Cola', 300);
    const bier = await p('Bier', 400);
    const wijn = await p('Wijn', 400);
    const thee = await p('Thee', 250);
    await orderAt(t, r.id, '2026-11-18T12:00:00.000Z', [{ product_id: wijn, quantity: 3 }, { product_id: cola, quantity: 5 }]);
    await orderAt(t, r.id, '2026-11-19T12:00:00.000Z', [{ product_id: wijn, quantity: 2 }, { product_id: bier, quantity: 5 }, { product_id: thee, quantity: 3 }]);
    await orderAt(t, r.id, '2026-11-19T13:00:00.000Z', [{ product_id: thee, quantity: 9 }], 'cancelled');
    await orderAt(t, r.id, '2026-11-01T12:00:00.000Z', [{ product_id: thee, quantity: 9 }]); // outside days=7

    const res = await get(t, staff, 'top-products?days=7');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      days: 7,
      from: '2026-11-14',
      to: '2026-11-20',
      total_quantity: 18,
      total_revenue_cents: 6250,
      data: [
        { rank: 1, product_id: bier, name: 'Bier', quantity: 5, revenue_cents: 2000, share_percent: 27.78 },
        { rank: 1, product_id: wijn, name: 'Wijn', quantity: 5, revenue_cents: 2000, share_percent: 27.78 },
        { rank: 1, product_id: cola, name: 'Cola', quantity: 5, revenue_cents: 1500, share_percent: 27.78 },
        { rank: 4, product_id: thee, name: 'Thee', quantity: 3, revenue_cents: 750, share_percent: 16.67 },
      ],
    });
    const two = (await get(t, staff, 'top-products?days=7&limit=2')).json();
    expect(two.data.map((d: { name: string; rank: number }) => [d.name, d.rank])).toEqual([['Bier', 1], ['Wijn', 1]]);
    expect(two.total_quantity).toBe(18);
    // The 30-day default includes 11-01: Thee leads with 12.
    expect((await get(t, staff, 'top-products')).json().data[0]).toMatchObject({ name: 'Thee', quantity: 12, rank: 1 });
    // Another restaurant sees none of it.
    const other = await t.seedTenant();
    expect((await get(t, await other.staffCookie(), 'top-products')).json()).toMatchObject({ total_quantity: 0, data: [] });
  });

  it.each(['days=0', 'days=366', 'limit=0', 'limit=201', 'days=7&x=1'])('?%s is 400 VALIDATION', async (q) => {
    const { t, staff } = await setup();
    const res = await get(t, staff, `top-products?${q}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION');
    expect(res.json().details[0].error).toMatch(/'(days|limit|x)'/);
  });

  it('needs a session', async () => {
    const { t } = await setup();
    expect((await get(t, undefined, 'top-products')).json()).toEqual({ error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' });
  });
});
