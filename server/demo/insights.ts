import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { addDays, businessDay, dayStart } from '../shared/zoned-time.js';
import { createShiftsService } from '../modules/shifts/shifts.service.js';
import { historyWeeks } from './orders.js';
import type { DemoContext } from './seed.js';

/**
 * Insights for the demo restaurant (issue 13): eight weeks of worked shifts for the demo staff, so
 * that the roster suggestion and the payroll export show something real (food waste, for the waste
 * statistics and the waste-adjusted menu engineering, is booked by the stock seeder, where the
 * kitchen's levels are known: server/demo/stock.ts). The forecast and
 * the other analytics read the orders' history (server/demo/orders.ts).
 *
 * Shifts are clocked in and out through the shifts service on a clock set to each moment (a few
 * minutes' jitter, a break on long shifts); now and then someone forgets to clock out and an admin
 * corrects the shift the next morning (the correction keeps the original), and a few shifts are
 * entered by an admin. Tonight two of the staff are clocked in.
 */

/** Deterministic pseudo-random numbers, so every demo looks the same. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Who works when (local time, hours from midnight; an end past 24 runs into the night). Closed Monday and Tuesday. */
const ROSTER: Record<number, Array<[name: string, start: number, end: number]>> = {
  3: [['Daan Jansen', 16, 22.5], ['Sanne de Vries', 16.5, 23], ['Lucas Bakker', 18, 23]],
  4: [['Daan Jansen', 16, 22.5], ['Sanne de Vries', 16.5, 23], ['Emma Visser', 17, 23], ['Lucas Bakker', 18, 23]],
  5: [['Fatima El Amrani', 11, 19], ['Daan Jansen', 15, 23], ['Sanne de Vries', 11.5, 19.5], ['Emma Visser', 16.5, 24.5], ['Noah Smit', 17, 25], ['Lucas Bakker', 18, 24]],
  6: [['Fatima El Amrani', 11, 19], ['Daan Jansen', 15, 23], ['Sanne de Vries', 11.5, 19.5], ['Emma Visser', 16.5, 24.5], ['Noah Smit', 17, 25], ['Lucas Bakker', 18, 24]],
  0: [['Fatima El Amrani', 11.5, 21.5], ['Emma Visser', 11.5, 21.5], ['Noah Smit', 14, 22], ['Lucas Bakker', 16, 22]],
};

export async function seedInsights(ctx: DemoContext): Promise<void> {
  const { runtime, tenant, admin } = ctx;
  const services = runtime.services;
  const { timezone } = await services.tenants.cachedSettings(tenant.id);
  const random = rng(13_2026);
  const clock = new ManualClock(runtime.clock.now());
  const changes = new ChangeLog(runtime.handle.db, clock, runtime.changes.origin);
  const shifts = createShiftsService({ db: runtime.handle.db, changes, tenants: services.tenants, forecast: services.forecast });
  const staffByName = new Map(ctx.staff.map((s) => [s.name, s]));
  const adminActor = { tenantId: tenant.id, userId: admin.id };

  const today = businessDay(runtime.clock.now(), timezone);
  const weeks = historyWeeks();
  const at = (day: string, hours: number, jitterMinutes = 0) => new Date(dayStart(day, timezone).getTime() + hours * 3_600_000 + Math.round((random() * 2 - 1) * jitterMinutes) * 60_000);
  let shiftCount = 0;
  let corrected = 0;

  for (let d = weeks * 7; d >= 1; d--) {
    const day = addDays(today, -d);
    const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
    const roster = ROSTER[weekday];
    if (!roster) continue;
    const forgotten: Array<{ id: string; end: Date }> = [];
    for (const [name, start, end] of roster) {
      const member = staffByName.get(name);
      if (!member) continue;
      const actor = { tenantId: tenant.id, userId: member.id };
      const from = at(day, start, 8);
      const to = at(day, end, 12);
      const breakMinutes = end - start >= 6 ? 30 : 0;
      if (random() < 0.04) {
        // Forgot to clock in: the manager enters the shift the next morning.
        clock.set(at(addDays(day, 1), 10, 30));
        await shifts.create(adminActor, { user_id: member.id, start: from.toISOString(), end: to.toISOString(), break_minutes: breakMinutes, note: 'Vergeten in te klokken' });
      } else {
        clock.set(from);
        const s = await shifts.clockIn(actor);
        if (random() < 0.05) forgotten.push({ id: s.id, end: to });
        else {
          clock.set(to);
          await shifts.clockOut(actor, { break_minutes: breakMinutes });
        }
      }
      shiftCount++;
    }
    // The next morning: shifts nobody clocked out of are closed by the manager (the original stays visible).
    for (const f of forgotten) {
      clock.set(at(addDays(day, 1), 10, 30));
      await shifts.correct(adminActor, f.id, { end: f.end.toISOString(), break_minutes: 30, reason: 'Vergeten uit te klokken' });
      corrected++;
    }

  }

  // Tonight's service: two of the staff are clocked in now.
  for (const name of ['Sanne de Vries', 'Daan Jansen']) {
    const member = staffByName.get(name);
    if (member) await services.shifts.clockIn({ tenantId: tenant.id, userId: member.id }).catch(() => undefined);
  }
  ctx.counts.shifts = shiftCount;
  ctx.counts.shift_corrections = corrected;
}
