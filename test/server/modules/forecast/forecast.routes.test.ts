import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { addDays, orderAt, ordersOn } from '../analytics/history.js';

/**
 * GET /forecast/orders (CONTRACT §13, docs/insights.md "Forecast") on crafted histories whose
 * answers are worked out by hand in the comments.
 */
async function setup(now = '2026-11-20T10:00:00.000Z') {
  const t = await createTestApp();
  t.clock.set(now);
  const r = await t.seedTenant();
  const product = await t.services.menu.createProduct(r.id, { name: 'Friet', price_cents: 400, cost_cents: 100 });
  return { t, r, product: product.id, staff: await r.staffCookie() };
}

const get = (t: TestApp, cookie: string | undefined, query = '') => t.req({ method: 'GET', url: `/api/v1/forecast/orders${query}`, cookie });

describe('GET /forecast/orders', () => {
  it('with no history: zero expected on each of 7 days from today, no back-test, low confidence', async () => {
    const { t, staff } = await setup();
    const res = await get(t, staff);
    expect(res.statusCode).toBe(200);
    const f = res.json();
    expect(f.data.map((d: { date: string }) => d.date)).toEqual(['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26']);
    expect(f.data[0]).toEqual({ date: '2026-11-20', weekday: 'fri', expected_orders: 0, base: 0, samples: 0, holiday: null });
    expect(f).toMatchObject({ method: 'weekday_mean_4w_trend_14d', as_of: '2026-11-20', weeks_of_history: 0, trend: 1, confidence: 'low' });
    expect(f.backtest).toEqual({ mape: null, mae: null, days_evaluated: 0, days: [] });
    expect(f.history).toHaveLength(28);
    expect(f.history[0]).toEqual({ date: '2026-10-23', weekday: 'fri', orders: 0, holiday: null });
    expect(f.history.every((h: { orders: number }) => h.orders === 0)).toBe(true);
  });

  it('a flat history (2 completed orders every day for 5 weeks) forecasts 2 a day, back-tests at 0 % error, high confidence; other orders and tenants do not count', async () => {
    const { t, r, product, staff } = await setup();
    // 2026-10-16 … 2026-11-19: 35 days, 2 orders each.
    for (let d = 0; d < 35; d++) await ordersOn(t, r.id, addDays('2026-10-16', d), 2, product);
    // Cancelled and unfinished orders are not demand that was served; they do not count.
    await orderAt(t, r.id, '2026-11-19T13:00:00.000Z', [{ product_id: product, quantity: 1 }], 'cancelled');
    await orderAt(t, r.id, '2026-11-18T13:00:00.000Z', [{ product_id: product, quantity: 1 }], 'preparing');
    // Today's orders are not history yet.
    await orderAt(t, r.id, '2026-11-20T09:00:00.000Z', [{ product_id: product, quantity: 1 }]);
    // Another restaurant's busy day.
    const other = await t.seedTenant();
    const otherProduct = await t.services.menu.createProduct(other.id, { name: 'Soep', price_cents: 500 });
    await ordersOn(t, other.id, '2026-11-13', 5, otherProduct.id);

    const f = (await get(t, staff, '?days=3')).json();
    expect(f.data).toEqual([
      { date: '2026-11-20', weekday: 'fri', expected_orders: 2, base: 2, samples: 4, holiday: null },
      { date: '2026-11-21', weekday: 'sat', expected_orders: 2, base: 2, samples: 4, holiday: null },
      { date: '2026-11-22', weekday: 'sun', expected_orders: 2, base: 2, samples: 4, holiday: null },
    ]);
    // First order 2026-10-16, today 2026-11-20: 35 days = 5 full weeks.
    expect(f).toMatchObject({ weeks_of_history: 5, trend: 1, confidence: 'high' });
    // Every day of the last 4 weeks forecast (as of that day) at 2, and 2 happened.
    expect(f.backtest).toMatchObject({ mape: 0, mae: 0, days_evaluated: 28 });
    expect(f.backtest.days[0]).toEqual({ date: '2026-10-23', actual: 2, forecast: 2 });
    expect(f.history.map((h: { orders: number }) => h.orders)).toEqual(Array(28).fill(2));

    // The other restaurant: one Friday of 5 orders, a week of history: 5 on Fridays, 0 on other days.
    const otherF = (await get(t, await other.staffCookie(), '?days=2')).json();
    expect(otherF.data.map((d: { expected_orders: number }) => d.expected_orders)).toEqual([5, 0]);
    expect(otherF).toMatchObject({ weeks_of_history: 1, confidence: 'low' });
  });

  it('a rising history is damped by the trend clamp (×1.5, not ×4) and the back-test shows the lag', async () => {
    const { t, r, product, staff } = await setup();
    // 2026-10-23 … 11-05: 1 order a day; 11-06 … 11-19: 4 a day.
    for (let d = 0; d < 14; d++) await ordersOn(t, r.id, addDays('2026-10-23', d), 1, product);
    for (let d = 0; d < 14; d++) await ordersOn(t, r.id, addDays('2026-11-06', d), 4, product);
    const f = (await get(t, staff)).json();
    // Trend: 4 a day over 1 a day = 4, clamped to 1.5. Base of every weekday: (1 + 1 + 4 + 4) / 4 = 2.5.
    // Expected: 2.5 × 1.5 = 3.75 → 3.8 (one decimal).
    expect(f.trend).toBe(1.5);
    expect(f.weeks_of_history).toBe(4);
    for (const d of f.data) expect(d).toMatchObject({ expected_orders: 3.8, base: 2.5, samples: 4 });
    // Back-test (each day forecast as of that day, with a week of history at least):
    // 10-30 … 11-05: base 1, trend 1 (under 28 days) → 1, actual 1 → 0 %;
    // 11-06 … 11-12: base (1 + 1) / 2 = 1 → actual 4 → 75 %;
    // 11-13 … 11-19: base (4 + 1 + 1) / 3 = 2 → actual 4 → 50 %.
    // MAPE = (7 × 0 + 7 × 75 + 7 × 50) / 21 = 41.67 → 41.7; MAE = (0 + 7 × 3 + 7 × 2) / 21 = 1.67.
    expect(f.backtest).toMatchObject({ mape: 41.7, mae: 1.67, days_evaluated: 21 });
    expect(f.backtest.days.find((d: { date: string }) => d.date === '2026-11-06')).toEqual({ date: '2026-11-06', actual: 4, forecast: 1 });
    expect(f.backtest.days.find((d: { date: string }) => d.date === '2026-11-13')).toEqual({ date: '2026-11-13', actual: 4, forecast: 2 });
    expect(f.confidence).toBe('low'); // 41.7 % > 30 %
  });

  it('back-tests a known series: Saturdays only, 10 10 10 10 10 20 20 10 → MAPE 45.3 %', async () => {
    // Today: Sunday 2026-11-22. Saturdays s1 … s8 = 10-03 … 11-21.
    const { t, r, product, staff } = await setup('2026-11-22T10:00:00.000Z');
    const saturdays = [10, 10, 10, 10, 10, 20, 20, 10];
    for (const [i, n] of saturdays.entries()) await ordersOn(t, r.id, addDays('2026-10-03', 7 * i), n, product);
    const f = (await get(t, staff)).json();
    // Back-test over 10-25 … 11-21; only the Saturdays are evaluated (closed days: 0 expected, 0 happened).
    // s5 10-31: base mean(s1..s4) = 10, trend (s3+s4)/(s1+s2) = 1 → 10, actual 10 → 0 %
    // s6 11-07: base mean(s2..s5) = 10, trend (s4+s5)/(s2+s3) = 1 → 10, actual 20 → 50 %
    // s7 11-14: base mean(s3..s6) = 12.5, trend (s5+s6)/(s3+s4) = 1.5 → 18.75, actual 20 → 6.25 %
    // s8 11-21: base mean(s4..s7) = 15, trend (s6+s7)/(s4+s5) = 2 → 1.5 → 22.5, actual 10 → 125 %
    // MAPE = (0 + 50 + 6.25 + 125) / 4 = 45.3125 → 45.3; MAE = (0 + 10 + 1.25 + 12.5) / 4 = 5.94.
    expect(f.backtest).toEqual({
      mape: 45.3,
      mae: 5.94,
      days_evaluated: 4,
      days: [
        { date: '2026-10-31', actual: 10, forecast: 10 },
        { date: '2026-11-07', actual: 20, forecast: 10 },
        { date: '2026-11-14', actual: 20, forecast: 18.8 },
        { date: '2026-11-21', actual: 10, forecast: 22.5 },
      ],
    });
    // Next Saturday 11-28: base mean(s5..s8) = 15, trend (s7+s8)/(s5+s6) = 30/30 = 1 → 15.
    expect(f.data[6]).toEqual({ date: '2026-11-28', weekday: 'sat', expected_orders: 15, base: 15, samples: 4, holiday: null });
    expect(f.data.filter((d: { weekday: string }) => d.weekday !== 'sat').every((d: { expected_orders: number }) => d.expected_orders === 0)).toBe(true);
    expect(f).toMatchObject({ weeks_of_history: 7, trend: 1, confidence: 'low' });
  });

  it('flags Dutch public holidays (King’s Day) on the days they fall and leaves them out of the weekday means and the trend', async () => {
    const { t, r, product, staff } = await setup('2026-04-20T10:00:00.000Z');
    const ahead = (await get(t, staff, '?days=14')).json();
    const flagged = ahead.data.filter((d: { holiday: string | null }) => d.holiday !== null);
    expect(flagged).toEqual([{ date: '2026-04-27', weekday: 'mon', expected_orders: 0, base: 0, samples: 0, holiday: 'Koningsdag' }]);

    // Mondays: 03-30, 04-13, 04-20: 4 orders; Koningsdag 04-27: 40; 05-04: 4. (04-06 is Tweede paasdag: closed.)
    for (const [date, n] of [['2026-03-30', 4], ['2026-04-13', 4], ['2026-04-20', 4], ['2026-04-27', 40], ['2026-05-04', 4]] as const) {
      await ordersOn(t, r.id, date, n, product);
    }
    t.clock.set('2026-05-10T10:00:00.000Z'); // Sunday
    const f = (await get(t, await r.staffCookie())).json();
    // Monday 05-11: the Mondays in 04-12 … 05-09 without Koningsdag: (4 + 4 + 4) / 3 = 4 (with it: 13).
    // Trend: 04-26 … 05-09 without Koningsdag: 4 orders over 13 days; 04-12 … 04-25: 8 over 14 days;
    // (4/13) / (8/14) = 0.538 (with Koningsdag: 44/8 = 5.5, clamped 1.5). Expected 4 × 0.538 = 2.15 → 2.2.
    expect(f.trend).toBe(0.54);
    expect(f.data[1]).toEqual({ date: '2026-05-11', weekday: 'mon', expected_orders: 2.2, base: 4, samples: 3, holiday: null });
    expect(f.data.find((d: { date: string }) => d.date === '2026-05-14')).toMatchObject({ weekday: 'thu', holiday: 'Hemelvaartsdag' });
    expect(f.history.find((h: { date: string }) => h.date === '2026-04-27')).toEqual({ date: '2026-04-27', weekday: 'mon', orders: 40, holiday: 'Koningsdag' });
    expect(f.weeks_of_history).toBe(5);
  });

  it.each([
    ['days=0', '?days=0'],
    ['days=29', '?days=29'],
    ['days=abc', '?days=abc'],
    ['days=1.5', '?days=1.5'],
    ['an unknown parameter', '?dagen=7'],
  ])('%s is 400 VALIDATION in Dutch', async (_n, query) => {
    const { t, staff } = await setup();
    const res = await get(t, staff, query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /) });
    expect(res.json().details[0].field).toMatch(/days|dagen/);
  });

  it('needs a session (401); staff and admins may read it', async () => {
    const { t, r } = await setup();
    const res = await get(t, undefined);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Je bent niet ingelogd.', code: 'UNAUTHORIZED' });
    expect((await get(t, await r.adminCookie())).statusCode).toBe(200);
  });
});
