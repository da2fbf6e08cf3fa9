/**
 * Calendar dates, wall-clock times and time zones, the same for every area (CONTRACT §1: "per day"
 * is the restaurant's local day; docs/adr/0006). The only place that builds an Intl.DateTimeFormat.
 *
 * - A calendar date is a `YYYY-MM-DD` string, a time of day `HH:MM`. Arithmetic on dates is done in
 *   UTC, where every day has 24 hours; only the step between a date + time and an instant looks at
 *   the zone, through Intl (the platform's IANA data), nothing hand-written about DST rules.
 * - A wall time that does not exist (the hour skipped in spring) or exists twice (the hour repeated
 *   in autumn) is resolved as `Temporal.ZonedDateTime` does, with the same option names
 *   (`compatible` by default: a skipped time moves forward by the length of the gap, a repeated one
 *   is its first occurrence), so the code can move onto Temporal unchanged when Node has it.
 * - A business day may start at another hour than midnight (`business_day_starts_at`, CONTRACT §19:
 *   sales at 01:30 belong to the evening before); `businessDay` and `dayStart` take that hour, and
 *   `businessDay(t) = d` exactly when `dayStart(d) <= t < dayStart(d + 1)`.
 */

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
/** The weekdays in ISO order (Monday first): the keys of the opening hours setting. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const satisfies readonly Weekday[];

const DAY_MS = 86_400_000;
const pad2 = (n: number) => String(n).padStart(2, '0');

/** Date.UTC for every year: Date.UTC itself reads the years 0 to 99 as 1900 to 1999. */
function utc(y: number, month: number, d: number, h = 0, mi = 0, s = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(y, month - 1, d);
  return t.setUTCHours(h, mi, s, 0);
}

// ---------------------------------------------------------------------------------------------
// Formatters: building an Intl.DateTimeFormat costs ~0.2 ms, formatting with one ~3 µs
// (bench/README.md), so every (locale, options) pair is built once.

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Zones come from tenant settings: bound the cache so odd spellings cannot grow it without end. */
const MAX_FORMATTERS = 1_000;

/**
 * The cached Intl.DateTimeFormat for a locale and options (time zone included): for labels in
 * Dutch (`dateTimeFormat('nl-NL', { timeZone, weekday: 'short', day: 'numeric', month: 'short' })`)
 * as much as for the zone arithmetic below. Throws a RangeError for an unknown time zone.
 */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}\u0000${JSON.stringify(options, Object.keys(options).sort())}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(key, f);
  }
  return f;
}

/** Whether Intl knows this IANA time zone (`Europe/Amsterdam`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    wallFormat(zone);
    return true;
  } catch {
    return false;
  }
}

// The wall-clock formatter of a zone, on the hot path (every order's number, every reading): its own
// map keyed by zone alone, so no options key is built per call.
const wallFormats = new Map<string, Intl.DateTimeFormat>();
function wallFormat(zone: string): Intl.DateTimeFormat {
  let f = wallFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    if (wallFormats.size >= MAX_FORMATTERS) wallFormats.clear();
    wallFormats.set(zone, f);
  }
  return f;
}

/** `11/20/2026, 13:05:09`: what the wall formatter writes (en-US, 24-hour clock). */
const WALL_TEXT = /^(\d{2})\/(\d{2})\/(\d{4}), (\d{2}):(\d{2}):(\d{2})$/;

/** The wall clock of `zone` at instant `t` (whole seconds), written as if it were a UTC instant (ms). */
function wallMs(t: number, zone: string): number {
  const f = wallFormat(zone);
  // format() is about four times faster than formatToParts(); the parts are the fallback should a
  // future ICU write en-US differently.
  const m = WALL_TEXT.exec(f.format(t));
  if (m) return utc(Number(m[3]), Number(m[1]), Number(m[2]), Number(m[4]) % 24, Number(m[5]), Number(m[6]));
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return utc(p.year!, p.month!, p.day!, p.hour! % 24, p.minute!, p.second!);
}

/** How far the wall clock of `zone` is ahead of UTC at an instant, in ms (Amsterdam: 1 h in winter, 2 h in summer). */
export function offsetMs(at: Date | number, zone: string): number {
  const t = typeof at === 'number' ? at : at.getTime();
  return wallMs(t, zone) - Math.floor(t / 1000) * 1000;
}

// ---------------------------------------------------------------------------------------------
// Calendar dates and times of day (no zone).

const parseDate = (date: string): number => {
  const [y, m, d] = date.split('-').map(Number);
  return utc(y!, m!, d!);
};
const formatDate = (ms: number): string => {
  const t = new Date(ms);
  return `${String(t.getUTCFullYear()).padStart(4, '0')}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())}`;
};

/** Whether `s` is an existing calendar date written `YYYY-MM-DD` (`2026-02-30` is not). */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  return m !== null && formatDate(parseDate(s)) === s;
}

export const addDays = (date: string, n: number): string => formatDate(parseDate(date) + n * DAY_MS);
/** Whole days from `a` to `b` (positive when `b` is later). */
export const daysBetween = (a: string, b: string): number => Math.round((parseDate(b) - parseDate(a)) / DAY_MS);
/** Every date from `from` to `to`, both included (none when `to` is before `from`). */
export function dateRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}
/** 'mon' … 'sun' of a calendar date. */
export const weekdayOf = (date: string): Weekday => WEEKDAYS[(new Date(parseDate(date)).getUTCDay() + 6) % 7]!;

/** Minutes since midnight of `HH:MM`. */
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
/** `HH:MM` of minutes since midnight (0 … 1439). */
export const hhmm = (minutes: number): string => `${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;

// ---------------------------------------------------------------------------------------------
// Instants ↔ local date and time.

/** The local date and time (`HH:MM`) of an instant in `zone`. */
export function wallClock(at: Date | number, zone: string): { date: string; time: string } {
  const w = wallMs(typeof at === 'number' ? at : at.getTime(), zone);
  const t = new Date(w);
  return { date: formatDate(w), time: `${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}` };
}

/**
 * Every instant at which the wall clock of `zone` shows `time` on `date`, earliest first: one on an
 * ordinary day, none in the hour skipped in spring, two in the hour repeated in autumn
 * (`Temporal.TimeZone#getPossibleInstantsFor`).
 */
export function possibleInstants(date: string, time: string, zone: string): Date[] {
  const wall = parseDate(date) + minutesOf(time) * 60_000;
  // The offsets in force a day either side of the wall time (and at it) cover any transition near
  // it; each distinct one gives a candidate, which counts when the zone's clock shows the wall time then.
  const offsets = new Set([offsetMs(wall - DAY_MS, zone), offsetMs(wall, zone), offsetMs(wall + DAY_MS, zone)]);
  const found: number[] = [];
  for (const offset of offsets) {
    const t = wall - offset;
    if (wallMs(t, zone) === wall) found.push(t);
  }
  return found.sort((a, b) => a - b).map((t) => new Date(t));
}

/**
 * How a wall time that does not exist or exists twice becomes one instant (the names and meaning
 * of Temporal's `disambiguation`):
 * - `compatible` (the default, as RFC 5545 and Temporal): a skipped time moves forward by the length
 *   of the gap (02:30 on the last Sunday of March in Amsterdam is 03:30 summer time); a repeated one
 *   is the first (summer time);
 * - `earlier`: the earlier reading of both (a skipped 02:30 is 01:30 winter time);
 * - `later`: the later reading of both (a skipped 02:30 is 03:30 summer time, a repeated one the
 *   second, winter time);
 * - `reject`: null for both.
 */
export type Disambiguation = 'compatible' | 'earlier' | 'later' | 'reject';

/** The instant the wall clock of `zone` shows `time` (`HH:MM`) on `date` (`YYYY-MM-DD`); see `Disambiguation`. */
export function zonedInstant(date: string, time: string, zone: string, disambiguation?: Exclude<Disambiguation, 'reject'>): Date;
export function zonedInstant(date: string, time: string, zone: string, disambiguation: Disambiguation): Date | null;
export function zonedInstant(date: string, time: string, zone: string, disambiguation: Disambiguation = 'compatible'): Date | null {
  const found = possibleInstants(date, time, zone);
  if (found.length === 1) return found[0]!;
  if (disambiguation === 'reject') return null;
  if (found.length > 1) return disambiguation === 'later' ? found[found.length - 1]! : found[0]!;
  // In a gap: read the wall time with the offset before the jump (that lands after it: later) or
  // with the offset after it (that lands before it: earlier).
  const wall = parseDate(date) + minutesOf(time) * 60_000;
  const before = offsetMs(wall - DAY_MS, zone);
  const after = offsetMs(wall + DAY_MS, zone);
  return new Date(wall - (disambiguation === 'earlier' ? after : before));
}

// ---------------------------------------------------------------------------------------------
// Business days.

/** Midnight: the business day of a tenant that sets no other start. */
export const MIDNIGHT = '00:00';

/** The instant business day `date` begins in `zone`: its `startsAt` (`HH:MM`, default 00:00) wall time, `compatible`. */
export const dayStart = (date: string, zone: string, startsAt: string = MIDNIGHT): Date => zonedInstant(date, startsAt, zone);

/** Business day `date` as the instants [start, end): 23, 24 or 25 hours (or 23½ and 24½ in a zone with a half-hour DST step). */
export function dayBounds(date: string, zone: string, startsAt: string = MIDNIGHT): { start: Date; end: Date } {
  return { start: dayStart(date, zone, startsAt), end: dayStart(addDays(date, 1), zone, startsAt) };
}

/**
 * The business day (`YYYY-MM-DD`) of an instant in `zone`: its local date, or the date before while
 * the local time is before `startsAt` (with 05:00, 01:30 on Saturday belongs to Friday's day).
 */
export function businessDay(at: Date | number, zone: string, startsAt: string = MIDNIGHT): string {
  const t = typeof at === 'number' ? at : at.getTime();
  // Every order asks it for its number (orders.service.ts `create`): the answer is kept per zone and
  // start with its day's bounds, [dayStart(d), dayStart(d + 1)), and given again for an instant inside
  // them (the definition below, exactly), without formatting in the zone each time.
  const key = `${zone}\u0000${startsAt}`;
  const kept = daysKept.get(key);
  if (kept && t >= kept.start && t < kept.end) return kept.day;
  const day = businessDayOf(t, zone, startsAt);
  const { start, end } = dayBounds(day, zone, startsAt);
  if (t >= start.getTime() && t < end.getTime()) {
    if (daysKept.size >= MAX_FORMATTERS) daysKept.clear();
    daysKept.set(key, { day, start: start.getTime(), end: end.getTime() });
  }
  return day;
}

/** businessDay's last answer per zone and start, with its day's bounds in ms. */
const daysKept = new Map<string, { day: string; start: number; end: number }>();

function businessDayOf(t: number, zone: string, startsAt: string): string {
  const local = formatDate(wallMs(t, zone));
  // At midnight the local date is the answer: the first instant that shows a date is where its day begins.
  if (startsAt === MIDNIGHT) return local;
  return t < dayStart(local, zone, startsAt).getTime() ? addDays(local, -1) : local;
}
