import { sha256PartsId } from '../../shared/ids.js';
import { addDays, dayBounds, WEEKDAYS, weekdayOf, zonedInstant, type Weekday } from '../../shared/zoned-time.js';

/**
 * The rules of the food-safety area in one place (docs/haccp.md): the API, sync, the overdue job
 * and the export all call these. Pure functions, no database.
 */

export type TemperatureStatus = 'ok' | 'waarschuwing' | 'kritiek';

/** Temperatures, targets and the margin are compared in whole hundredths of a degree, so 3.3 + 0.7 is exactly 4. */
const hundredths = (x: number): number => Math.round(x * 100);

/**
 * CONTRACT §9: `ok` when temperature <= target_max, `waarschuwing` when <= target_max + margin,
 * `kritiek` above. Boundaries are exact: target_max itself is ok, target_max + margin is a warning.
 * A unit with a minimum (warm holding, `target_min`) is judged the same way downwards: ok when
 * >= target_min, a warning down to target_min - margin, kritiek below. The worse side counts.
 */
export function temperatureStatus(temperature: number, target: { target_max: number; target_min?: number | null }, margin: number): TemperatureStatus {
  const t = hundredths(temperature);
  const m = hundredths(margin);
  const judge = (over: number): TemperatureStatus => (over <= 0 ? 'ok' : over <= m ? 'waarschuwing' : 'kritiek');
  const high = judge(t - hundredths(target.target_max));
  const low = target.target_min === null || target.target_min === undefined ? 'ok' : judge(hundredths(target.target_min) - t);
  const rank = { ok: 0, waarschuwing: 1, kritiek: 2 } as const;
  return rank[high] >= rank[low] ? high : low;
}

/** "Koelcel 1 ", "koelcel  1" and "KOELCEL 1" are one unit. */
export const nameKey = (name: string): string => name.trim().replace(/\s+/g, ' ').toLocaleLowerCase('nl-NL');

/**
 * A UUID (version 8, RFC 9562 "custom") derived from its parts: the same parts give the same id on
 * every node, so two sides that create "the same" record during an outage create one row, not two
 * (the unit first logged under a new name on both sides; the overdue incident of one checklist and
 * day, should two nodes of one origin both notice it). FROZEN, do not change: ids already stored
 * and synced (SHA-256, from before `stableId`; pinned in test/server/shared/ids.test.ts).
 */
export const derivedId = (...parts: string[]): string => sha256PartsId(...parts);

// ---------------------------------------------------------------------------------------------
// Calendar days in the tenant's time zone (CONTRACT §1: "per day" is local; server/shared/zoned-time.ts).

/** Monday of the ISO week of `day`. */
export const weekStart = (day: string): string => addDays(day, -WEEKDAYS.indexOf(weekdayOf(day)));

/**
 * Whether the restaurant is open on `day` by its `opening_hours` setting (weekday → time ranges).
 * Daily checklists and unit readings are due on open days only: a bistro closed on Monday does not
 * read its fridges then, and an inspector should not be shown those days as gaps. A restaurant
 * without any opening hours set counts as open every day.
 */
export function openOn(openingHours: Partial<Record<Weekday, unknown[]>>, day: string): boolean {
  const anyHours = WEEKDAYS.some((d) => (openingHours[d]?.length ?? 0) > 0);
  return !anyHours || (openingHours[weekdayOf(day)]?.length ?? 0) > 0;
}

// ---------------------------------------------------------------------------------------------
// When a checklist or a unit is due (used alike by the overdue job and the export's gap lists).

export interface ChecklistSchedule {
  frequency: 'daily' | 'weekly';
  deadline: string;
  weekday: Weekday | null;
  created_at: string;
  archived_at: string | null;
}

/**
 * The deadline of a checklist on `day`, or null when it is not due that day: a daily list every
 * day, a weekly one on its weekday; never before it existed (its deadline that day must fall after
 * it was created) nor after it was archived.
 */
export function checklistDeadline(c: ChecklistSchedule, day: string, timeZone: string): Date | null {
  if (c.frequency === 'weekly' && weekdayOf(day) !== (c.weekday ?? 'mon')) return null;
  // A deadline in the hour repeated in autumn is the later one (winter time): the list is late only once both have passed.
  const at = zonedInstant(day, c.deadline, timeZone, 'later');
  if (at.toISOString() <= c.created_at) return null;
  if (c.archived_at !== null && c.archived_at <= at.toISOString()) return null;
  return at;
}

/**
 * The days a run on `day` counts for: a daily list's run counts for its own day; a weekly list's
 * run counts for the whole ISO week (Monday to Sunday) it falls in.
 */
export function runCovers(c: Pick<ChecklistSchedule, 'frequency'>, runDay: string, dueDay: string): boolean {
  return c.frequency === 'daily' ? runDay === dueDay : weekStart(runDay) === weekStart(dueDay);
}

export interface UnitSchedule {
  readings_per_day: number;
  created_at: string;
  archived_at: string | null;
}

/**
 * A unit owes its readings on `day` when it existed for the whole day: registered before the day
 * began and not archived before it ended. (The day a unit is registered, e.g. by its first log,
 * does not count: nobody could have read it all day.)
 */
export function unitDue(u: UnitSchedule, day: string, timeZone: string): boolean {
  if (u.readings_per_day <= 0) return false;
  const { start, end } = dayBounds(day, timeZone);
  if (u.created_at > start.toISOString()) return false;
  if (u.archived_at !== null && u.archived_at < end.toISOString()) return false;
  return true;
}

/** Dutch number formatting for messages: 4.5 → "4,5". */
export const nl = (x: number): string => String(x).replace('.', ',');
