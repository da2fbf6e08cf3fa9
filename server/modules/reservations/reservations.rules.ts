/**
 * Calendar arithmetic for reservations in the restaurant's time zone (docs/reservations.md):
 * wall-clock dates and times ("2026-03-29", "19:30") to UTC instants and back, DST-correct, with
 * nothing but Intl. A wall time that does not exist (the hour skipped in spring) has no instant; one
 * that exists twice (the hour repeated in autumn) means its first occurrence.
 */

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
const WEEKDAYS: Weekday[] = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const formats = new Map<string, Intl.DateTimeFormat>();
function format(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formats.set(tz, f);
  }
  return f;
}

/** The wall clock in `tz` at instant `t`, as if it were UTC (ms). */
function wallOf(t: number, tz: string): number {
  const p: Record<string, number> = {};
  for (const part of format(tz).formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!);
}

const pad = (n: number) => String(n).padStart(2, '0');

export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Minutes since midnight of "HH:MM". */
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
export const hhmm = (minutes: number): string => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const t = new Date(Date.UTC(y!, m! - 1, d! + days));
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

export function weekdayOf(date: string): Weekday {
  const [y, m, d] = date.split('-').map(Number);
  return WEEKDAYS[new Date(Date.UTC(y!, m! - 1, d!)).getUTCDay()]!;
}

/** Local date and time of an instant in `tz`. */
export function localOf(at: Date, tz: string): { date: string; time: string } {
  const w = new Date(wallOf(at.getTime(), tz));
  return { date: `${w.getUTCFullYear()}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}`, time: `${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}` };
}

/** The instant of a wall-clock date and time in `tz`; null when that time does not exist (spring forward). */
export function zonedInstant(date: string, time: string, tz: string): Date | null {
  const [y, m, d] = date.split('-').map(Number);
  const wall = Date.UTC(y!, m! - 1, d!, Math.floor(minutesOf(time) / 60), minutesOf(time) % 60);
  const candidates = new Set<number>();
  // The offsets in force around that wall time (a day either side covers any transition).
  for (const probe of [wall - 86_400_000, wall, wall + 86_400_000]) candidates.add(wall - (wallOf(probe, tz) - probe));
  const valid = [...candidates].filter((t) => wallOf(t, tz) === wall).sort((a, b) => a - b);
  return valid.length > 0 ? new Date(valid[0]!) : null;
}

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
      const start = zonedInstant(date, time, rules.timezone);
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
    const at = m >= 24 * 60 ? zonedInstant(addDays(date, 1), hhmm(m - 24 * 60), tz) : zonedInstant(date, hhmm(m), tz);
    if (at) return at;
  }
  return null;
}

/** Whether two windows [a1, a2) and [b1, b2) overlap (ISO strings or instants compare alike). */
export const overlaps = (a1: string, a2: string, b1: string, b2: string): boolean => a1 < b2 && b1 < a2;
