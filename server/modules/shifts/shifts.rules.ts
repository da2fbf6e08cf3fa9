import { AppError, type FieldError } from '../../shared/errors.js';

/**
 * The rules of worked shifts, in one place for the API, sync and the payroll export
 * (docs/insights.md "Shifts").
 */
export const MAX_SHIFT_MS = 24 * 3_600_000;
/** An admin may enter a shift that ends a little ahead of the clock (a late close-up entered early). */
export const FUTURE_TOLERANCE_MS = 15 * 60_000;

export interface Interval {
  start: number;
  /** null: still open (runs on). */
  end: number | null;
}

/** Times of a closed shift: end after start, at most 24 hours, break shorter than the shift. Field errors, or none. */
export function timeProblems(startIso: string, endIso: string | null, breakMinutes: number, fields = { start: 'start', end: 'end', break: 'break_minutes' }): FieldError[] {
  if (endIso === null) return [];
  const start = Date.parse(startIso);
  const end = Date.parse(endIso);
  if (end <= start) return [{ field: fields.end, error: `'${fields.end}' moet na '${fields.start}' liggen.` }];
  if (end - start > MAX_SHIFT_MS) return [{ field: fields.end, error: `'${fields.end}' mag hoogstens 24 uur na '${fields.start}' liggen.` }];
  if (breakMinutes * 60_000 >= end - start) return [{ field: fields.break, error: `'${fields.break}' moet korter zijn dan de dienst zelf.` }];
  return [];
}

export function assertTimes(startIso: string, endIso: string | null, breakMinutes: number): void {
  const problems = timeProblems(startIso, endIso, breakMinutes);
  if (problems.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${problems[0]!.error.replace(/\.$/, '')}.`, { details: problems });
}

/** Whether two shifts share any moment (an open shift runs on forever). Touching ends (17:00–17:00) do not overlap. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity);
}

export interface PayShift {
  id: string;
  start: number;
  end: number;
  break_minutes: number;
}

/**
 * Paid milliseconds of one employee's closed shifts within [from, to): each shift counts only its
 * part inside the period (a shift across the period's edge is split there; the next period gets the
 * rest), and a moment covered by two of the employee's shifts (recorded on two devices during an
 * outage) counts once. A shift's break is shared out pro rata over the part that counts, so the
 * parts of a split shift add up to exactly the whole.
 */
export function paidMs(shifts: PayShift[], from: number, to: number): { ms: number; counted: number } {
  const sorted = [...shifts].sort((a, b) => a.start - b.start || a.end - b.end || a.id.localeCompare(b.id));
  let coveredUntil = -Infinity; // sorted by start, so what is covered is one prefix up to here
  let ms = 0;
  let counted = 0;
  for (const s of sorted) {
    const duration = s.end - s.start;
    if (duration <= 0) continue;
    const lo = Math.max(s.start, from, coveredUntil);
    const hi = Math.min(s.end, to);
    coveredUntil = Math.max(coveredUntil, s.end);
    if (hi <= lo) continue;
    const part = hi - lo;
    ms += part - (s.break_minutes * 60_000 * part) / duration;
    counted += 1;
  }
  return { ms, counted };
}

/** Hundredths of an hour, rounded half up: the unit of the payroll export's hours. */
export const hundredthsOfHour = (ms: number): number => Math.round(ms / 36_000);
/** Gross wage in cents for paid milliseconds at an hourly wage, rounded to the cent once per employee. */
export const grossCents = (ms: number, hourlyWageCents: number): number => Math.round((ms * hourlyWageCents) / 3_600_000);
