import { afterEach, describe, expect, it } from 'vitest';
import { seedHaccp } from '../../../../server/demo/haccp.js';
import type { DemoContext } from '../../../../server/demo/seed.js';
import { createTestApp } from '../../../helpers/app.js';

describe('HACCP demo data (server/demo/haccp.ts)', () => {
  const saved = process.env.DEMO_HISTORY_WEEKS;
  afterEach(() => {
    if (saved === undefined) delete process.env.DEMO_HISTORY_WEEKS;
    else process.env.DEMO_HISTORY_WEEKS = saved;
  });

  it('units, readings on open days with one forgotten day and one kritiek with its action, opening and closing lists with runs; every chain verifies', async () => {
    process.env.DEMO_HISTORY_WEEKS = '4'; // the demo has 8; 4 keep the test quick
    const t = await createTestApp();
    const r = await t.seedTenant();
    const cook = await t.services.users.create(r.id, { name: 'Daan Jansen', role: 'staff', pin: '8642', job: 'kok' });
    const admin = (await t.services.users.list(r.id)).find((u) => u.role === 'admin')!;
    const ctx = { runtime: t, tenant: { id: r.id, slug: r.slug, name: 'Demo' }, admin, staff: [{ ...cook, pin: '8642' }], counts: {} } as unknown as DemoContext;
    await seedHaccp(ctx);
    const e = await t.services.haccp.export(r.id, 28);
    expect(e.integrity.verified).toBe(true);
    expect(e.units.map((u) => u.name).sort()).toEqual(['Bain-marie', 'Koelcel', 'Koelkast bar', 'Saladebar', 'Vriezer']);
    // One forgotten day (the default hours: closed on Monday, so Mondays are no gap), all five units.
    const days = [...new Set(e.missing_readings.map((m) => m.date))];
    expect(days).toHaveLength(1);
    expect(e.missing_readings.map((m) => m.recorded)).toEqual([0, 0, 0, 0, 0]);
    expect(e.temperature_logs.some((l) => l.business_day === days[0])).toBe(false);
    // One kritiek reading, with its corrective action; the forgotten day's incidents have theirs too.
    const kritiek = e.temperature_logs.filter((l) => l.status === 'kritiek');
    expect(kritiek).toHaveLength(1);
    const hot = e.incidents.find((i) => i.log_id === kritiek[0]!.id)!;
    expect(hot.actions).toHaveLength(1);
    expect(e.incidents.filter((i) => i.kind === 'readings_missing').map((i) => i.business_day)).toEqual(Array(5).fill(days[0]));
    expect(e.open_incidents).toEqual([]);
    // Opening and closing runs on every open day, no list skipped.
    expect(e.checklists.map((c) => c.name).sort()).toEqual(['Opening keuken', 'Sluiting keuken']);
    expect(e.missed_checklists).toEqual([]);
    const openDays = new Set(e.checklist_runs.map((x) => x.business_day));
    expect(e.checklist_runs.length).toBeGreaterThanOrEqual(2 * (openDays.size - 1));
    expect(e.temperature_logs.every((l) => l.user_name === 'Daan Jansen')).toBe(true);
    const stored = await t.handle.db.selectFrom('haccp_temperature_logs').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', r.id).executeTakeFirstOrThrow();
    expect(ctx.counts).toMatchObject({ haccp_units: 5, haccp_readings: Number(stored.n) });
  });
});
