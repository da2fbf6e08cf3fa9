import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { createHaccpService } from '../modules/haccp/haccp.service.js';
import { openOn } from '../modules/haccp/haccp.rules.js';
import { addDays, businessDay, zonedInstant } from '../shared/zoned-time.js';
import { historyWeeks } from './orders.js';
import type { DemoContext } from './seed.js';

/** Deterministic pseudo-random numbers, so every demo looks the same. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const UNITS = [
  { name: 'Koelcel', unit_type: 'koelcel' as const, target_max: 7, base: 3.2 },
  { name: 'Vriezer', unit_type: 'vriezer' as const, target_max: -18, base: -20.5 },
  { name: 'Koelkast bar', unit_type: 'koelkast' as const, target_max: 7, base: 4.1 },
  { name: 'Saladebar', unit_type: 'koelvitrine' as const, target_max: 7, base: 4.8 },
  { name: 'Bain-marie', unit_type: 'warmhoud' as const, target_max: 90, target_min: 60, base: 68 },
];

const OPENING = ['Temperatuur koelingen gecontroleerd', 'Werkbanken en snijplanken schoon', 'Handenwasplaats: zeep en papier aanwezig', 'Houdbaarheid (THT/TGT) mise-en-place gecontroleerd'];
const CLOSING = ['Restjes afgedekt en gedateerd', 'Vloer en afvoerputjes schoon', 'Afval weggebracht', 'Koelingen dicht en op temperatuur'];

/**
 * Food safety for the demo (issue 10): five temperature points read at opening and closing on every
 * day the bistro is open, for eight weeks, through the real service with a clock set to each
 * moment; daily opening and closing checklists with their runs (now and then an item skipped); one
 * day on which nobody read the temperatures (the overdue job, run as it would have run, recorded it
 * and the chef wrote down what was done about it); one `kritiek` reading of the koelcel with its
 * corrective action the next morning. The export shows all of it, and every chain verifies.
 */
export async function seedHaccp(ctx: DemoContext): Promise<void> {
  const { runtime, tenant } = ctx;
  const random = rng(20261110);
  const clock = new ManualClock();
  const changes = new ChangeLog(runtime.handle.db, clock, runtime.changes.origin);
  const haccp = createHaccpService({ db: runtime.handle.db, changes, clock, tenants: runtime.services.tenants, users: runtime.services.users });
  const { timezone, opening_hours } = await runtime.services.tenants.getSettings(tenant.id);
  const cooks = ctx.staff.filter((s) => s.job === 'kok');
  const people = cooks.length ? cooks : ctx.staff;
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const local = (day: string, hhmm: string, jitterMin = 0) => clock.set(new Date(zonedInstant(day, hhmm, timezone).getTime() + Math.floor(random() * jitterMin) * 60_000));

  const now = runtime.clock.now();
  const today = businessDay(now, timezone);
  const weeks = historyWeeks();
  const first = addDays(today, -weeks * 7);
  local(addDays(first, -1), '23:50'); // after the day's closing deadline: due from the first day of history
  for (const u of UNITS) await haccp.createUnit(tenant.id, { name: u.name, unit_type: u.unit_type, target_max: u.target_max, target_min: u.target_min ?? null, readings_per_day: 2 });
  const opening = await haccp.createChecklist(tenant.id, { name: 'Opening keuken', frequency: 'daily', deadline: '12:00', items: OPENING.map((label) => ({ label })) });
  const closing = await haccp.createChecklist(tenant.id, { name: 'Sluiting keuken', frequency: 'daily', deadline: '23:45', items: CLOSING.map((label) => ({ label })) });
  if (weeks === 0) return;

  // The forgotten day about ten days ago, the kritiek reading about three weeks ago: open days inside the history.
  const openDayNear = (back: number): string => {
    let day = addDays(today, -Math.min(back, weeks * 7 - 1));
    while (!openOn(opening_hours, day) && day > first) day = addDays(day, -1);
    while (!openOn(opening_hours, day) && day < today) day = addDays(day, 1);
    return day;
  };
  const forgotten = openDayNear(10);
  const hotDay = openDayNear(20);

  let readings = 0;
  let runs = 0;
  const read = async (day: string, hhmm: string, who: string, moment: 'open' | 'close') => {
    if (day === forgotten) return;
    for (const u of UNITS) {
      local(day, hhmm, 20);
      let temperature = Math.round((u.base + (random() - 0.5) * (u.unit_type === 'warmhoud' ? 10 : 2.4) + (moment === 'close' && u.unit_type !== 'vriezer' ? 0.6 : 0)) * 10) / 10;
      if (day === hotDay && moment === 'close' && u.name === 'Koelcel') temperature = 10.4; // the door stood ajar
      if (random() < 0.015 && u.unit_type === 'koelvitrine') temperature = 8.3; // a busy salad bar: a warning now and then
      const log = await haccp.logTemperature({ tenantId: tenant.id, userId: who }, { unit_name: u.name, temperature, ...(temperature === 8.3 ? { note: 'Druk bij de saladebar, deksels erop.' } : {}) });
      readings += 1;
      if (log.incident_id) {
        local(addDays(day, 1), '10:15');
        await haccp.addAction({ tenantId: tenant.id, userId: who }, log.incident_id, 'Deur koelcel stond op een kier. Producten boven 7 °C weggegooid (±4 kg), deur afgesteld; om 10:45 weer 3,4 °C.');
      }
    }
  };
  const run = async (list: typeof opening, day: string, hhmm: string, who: string) => {
    local(day, hhmm, 30);
    const skip = random() < 0.06 ? list.items[Math.floor(random() * list.items.length)]!.id : null;
    await haccp.runChecklist({ tenantId: tenant.id, userId: who }, list.id, {
      completed_items: list.items.filter((i) => i.id !== skip).map((i) => i.id),
      ...(skip ? { notes: 'Niet gelukt door drukte; morgen als eerste.' } : {}),
    });
    runs += 1;
  };

  for (let day = first; day < today; day = addDays(day, 1)) {
    if (openOn(opening_hours, day)) {
      const who = pick(people).id;
      await read(day, '10:30', who, 'open');
      await run(opening, day, '11:00', who);
      const closer = pick(people).id;
      await read(day, '22:15', closer, 'close');
      await run(closing, day, '22:45', closer);
    }
    // The overdue job as it would have run just after midnight: it records the forgotten day.
    local(addDays(day, 1), '00:10');
    await haccp.checkOverdue();
  }
  // The chef's note on the forgotten day's incidents.
  local(addDays(forgotten, 1), '11:30');
  const open = (await haccp.listIncidents(tenant.id, { status: 'open', limit: 50, offset: 0 })).data;
  for (const incident of open.filter((i) => i.business_day === forgotten)) {
    await haccp.addAction({ tenantId: tenant.id, userId: people[0]!.id }, incident.id, 'Meting vergeten bij de opening en sluiting. Met het team besproken; de meetronde staat nu op de openingslijst.');
  }
  // Today: the opening round, if the kitchen has opened already.
  if (openOn(opening_hours, today) && zonedInstant(today, '11:00', timezone) < now) {
    const who = pick(people).id;
    await read(today, '10:30', who, 'open');
    await run(opening, today, '11:00', who);
  }
  ctx.counts.haccp_units = UNITS.length;
  ctx.counts.haccp_readings = readings;
  ctx.counts.haccp_checklist_runs = runs;
}
