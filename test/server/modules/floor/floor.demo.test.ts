import { afterEach, describe, expect, it } from 'vitest';
import { seedFloor } from '../../../../server/demo/floor.js';
import { seedMenu } from '../../../../server/demo/menu.js';
import { seedSettings, type DemoContext } from '../../../../server/demo/seed.js';
import { createTestApp } from '../../../helpers/app.js';

async function demo(at: string) {
  const t = await createTestApp();
  t.clock.set(at);
  const r = await t.seedTenant();
  const admin = (await t.services.users.list(r.id)).find((u) => u.role === 'admin')!;
  const ctx = { runtime: t, tenant: { id: r.id, slug: r.slug, name: 'Demo' }, admin, staff: [], counts: {} } as unknown as DemoContext;
  await seedSettings(ctx);
  await seedMenu(ctx);
  await seedFloor(ctx);
  return { t, r, ctx };
}

describe('floor demo data (server/demo/floor.ts)', () => {
  const saved = process.env.DEMO_HISTORY_WEEKS;
  afterEach(() => {
    if (saved === undefined) delete process.env.DEMO_HISTORY_WEEKS;
    else process.env.DEMO_HISTORY_WEEKS = saved;
  });

  it('two zones with tables, tonight’s occupied and reserved tables, bookings behind us and a week ahead', async () => {
    process.env.DEMO_HISTORY_WEEKS = '1'; // the demo has 8
    const { t, r, ctx } = await demo('2026-11-20T17:10:00Z'); // Friday 18:10 in Amsterdam, in service
    const plan = await t.services.floor.floorplan(r.id);
    expect(plan.zones.map((z) => z.name)).toEqual(['binnen', 'terras']);
    const tables = plan.zones.flatMap((z) => z.tables);
    expect(tables).toHaveLength(13);
    expect(tables.filter((x) => x.status === 'bezet').map((x) => x.name).sort()).toEqual(['3', '6', 'Bar', 'T3']);
    expect(tables.filter((x) => x.status === 'gereserveerd').length).toBeGreaterThanOrEqual(2);
    const t3 = tables.find((x) => x.name === 'T3')!;
    expect(t3.bill!.open_cents).toBeLessThan(t3.bill!.total_cents); // partly paid
    // The tablets were told: the announced statuses match the plan.
    const announced = await t.handle.db.selectFrom('floor_table_status').select(['table_id', 'status']).where('tenant_id', '=', r.id).execute();
    for (const x of tables.filter((y) => y.status !== 'vrij')) expect(announced.find((a) => a.table_id === x.id)?.status).toBe(x.status);
    // History: last week's bookings were handled (seated, some no-show or cancelled); a week ahead is booked.
    const rows = await t.handle.db.selectFrom('reservations').selectAll().where('tenant_id', '=', r.id).execute();
    const pastRows = rows.filter((x) => x.date < '2026-11-20');
    expect(pastRows.length).toBeGreaterThan(10);
    expect(pastRows.every((x) => x.status !== 'booked')).toBe(true);
    expect(new Set(rows.filter((x) => x.date > '2026-11-20').map((x) => x.date)).size).toBeGreaterThanOrEqual(3);
    expect(ctx.counts).toMatchObject({ tables: 13, tables_occupied: 4, reservations_history: pastRows.length });
    // No table is ever given twice at once.
    const holding = rows.filter((x) => x.status === 'booked' || x.status === 'seated');
    for (const a of holding) for (const b of holding) if (a.id < b.id && a.table_id === b.table_id) expect(a.starts_at < b.ends_at && b.starts_at < a.ends_at).toBe(false);
  });

  it('on a closed evening staff hold the big table by hand', async () => {
    process.env.DEMO_HISTORY_WEEKS = '0';
    const { t, r } = await demo('2026-11-23T17:00:00Z'); // Monday: closed
    const seven = (await t.services.floor.floorplan(r.id)).zones[0]!.tables.find((x) => x.name === '7')!;
    expect(seven).toMatchObject({ status: 'gereserveerd', manual: true });
  });
});
