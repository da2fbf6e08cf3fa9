import Holidays from 'date-holidays';
import { businessDay } from '../orders/orders.rules.js';

/**
 * Calendar arithmetic for the insight areas (analytics, forecast, shifts, waste). Calendar dates are
 * `YYYY-MM-DD` strings in the tenant's time zone (CONTRACT §1); date arithmetic on them is done in
 * UTC, where every day has 24 hours, and only the conversion to an instant looks at the zone.
 */

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const DAY_MS = 86_400_000;

const parse = (ymd: string): number => {
  const [y, m, d] = ymd.split('-').map(Number);
  return Date.UTC(y!, m! - 1, d!);
};
const format = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export const addDays = (ymd: string, n: number): string => format(parse(ymd) + n * DAY_MS);
/** Whole days from `a` to `b` (positive when b is later). */
export const daysBetween = (a: string, b: string): number => Math.round((parse(b) - parse(a)) / DAY_MS);
/** 'mon' … 'sun', the keys of the opening hours setting. */
export const weekdayOf = (ymd: string): Weekday => WEEKDAYS[new Date(parse(ymd)).getUTCDay()]!;
/** The calendar date of an instant in a time zone. */
export const dayOf = (at: Date, timeZone: string): string => businessDay(at, timeZone);

/** Every date from `from` to `to`, both included. */
export function dateRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** The last `days` calendar dates ending with `today` (today included): the window of `?days=N`. */
export function windowOf(today: string, days: number): { from: string; to: string } {
  return { from: addDays(today, -(days - 1)), to: today };
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** The zone's offset from UTC at an instant, in milliseconds (Amsterdam: +1 h in winter, +2 h in summer). */
function offsetMs(at: number, timeZone: string): number {
  let f = offsetFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    offsetFormats.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  const local = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return local - Math.floor(at / 1000) * 1000;
}

/** The instant a calendar date begins in a time zone (00:00 local; correct across DST changes). */
export function startOfDay(ymd: string, timeZone: string): Date {
  const guess = parse(ymd);
  let at = guess - offsetMs(guess, timeZone);
  // Near a DST change the offset at the first guess can differ from the offset at local midnight.
  const again = guess - offsetMs(at, timeZone);
  if (again !== at) at = again;
  return new Date(at);
}

/** The Monday on or after a date (a roster week starts on Monday). */
export function nextMonday(ymd: string, includeSame = false): string {
  const dow = new Date(parse(ymd)).getUTCDay(); // 0 = Sunday
  const ahead = (8 - dow) % 7;
  return addDays(ymd, ahead === 0 && !includeSame ? 7 : ahead);
}

// Dutch public holidays (date-holidays, country NL). Only the official days off ("public"): Nieuwjaar,
// Pasen, Koningsdag, Hemelvaart, Pinksteren, Kerst. Observances such as Moederdag are not days off.
const holidaysNl = new Holidays('NL', { languages: ['nl'] });
const holidayCache = new Map<number, Map<string, string>>();

function holidaysOfYear(year: number): Map<string, string> {
  let m = holidayCache.get(year);
  if (!m) {
    m = new Map();
    for (const h of holidaysNl.getHolidays(year)) if (h.type === 'public') m.set(h.date.slice(0, 10), h.name);
    holidayCache.set(year, m);
  }
  return m;
}

/** The Dutch public holiday on a date (`Koningsdag`, `Tweede kerstdag` …), or null. */
export function publicHoliday(ymd: string): string | null {
  return holidaysOfYear(Number(ymd.slice(0, 4))).get(ymd) ?? null;
}
