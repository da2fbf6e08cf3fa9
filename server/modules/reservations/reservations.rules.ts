import { addDays, hhmm, minutesOf, possibleInstants, weekdayOf, type Weekday } from '../../shared/zoned-time.js';

/**
 * Calendar rules for reservations in the restaurant's time zone (docs/reservations.md), on
 * server/shared/zoned-time.ts. A wall time that does not exist (the hour skipped in spring) cannot be
 * booked; one that exists twice (the hour repeated in autumn) means its first occurrence.
 */

/** The instant of a booking's wall-clock date and time; null when that time does not exist (spring forward). */
export const bookingInstant = (date: string, time: string, tz: string): Date | null => possibleInstants(date, time, tz)[0] ?? null;

export interface OpeningRules {
  timezone: string;
  opening_hours: Partial<Record<Weekday, Array<[string, string]>>>;
  opening_exceptions: Array<{ date: string; hours: Array<[string, string]>; note?: string }>;
  slot_minutes: number;
  seating_minutes: number;
}

/** The opening intervals of a date: its exception if it has one ([] = closed), else its weekday's hours. */
export function hoursOf(date: string, rules: OpeningRules): Array<[string, string]> {
  const exception = rules.opening_exceptions.find((e) => e.date === date);
  if (exception) return exception.hours;
  return rules.opening_hours[weekdayOf(date)] ?? [];
}

export interface Slot {
  time: string;
  start: Date;
  end: Date;
}

/**
 * The bookable slots of a date: from each opening time in steps of `slot_minutes` (wall clock),
 * as long as the seating (`seating_minutes` of real time) ends by closing time. A closing time at
 * or before the opening time is on the next day; slots themselves stay on the date (before
 * midnight). Wall times skipped by a DST change have no slot.
 */
export function slotsOf(date: string, rules: OpeningRules): Slot[] {
  const out: Slot[] = [];
  const seen = new Set<string>();
  for (const [from, to] of hoursOf(date, rules)) {
    const open = minutesOf(from);
    const closeDate = minutesOf(to) <= open ? addDays(date, 1) : date;
    const closeAt = firstInstantFrom(closeDate, minutesOf(to), rules.timezone);
    if (!closeAt) continue;
    for (let m = open; m < 24 * 60; m += rules.slot_minutes) {
      const time = hhmm(m);
      const start = bookingInstant(date, time, rules.timezone);
      if (!start) continue;
      const end = new Date(start.getTime() + rules.seating_minutes * 60_000);
      if (end.getTime() > closeAt.getTime()) break;
      if (!seen.has(time)) out.push({ time, start, end });
      seen.add(time);
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime());
}

/** The opening intervals of a date as instants (a closing time on the next day when it is not after the opening). */
export function intervalsOf(date: string, rules: OpeningRules): Array<{ from: Date; to: Date }> {
  const out: Array<{ from: Date; to: Date }> = [];
  for (const [a, b] of hoursOf(date, rules)) {
    const from = firstInstantFrom(date, minutesOf(a), rules.timezone);
    const to = firstInstantFrom(minutesOf(b) <= minutesOf(a) ? addDays(date, 1) : date, minutesOf(b), rules.timezone);
    if (from && to) out.push({ from, to });
  }
  return out;
}

/** The instant of a wall time, or of the first wall time after it that exists (a time in the skipped hour). */
function firstInstantFrom(date: string, minutes: number, tz: string): Date | null {
  for (let m = minutes; m < minutes + 180; m += 1) {
    const at = m >= 24 * 60 ? bookingInstant(addDays(date, 1), hhmm(m - 24 * 60), tz) : bookingInstant(date, hhmm(m), tz);
    if (at) return at;
  }
  return null;
}

/** Whether two windows [a1, a2) and [b1, b2) overlap (ISO strings or instants compare alike). */
export const overlaps = (a1: string, a2: string, b1: string, b2: string): boolean => a1 < b2 && b1 < a2;
