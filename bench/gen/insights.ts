/**
 * Shifts, waste and staff bookings done offline, for bench/sync-push-sql.ts
 * (GEN=bench/gen/insights.ts N=100). In the cloud, synced down: a crew of four with a job and a wage,
 * four ingredients, a kitchen, a zone of 20 tables. Then N units on the appliance (the bench's clock
 * is the real one): an admin enters a worked shift of a crew member on a past day (every fourth one
 * corrected), a crew member clocks in and out, a waste entry (with its stock removal), and a staff
 * booking a few days ahead (every third one cancelled again).
 */
import { slotsOf, type OpeningRules } from '../../server/modules/reservations/reservations.rules.js';
import { addDays, wallClock } from '../../server/shared/zoned-time.js';
import type { GenEnv } from '../sync-push-sql.js';

export async function generate(env: GenEnv): Promise<void> {
  const { cloud, app, engine, tenantId, N } = env;
  const crew: string[] = [];
  for (const [i, job] of ['keuken', 'keuken', 'bediening', 'bediening'].entries()) {
    crew.push((await cloud.services.users.create(tenantId, { name: `Medewerker ${i + 1}`, role: 'staff', pin: String(4100 + i), job, hourly_wage_cents: 1400 + 50 * i })).id);
  }
  const ingredients: string[] = [];
  for (let i = 0; i < 4; i++) ingredients.push((await cloud.services.menu.createProduct(tenantId, { name: `Ingrediënt ${i + 1}`, price_cents: 0, cost_cents: 100 + 50 * i, unit: 'kg', on_menu: false })).id);
  const kitchen = (await cloud.services.stock.createLocation(tenantId, { name: 'Keuken' })).id;
  const zone = await cloud.services.floor.createZone(tenantId, { name: 'zaal' });
  for (let i = 1; i <= 20; i++) await cloud.services.floor.createTable(tenantId, { zone_id: zone.id, name: `Z${i}`, seats: 2 + (i % 4) * 2, x: (i % 5) * 100, y: Math.floor(i / 5) * 100 });
  await engine.syncOnce();

  const { shifts, waste, reservations, tenants } = app.services;
  const admin = { tenantId, userId: env.staffId };
  const settings = await tenants.getSettings(tenantId);
  const rules = { timezone: settings.timezone, opening_hours: settings.opening_hours as OpeningRules['opening_hours'], opening_exceptions: settings.opening_exceptions, slot_minutes: settings.slot_minutes, seating_minutes: settings.seating_minutes };
  const today = wallClock(new Date(), settings.timezone).date;
  const reasons = ['bederf', 'overproductie', 'retour', 'beschadigd', 'overig'] as const;
  const out = { shifts: 0, corrections: 0, clocked: 0, waste: 0, bookings: 0, cancelled: 0, full: 0 };
  for (let i = 0; i < N; i++) {
    const userId = crew[i % crew.length]!;
    const day = new Date(Date.now() - (Math.floor(i / crew.length) + 1) * 86_400_000).toISOString().slice(0, 10);
    const shift = await shifts.create(admin, { user_id: userId, start: `${day}T09:00:00.000Z`, end: `${day}T15:30:00.000Z`, break_minutes: 30 });
    out.shifts += 1;
    if (i % 4 === 3) {
      await shifts.correct(admin, shift.id, { break_minutes: 45, reason: 'Pauze was langer' });
      out.corrections += 1;
    }
    await shifts.clockIn({ tenantId, userId });
    await new Promise((r) => setTimeout(r, 2));
    await shifts.clockOut({ tenantId, userId }, { break_minutes: 0 });
    out.clocked += 1;
    await waste.record(admin, { product_id: ingredients[i % ingredients.length]!, quantity: 0.5, reason: reasons[i % reasons.length]!, location_id: kitchen });
    out.waste += 1;
    const date = addDays(today, 1 + (i % 5));
    const slots = slotsOf(date, rules);
    if (slots.length === 0) continue;
    try {
      const r = await reservations.bookStaff(admin, { date, time: slots[i % slots.length]!.time, party_size: 2 + (i % 3), name: `Gast ${i}`, phone: '0612345678' });
      out.bookings += 1;
      if (i % 3 === 2) {
        await reservations.update(admin, r.id, { status: 'cancelled' });
        out.cancelled += 1;
      }
    } catch (err) {
      if ((err as { code?: string }).code !== 'CONFLICT') throw err;
      out.full += 1;
    }
  }
  console.log(`insights: ${JSON.stringify(out)}`);
  // After the bench's push and pull: the same rows on both sides.
  const pull = engine.pullOnce.bind(engine);
  engine.pullOnce = async (...args: Parameters<typeof engine.pullOnce>) => {
    const r = await pull(...args);
    if (r.more) return r;
    const differ: string[] = [];
    for (const table of ['shifts', 'shift_corrections', 'waste_entries', 'reservations'] as const) {
      const rows = async (rt: GenEnv['app']) => JSON.stringify((await rt.handle.db.selectFrom(table).selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute()).map((x) => Object.entries(x).sort().map(([k, v]) => [k, v === null ? null : String(v)])));
      const [a, c] = [await rows(app), await rows(cloud)];
      if (a !== c) differ.push(table);
      console.log(`insights: ${table} ${JSON.parse(a).length} rows on the appliance, ${JSON.parse(c).length} in the cloud`);
    }
    console.log(`insights: ${differ.length ? `DIFFERENT: ${differ.join(', ')}` : 'the same rows on both sides'}`);
    return r;
  };
}
