import { createRequire } from 'node:module';
import type Holidays from 'date-holidays';
import { addDays, WEEKDAYS, weekdayOf } from '../../shared/zoned-time.js';

/**
 * Calendar rules of the insight areas (analytics, forecast, shifts, waste) on top of
 * server/shared/zoned-time.ts: the window of `?days=N`, the roster week, Dutch public holidays.
 */

/** The last `days` calendar dates ending with `today` (today included): the window of `?days=N`. */
export function windowOf(today: string, days: number): { from: string; to: string } {
  return { from: addDays(today, -(days - 1)), to: today };
}

/** The Monday on or after a date (a roster week starts on Monday). */
export function nextMonday(ymd: string, includeSame = false): string {
  const ahead = (7 - WEEKDAYS.indexOf(weekdayOf(ymd))) % 7;
  return addDays(ymd, ahead === 0 && !includeSame ? 7 : ahead);
}

// Dutch public holidays (date-holidays, country NL). Only the official days off ("public"): Nieuwjaar,
// Pasen, Koningsdag, Hemelvaart, Pinksteren, Kerst. Observances such as Moederdag are not days off.
// date-holidays (every country's rules, ≈ 0.8 MB of source) is loaded when a holiday is first asked
// for, not when the server starts (issue 29 point 5).
let holidaysNl: Holidays | undefined;
const holidayCache = new Map<number, Map<string, string>>();

function holidaysOfYear(year: number): Map<string, string> {
  let m = holidayCache.get(year);
  if (!m) {
    m = new Map();
    holidaysNl ??= new (createRequire(import.meta.url)('date-holidays') as typeof Holidays)('NL', { languages: ['nl'] });
    for (const h of holidaysNl.getHolidays(year)) if (h.type === 'public') m.set(h.date.slice(0, 10), h.name);
    holidayCache.set(year, m);
  }
  return m;
}

/** The Dutch public holiday on a date (`Koningsdag`, `Tweede kerstdag` …), or null. */
export function publicHoliday(ymd: string): string | null {
  return holidaysOfYear(Number(ymd.slice(0, 4))).get(ymd) ?? null;
}
