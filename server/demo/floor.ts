import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { isAppError } from '../shared/errors.js';
import { createFloorService } from '../modules/floor/floor.service.js';
import { createReservationsService } from '../modules/reservations/reservations.service.js';
import { intervalsOf, slotsOf, type OpeningRules } from '../modules/reservations/reservations.rules.js';
import { addDays, wallClock } from '../shared/zoned-time.js';
import { historyWeeks } from './orders.js';
import type { DemoContext } from './seed.js';
import { demoModifiers, groupsOf } from './menu.js';

/** Deterministic pseudo-random numbers, so every demo looks the same. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ZONES: Array<{ name: string; tables: Array<[name: string, seats: number, shape: 'rect' | 'round' | 'square']> }> = [
  { name: 'binnen', tables: [['1', 2, 'square'], ['2', 2, 'square'], ['3', 4, 'rect'], ['4', 4, 'rect'], ['5', 4, 'round'], ['6', 6, 'rect'], ['7', 8, 'rect'], ['Bar', 2, 'round']] },
  { name: 'terras', tables: [['T1', 2, 'round'], ['T2', 2, 'round'], ['T3', 4, 'rect'], ['T4', 4, 'rect'], ['T5', 6, 'rect']] },
];

const NAMES = ['De Jong', 'Jansen', 'De Vries', 'Van den Berg', 'Bakker', 'Visser', 'Smit', 'Meijer', 'De Boer', 'Mulder', 'Bos', 'Vos', 'Peters', 'Hendriks', 'Dekker', 'Brouwer', 'Van Leeuwen', 'Kok', 'Yilmaz', 'El Idrissi'];
const NOTES = ['verjaardag', 'kinderstoel graag', 'glutenvrij', 'bij het raam', 'rolstoel', undefined, undefined, undefined, undefined];

/**
 * The floor and reservations of the demo (issue 11): two zones (binnen, terras) with their tables;
 * eight weeks of bookings behind us (seated, now and then a no-show or a cancellation), taken and
 * handled through the real services with a clock set to each moment; tonight's service with
 * occupied tables (orders on their bills, one partly paid) and tables reserved within the hour; and
 * a week of bookings ahead.
 */
export async function seedFloor(ctx: DemoContext): Promise<void> {
  const { runtime, tenant } = ctx;
  const { services } = runtime;
  const random = rng(20261111);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  // 061… to 065…: mobile ranges in the Dutch number plan (067… and 069… are not, and are refused).
  const phone = () => `06${String(10_000_000 + Math.floor(random() * 50_000_000))}`;

  const tables: Record<string, string> = {};
  for (const [i, zone] of ZONES.entries()) {
    const z = await services.floor.createZone(tenant.id, { name: zone.name, position: i });
    for (const [j, [name, seats, shape]] of zone.tables.entries()) {
      tables[name] = (await services.floor.createTable(tenant.id, { zone_id: z.id, name, seats, shape, x: 40 + (j % 4) * 140, y: 40 + Math.floor(j / 4) * 140, reservable: name !== 'Bar' })).id;
    }
  }
  ctx.counts.tables = Object.keys(tables).length;

  const settings = await services.tenants.getSettings(tenant.id);
  const rules: OpeningRules = { timezone: settings.timezone, opening_hours: settings.opening_hours as OpeningRules['opening_hours'], opening_exceptions: settings.opening_exceptions, slot_minutes: settings.slot_minutes, seating_minutes: settings.seating_minutes };
  const now = runtime.clock.now();
  const today = wallClock(now, settings.timezone).date;

  // History: bookings made a few days ahead, then seated (or not), as it happened back then.
  const clock = new ManualClock();
  const changes = new ChangeLog(runtime.handle.db, clock, runtime.changes.origin);
  const floor = createFloorService({ db: runtime.handle.db, changes, clock, orders: services.orders });
  const past = createReservationsService({ db: runtime.handle.db, changes, clock, tenants: services.tenants, floor });
  floor.useReservations(past.lookup);
  let history = 0;
  for (let d = historyWeeks() * 7; d >= 1; d--) {
    const day = addDays(today, -d);
    const slots = slotsOf(day, rules).filter((s) => s.time >= '17:00' || random() < 0.3);
    if (slots.length === 0) continue;
    const n = 6 + Math.floor(random() * 8);
    for (let i = 0; i < n; i++) {
      const slot = pick(slots);
      clock.set(new Date(slot.start.getTime() - (1 + Math.floor(random() * 6)) * 86_400_000));
      let booking;
      try {
        booking = await past.bookPublic(tenant.slug, { date: day, time: slot.time, party_size: 2 + Math.floor(random() * 4), name: pick(NAMES), phone: phone(), notes: pick(NOTES) });
      } catch (err) {
        if (isAppError(err) && err.code === 'CONFLICT') continue; // that slot was full then too
        throw err;
      }
      const fate = random();
      clock.set(new Date(slot.start.getTime() + (fate < 0.06 ? -86_400_000 : fate < 0.1 ? 20 * 60_000 : -5 * 60_000)));
      await past.update({ tenantId: tenant.id, userId: null }, booking.id, { status: fate < 0.06 ? 'cancelled' : fate < 0.1 ? 'no_show' : 'seated' });
      history++;
    }
  }
  ctx.counts.reservations_history = history;

  // Tonight: guests at their tables, one bill partly paid.
  const products = (ctx.products ?? []).filter((p) => p.available);
  const mains = products.filter((p) => p.price_cents >= 1700);
  const drinks = products.filter((p) => p.price_cents < 600);
  const waiter = ctx.staff.find((s) => s.job === 'bediening') ?? ctx.staff[0];
  const choices = rng(4242);
  const actor = { tenantId: tenant.id, userId: waiter?.id ?? null, via: 'pos' as const };
  if (mains.length && drinks.length) {
    for (const [name, party] of [['3', 3], ['6', 5], ['T3', 4], ['Bar', 2]] as const) {
      const main = pick(mains);
      const modifiers = demoModifiers(groupsOf(ctx, main), choices);
      const { order } = await services.orders.create(actor, {
        items: [
          { product_id: pick(drinks).id, quantity: party },
          { product_id: main.id, quantity: Math.max(1, party - 1), ...(modifiers ? { modifiers } : {}) },
        ],
        table_id: tables[name],
      });
      // The tables further along have had their mains (course 2) fired.
      if (name === '6' || name === 'T3') for (const course of new Set(order.items.filter((i) => i.held).map((i) => i.course))) await services.orders.fire(actor, order.id, course);
      if (name === '6') await services.orders.setStatus(actor, order.id, 'preparing');
      if (name === 'T3') await services.orders.setStatus(actor, order.id, 'completed');
    }
    // Table T3 has eaten; one of them paid their share.
    const bill = await services.floor.tableBill(tenant.id, tables.T3!);
    await services.floor.payBill(actor, bill.id, { amount_cents: Math.floor(bill.open_cents / 2), tip_cents: 200 });
  }
  ctx.counts.tables_occupied = 4;

  // Tonight's bookings: within the hour when the bistro is open now (the tables show gereserveerd),
  // and later in the evening.
  let upcoming = 0;
  const book = async (date: string, time: string, party: number, staff: boolean) => {
    try {
      const input = { date, time, party_size: party, name: pick(NAMES), phone: phone(), notes: pick(NOTES) };
      if (staff) await services.reservations.bookStaff({ tenantId: tenant.id, userId: actor.userId }, input);
      else await services.reservations.bookPublic(tenant.slug, input);
      upcoming++;
    } catch (err) {
      if (!(isAppError(err) && (err.code === 'CONFLICT' || err.code === 'VALIDATION'))) throw err;
    }
  };
  const soon = new Date(Math.ceil((now.getTime() + 30 * 60_000) / (15 * 60_000)) * 15 * 60_000);
  const soonLocal = wallClock(soon, settings.timezone);
  if (intervalsOf(soonLocal.date, rules).some((i) => soon >= i.from && soon < i.to)) {
    await book(soonLocal.date, soonLocal.time, 2, true);
    await book(soonLocal.date, soonLocal.time, 4, true);
  } else {
    // Closed right now: staff hold the big table for tonight's group by hand (a manual status).
    await services.floor.setOverride(tenant.id, tables['7']!, 'gereserveerd');
  }
  // A week ahead (today included): a handful of bookings per open day.
  for (let d = 0; d < 7; d++) {
    const day = addDays(today, d);
    const slots = slotsOf(day, rules).filter((s) => s.start.getTime() > now.getTime() + 60 * 60_000);
    if (slots.length === 0) continue;
    const n = 5 + Math.floor(random() * 8);
    for (let i = 0; i < n; i++) await book(day, pick(slots).time, 2 + Math.floor(random() * 5), random() < 0.3);
  }
  ctx.counts.reservations_ahead = upcoming;
  // Announce tonight's statuses to the tablets (the minute job would do it within a minute).
  await services.floor.refreshStatuses();
}
