import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { suggest } from '../../../../server/modules/stock/stock.rules.js';
import { expectError, postStock, stockSetup } from './stock-helpers.js';

describe('GET /purchase-list: stock items below their minimum', () => {
  it('lists exactly the products whose total is below min_level, with the shortfall to order', async () => {
    const { t, r, staff, admin, beef, buns, beer, koelcel, bar } = await stockSetup();
    const cheese = await t.services.menu.createProduct(r.id, { name: 'Kaas', price_cents: 0, unit: 'kg', min_level: 2, on_menu: false });
    const old = await t.services.menu.createProduct(r.id, { name: 'Oude saus', price_cents: 0, unit: 'liter', min_level: 3, on_menu: false });
    await t.services.menu.archiveProduct(r.id, old.id);
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 3.25 }); // min 5: short 1.75 kg
    await postStock(t, staff, { productId: buns.id, locationId: koelcel.id, type: 'INTAKE', quantity: 10 });
    await postStock(t, staff, { productId: buns.id, locationId: bar.id, type: 'INTAKE', quantity: 13.5 }); // 23.5 of 24: order 1 whole bun
    await postStock(t, staff, { productId: cheese.id, locationId: koelcel.id, type: 'INTAKE', quantity: 2 }); // exactly at the minimum: not below
    await postStock(t, staff, { productId: beer.id, locationId: bar.id, type: 'INTAKE', quantity: 1 }); // no minimum: never on the list
    const res = await t.req({ method: 'GET', url: '/api/v1/purchase-list', cookie: staff });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: [
        { product_id: buns.id, name: 'Hamburgerbroodje', unit: 'stuk', total: 23.5, min_level: 24, quantity_to_order: 1 },
        { product_id: beef.id, name: 'Rundergehakt', unit: 'kg', total: 3.25, min_level: 5, quantity_to_order: 1.75 },
      ],
    });
    // Membership follows the level both ways.
    await postStock(t, staff, { productId: cheese.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 0.001 });
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'ADJUSTMENT', quantity: 5 });
    const names = (await t.req({ method: 'GET', url: '/api/v1/purchase-list', cookie: admin })).json().data.map((i: any) => i.name);
    expect(names).toEqual(['Hamburgerbroodje', 'Kaas']);
  });
});

describe('GET /purchase-list/suggest: what to order from the consumption', () => {
  it('matches a hand-computed example and shows its inputs', async () => {
    const { t, r, admin, staff, beef, buns, beer, burger, koelcel, bar } = await stockSetup();
    await t.services.stock.putRecipe(r.id, burger.id, { ingredients: [{ product_id: buns.id, quantity: 1 }] });
    t.clock.set('2026-11-01T10:00:00Z');
    await postStock(t, staff, { productId: buns.id, locationId: koelcel.id, type: 'INTAKE', quantity: 60 });
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 5 });
    await postStock(t, staff, { productId: buns.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 9 }); // 19 days before "now": outside a 7-day lookback
    t.clock.set('2026-11-15T12:00:00Z');
    // Within the last 7 days: 21 buns sold (7 orders of 3 burgers), 3 removed by staff, 4 wasted = 28 → 4 a day.
    for (let i = 0; i < 7; i++) {
      const { order } = await t.services.orders.create({ tenantId: r.id, userId: null, via: 'pos' }, { items: [{ product_id: burger.id, quantity: 3 }] });
      await t.services.orders.setStatus({ tenantId: r.id, userId: null, via: 'pos' }, order.id, 'completed');
    }
    await postStock(t, staff, { productId: buns.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 3 });
    await t.changes.write(r.id, (w) => t.services.stock.bookWaste(w, { tenantId: r.id, wasteId: '0190a0a0-0000-7000-8000-0000000000dd', productId: buns.id, quantity: 4, reason: 'bederf' }));
    // Moving stock around and counting is not consumption.
    await postStock(t, staff, { productId: buns.id, locationId: koelcel.id, type: 'TRANSFER_OUT', toLocationId: bar.id, quantity: 5 });
    await postStock(t, staff, { productId: buns.id, locationId: bar.id, type: 'ADJUSTMENT', quantity: 4 }); // counted 1 fewer than booked
    // Beef: 2.1 kg removed + 0.7 kg wasted = 2.8 kg in 7 days → 0.4 kg a day.
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 2.1 });
    await t.changes.write(r.id, (w) => t.services.stock.bookWaste(w, { tenantId: r.id, wasteId: '0190a0a0-0000-7000-8000-0000000000ee', productId: beef.id, quantity: 0.7 }));
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'ADJUSTMENT', quantity: 1 });
    // Beer: low, but nothing used: no suggestion.
    await postStock(t, staff, { productId: beer.id, locationId: bar.id, type: 'INTAKE', quantity: 1 });
    t.clock.set('2026-11-15T18:00:00Z');
    const res = await t.req({ method: 'GET', url: '/api/v1/purchase-list/suggest?lookback=7&lead_days=2', cookie: staff });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ lookback: 7, lead_days: 2, cover_days: 7, from: '2026-11-08T18:00:00.000Z', to: '2026-11-15T18:00:00.000Z' });
    // buns: total 60 − 9 − 21 − 3 − 4 − 1 (count) = 22; target 4 × (2 + 7) = 36; order 36 − 22 = 14; cover 22 / 4 = 5.5 days
    // beef: total 1 (counted); target 0.4 × 9 = 3.6; order 2.6 kg; cover 2.5 days
    expect(body.data).toEqual([
      {
        product_id: beef.id,
        name: 'Rundergehakt',
        unit: 'kg',
        total: 1,
        consumption: { sales: 0, removals: 2.1, waste: 0.7, total: 2.8 },
        daily_use: 0.4,
        days_of_cover: 2.5,
        target: 3.6,
        quantity_to_order: 2.6,
      },
      {
        product_id: buns.id,
        name: 'Hamburgerbroodje',
        unit: 'stuk',
        total: 22,
        consumption: { sales: 21, removals: 3, waste: 4, total: 28 },
        daily_use: 4,
        days_of_cover: 5.5,
        target: 36,
        quantity_to_order: 14,
      },
    ]);
    // A longer cover asks for more; enough stock asks for nothing (and the product is left out).
    const longer = (await t.req({ method: 'GET', url: '/api/v1/purchase-list/suggest?lookback=7&lead_days=2&cover_days=14', cookie: admin })).json();
    expect(longer.data.find((i: any) => i.product_id === buns.id).quantity_to_order).toBe(42);
    await postStock(t, staff, { productId: buns.id, locationId: koelcel.id, type: 'INTAKE', quantity: 100 });
    const plenty = (await t.req({ method: 'GET', url: '/api/v1/purchase-list/suggest?lookback=7&lead_days=2', cookie: admin })).json();
    expect(plenty.data.map((i: any) => i.product_id)).toEqual([beef.id]);
    // Defaults: lookback 28, lead_days 2, cover 7.
    expect((await t.req({ method: 'GET', url: '/api/v1/purchase-list/suggest', cookie: staff })).json()).toMatchObject({ lookback: 28, lead_days: 2, cover_days: 7 });
  });

  it('more consumption never suggests less; no consumption suggests nothing', async () => {
    // The formula, for every input.
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000_000 }),
        fc.integer({ min: 0, max: 5_000_000 }),
        fc.integer({ min: 1, max: 365 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: -1_000_000, max: 10_000_000 }),
        fc.constantFrom('stuk', 'kg', 'liter', 'gram', null),
        (a, extra, lookbackDays, leadDays, coverDays, totalMilli, unit) => {
          const base = { lookbackDays, leadDays, coverDays, totalMilli, unit };
          const less = suggest({ ...base, consumedMilli: a });
          const more = suggest({ ...base, consumedMilli: a + extra });
          if (a === 0) expect(less).toBeNull();
          if (a + extra > 0) expect(more!.to_order_milli).toBeGreaterThanOrEqual(less?.to_order_milli ?? 0);
          if (more) expect(more.to_order_milli).toBeGreaterThanOrEqual(0);
        },
      ),
      { seed: 8, numRuns: 500 },
    );
    // And through the API: a second removal only raises the suggestion; an unused product never appears.
    const { t, r, staff, beef, buns, koelcel } = await stockSetup();
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 4 });
    expect((await t.req({ method: 'GET', url: '/api/v1/purchase-list/suggest', cookie: staff })).json().data).toEqual([]);
    const qty = async () => (await t.req({ method: 'GET', url: '/api/v1/purchase-list/suggest?lookback=14&lead_days=3', cookie: staff })).json().data.find((i: any) => i.product_id === beef.id)?.quantity_to_order ?? 0;
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 3.5 });
    const once = await qty();
    expect(once).toBeGreaterThan(0);
    // The same total on hand (an intake makes up for the second removal) but more consumption: more to order.
    await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'INTAKE', quantity: 1 });
    expect((await postStock(t, staff, { productId: beef.id, locationId: koelcel.id, type: 'REMOVAL', quantity: 1 })).statusCode).toBe(201);
    expect(await qty()).toBeGreaterThan(once);
    expect((await t.services.stock.suggest(r.id, { lookback: 28, lead_days: 2 })).data.some((i) => i.product_id === buns.id)).toBe(false);
  });

  it('query validation: out-of-range or non-numeric values are 400, not clamped', async () => {
    const { t, staff } = await stockSetup();
    for (const [q, field] of [['lookback=0', 'lookback'], ['lookback=366', 'lookback'], ['lookback=abc', 'lookback'], ['lead_days=61', 'lead_days'], ['lead_days=-1', 'lead_days'], ['cover_days=61', 'cover_days'], ['days=3', 'days']]) {
      const b = expectError(await t.req({ method: 'GET', url: `/api/v1/purchase-list/suggest?${q}`, cookie: staff }), 400, 'VALIDATION', /^Ongeldige invoer: /);
      expect(b.details[0].field).toContain(field);
    }
  });
});
