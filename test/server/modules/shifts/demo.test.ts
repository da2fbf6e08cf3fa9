import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { seedDemo, DEMO_STAFF } from '../../../../server/demo/seed.js';
import { addDays } from '../analytics/history.js';

describe('demo restaurant: insights', () => {
  it('has worked shifts for every demo employee, corrections kept, waste with its reasons, and every insight shows something', { timeout: 300_000 }, async () => {
    vi.stubEnv('DEMO_HISTORY_WEEKS', '2');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTestApp();
    t.clock.set('2026-11-20T15:00:00.000Z'); // a Friday afternoon
    const demo = await seedDemo(t);
    const tenantId = demo.tenant.id;
    const { shifts, waste, forecast, insights } = t.services;
    expect(demo.counts.shifts).toBeGreaterThan(30);

    // Payroll over the two weeks: every demo employee worked, with hours and a gross wage.
    const pay = await shifts.payroll(tenantId, addDays('2026-11-20', -14), '2026-11-19');
    expect(pay.lines.map((l) => l.name).sort()).toEqual(DEMO_STAFF.map((s) => s.name).sort());
    for (const l of pay.lines) {
      expect(l.hours_hundredths).toBeGreaterThan(1000); // more than 10 hours
      // Hours are rounded to hundredths, the wage from the exact time: within half a hundredth of an hour's wage.
      expect(Math.abs(l.gross_cents! - (l.hours_hundredths / 100) * l.hourly_wage_cents!)).toBeLessThanOrEqual(l.hourly_wage_cents! / 200 + 1);
    }
    // Tonight two are clocked in; every shift of the history is closed; corrections keep their original.
    const list = await shifts.list(tenantId, { from: addDays('2026-11-20', -14), to: '2026-11-20' });
    expect(list.filter((s) => s.status === 'open').map((s) => s.user_name).sort()).toEqual(['Daan Jansen', 'Sanne de Vries']);
    const corrected = list.filter((s) => s.corrected);
    for (const s of corrected) {
      const d = await shifts.get(tenantId, s.id);
      expect(d.corrections[0]!.before.end).toBeNull();
      expect(d.corrections[0]!.reason).toBe('Vergeten uit te klokken');
    }
    expect(list.some((s) => s.source === 'clock') && list.every((s) => !s.overlaps)).toBe(true);

    // Waste with several reasons, each booked as a stock removal.
    const stats = await waste.stats(tenantId, 15); // the two weeks before today, and today
    expect(stats.entries).toBeGreaterThan(3);
    expect(stats.by_reason.filter((r) => r.entries > 0).length).toBeGreaterThanOrEqual(3);
    const removals = await t.handle.db.selectFrom('stock_movements').select('id').where('tenant_id', '=', tenantId).where('source', '=', 'waste').execute();
    expect(removals.length).toBe(stats.entries);
    expect(demo.counts.waste_entries).toBe(stats.entries);

    // The forecast has history to draw, menu engineering classes the dishes, the roster has days.
    const f = await forecast.forecast(tenantId, 7);
    expect(f.history.reduce((s, h) => s + h.orders, 0)).toBeGreaterThan(50);
    expect(f.data.some((d) => d.expected_orders > 0)).toBe(true);
    const m = await insights.menuEngineering(tenantId, 14);
    expect(m.product_count).toBeGreaterThan(10);
    expect(m.waste_cost_cents).toBeGreaterThan(0);
    const week = await shifts.suggestWeek(tenantId, {});
    expect(week.jobs.map((j) => j.job).sort()).toEqual(['afwas', 'bar', 'bediening', 'kok']);
    expect(week.days.filter((d) => d.open).every((d) => d.employees_needed >= 2)).toBe(true);
  });
});
