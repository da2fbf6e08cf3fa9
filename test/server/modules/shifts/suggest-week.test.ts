import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../helpers/app.js';
import { ordersOn } from '../analytics/history.js';

/**
 * POST /shifts/suggest-week (CONTRACT §13, docs/insights.md "Roster") from a known forecast.
 * Today: Friday 2026-11-20. History: one week, 11-13 … 11-19, so the forecast of each weekday is
 * that week's count (trend 1: less than 4 weeks of history): Fri 12, Sat 16, Sun 7, Mon 0, Tue 0,
 * Wed 4, Thu 6. Open Wednesday to Sunday.
 */
async function setup() {
  const t = await createTestApp();
  t.clock.set('2026-11-20T10:00:00.000Z');
  const r = await t.seedTenant(); // Sanne: no job
  await t.services.tenants.patchSettings(r.id, {
    opening_hours: { wed: [['17:00', '22:00']], thu: [['17:00', '22:00']], fri: [['17:00', '23:00']], sat: [['12:00', '23:00']], sun: [['12:00', '21:00']] },
  });
  const product = (await t.services.menu.createProduct(r.id, { name: 'Friet', price_cents: 400 })).id;
  for (const [date, n] of [['2026-11-13', 12], ['2026-11-14', 16], ['2026-11-15', 7], ['2026-11-18', 4], ['2026-11-19', 6]] as const) await ordersOn(t, r.id, date, n, product);
  const mk = (name: string, pin: string, job: string) => t.services.users.create(r.id, { name, role: 'staff', pin, job, hourly_wage_cents: 1500 });
  const daan = await mk('Daan', '7001', 'keuken');
  const emma = await mk('Emma', '7002', 'bediening');
  await mk('Noah', '7003', 'bediening');
  return { t, r, daan: daan.id, emma: emma.id, staff: await r.staffCookie() };
}

const suggest = (t: TestApp, cookie: string | undefined, payload?: unknown) =>
  t.req({ method: 'POST', url: '/api/v1/shifts/suggest-week', cookie, ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('POST /shifts/suggest-week', () => {
  it('employees per day from the forecast: max(min_staff, ⌈orders / orders_per_employee⌉), 0 when closed; shared out over jobs by headcount', async () => {
    const { t, staff } = await setup();
    const res = await suggest(t, staff, { orders_per_employee: 5, min_staff: 2 });
    expect(res.statusCode).toBe(200);
    const s = res.json();
    expect(s).toMatchObject({ week_start: '2026-11-23', orders_per_employee: 5, min_staff: 2, confidence: 'low' });
    // No shifts yet: keuken 1 of 3 staff with a job, bediening 2 of 3.
    expect(s.jobs).toEqual([{ job: 'bediening', weight: 0.6667 }, { job: 'keuken', weight: 0.3333 }]);
    const rows = s.days.map((d: { date: string; weekday: string; open: boolean; expected_orders: number; employees_needed: number; by_job: Array<{ job: string; employees: number }> }) => [
      d.date,
      d.weekday,
      d.open,
      d.expected_orders,
      d.employees_needed,
      Object.fromEntries(d.by_job.map((j) => [j.job, j.employees])),
    ]);
    expect(rows).toEqual([
      ['2026-11-23', 'mon', false, 0, 0, { bediening: 0, keuken: 0 }],
      ['2026-11-24', 'tue', false, 0, 0, { bediening: 0, keuken: 0 }],
      // ⌈4/5⌉ = 1 → min 2; 2 × ⅔ = 1.33 and 2 × ⅓ = 0.67: 1 + 0, the left-over one to the larger rest (keuken).
      ['2026-11-25', 'wed', true, 4, 2, { bediening: 1, keuken: 1 }],
      ['2026-11-26', 'thu', true, 6, 2, { bediening: 1, keuken: 1 }],
      // ⌈12/5⌉ = 3: 2 + 1.
      ['2026-11-27', 'fri', true, 12, 3, { bediening: 2, keuken: 1 }],
      // ⌈16/5⌉ = 4: 2.67 → 2, 1.33 → 1, the left-over one to bediening (.67 > .33).
      ['2026-11-28', 'sat', true, 16, 4, { bediening: 3, keuken: 1 }],
      ['2026-11-29', 'sun', true, 7, 2, { bediening: 1, keuken: 1 }],
    ]);
    expect(s.total_employee_days).toBe(13);
    expect(s.days.every((d: { holiday: string | null }) => d.holiday === null)).toBe(true);
  });

  it('defaults (the coming Monday, 10 orders per employee, at least 2), and jobs weighted by the hours worked in the last 4 weeks', async () => {
    const { t, r, daan, emma, staff } = await setup();
    const admin = { tenantId: r.id, userId: r.adminId };
    // Keuken worked 30 h, bediening 10 h: 0.75 / 0.25.
    for (const day of ['2026-11-10', '2026-11-11', '2026-11-12']) await t.services.shifts.create(admin, { user_id: daan, start: `${day}T08:00:00Z`, end: `${day}T18:00:00Z` });
    await t.services.shifts.create(admin, { user_id: emma, start: '2026-11-12T08:00:00Z', end: '2026-11-12T18:00:00Z' });
    const s = (await suggest(t, staff)).json();
    expect(s).toMatchObject({ week_start: '2026-11-23', orders_per_employee: 10, min_staff: 2 });
    expect(s.jobs).toEqual([{ job: 'bediening', weight: 0.25 }, { job: 'keuken', weight: 0.75 }]);
    // Saturday: ⌈16/10⌉ = 2: keuken 1.5 → 1, bediening 0.5 → 0; the left-over one: equal rests, the job named first (bediening).
    expect(s.days[5]).toMatchObject({ weekday: 'sat', employees_needed: 2, by_job: [{ job: 'bediening', employees: 1 }, { job: 'keuken', employees: 1 }] });
    // With 8 needed: keuken 6, bediening 2.
    const big = (await suggest(t, staff, { orders_per_employee: 2, min_staff: 0 })).json();
    expect(big.days[5]).toMatchObject({ employees_needed: 8, by_job: [{ job: 'bediening', employees: 2 }, { job: 'keuken', employees: 6 }] });
    // min_staff 0 on a day with an expected 4: ⌈4/2⌉ = 2.
    expect(big.days[2].employees_needed).toBe(2);
  });

  it('a week from a chosen day, with holidays flagged (Kerst)', async () => {
    const { t, staff } = await setup();
    const s = (await suggest(t, staff, { week_start: '2026-12-14' })).json();
    expect(s.days.map((d: { date: string }) => d.date)).toEqual(['2026-12-14', '2026-12-15', '2026-12-16', '2026-12-17', '2026-12-18', '2026-12-19', '2026-12-20']);
    t.clock.set('2026-12-10T10:00:00.000Z');
    const xmas = (await suggest(t, await (await t.seedTenant()).staffCookie(), { week_start: '2026-12-21' })).json();
    expect(xmas.days.filter((d: { holiday: string | null }) => d.holiday).map((d: { date: string; holiday: string }) => [d.date, d.holiday])).toEqual([
      ['2026-12-25', 'Kerstmis'],
      ['2026-12-26', 'Tweede kerstdag'],
    ]);
  });

  it.each([
    ['a week in the past', { week_start: '2026-11-16' }, 'week_start', /verleden/],
    ['more than 4 weeks ahead', { week_start: '2026-12-19' }, 'week_start', /28 dagen/],
    ['a date that is no date', { week_start: '23-11-2026' }, 'week_start', /geldige datum/],
    ['0 orders per employee', { orders_per_employee: 0 }, 'orders_per_employee', /minimaal 1/],
    ['a fractional minimum', { min_staff: 1.5 }, 'min_staff', /geheel getal/],
    ['an unknown field', { staff: 3 }, 'staff', /Onbekend veld/],
  ])('%s is 400 VALIDATION', async (_n, body, field, msg) => {
    const { t, staff } = await setup();
    const res = await suggest(t, staff, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION', error: expect.stringMatching(/^Ongeldige invoer: /) });
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().details[0].error).toMatch(msg);
  });

  it('needs a session', async () => {
    const { t } = await setup();
    expect((await suggest(t, undefined, {})).statusCode).toBe(401);
  });
});
