import { addDays, dateRange, daysBetween } from '../../shared/zoned-time.js';
import { publicHoliday } from '../analytics/calendar.js';

/**
 * The order forecast (CONTRACT §13, docs/insights.md "Forecast"): one function that the API, the
 * roster suggestion and the back-test all call, so they can never disagree.
 *
 * As of a day `asOf` (today), using only completed orders of the days before it:
 * - base for a date: the mean order count of the same weekday over the 4 weeks before `asOf`
 *   (`asOf-28 … asOf-1`); days before the restaurant's first completed order do not count (a new
 *   restaurant is not averaged with zeros), nor do Dutch public holidays (a busy Koningsdag would
 *   inflate every Monday after it). Without any such day the base is 0.
 * - trend: orders per day of the last 14 days over orders per day of the 14 days before, holidays
 *   left out of both (with no holiday in either it is exactly "orders of the last 14 days over the
 *   14 days before"), clamped to 0.5…1.5; 1 with less than 28 days of history or nothing before.
 * - expected = base × trend.
 */

export const TREND_MIN = 0.5;
export const TREND_MAX = 1.5;
export const WEEKS = 4;

export interface OrderHistory {
  /** Completed orders per business day; a day not in the map had none. */
  counts: ReadonlyMap<string, number>;
  /** Business day of the first completed order ever, or null without any. */
  firstDay: string | null;
}

const count = (h: OrderHistory, day: string) => h.counts.get(day) ?? 0;
/** Whether a day lies within the restaurant's history as seen from `asOf` (on or after its first order, before `asOf`). */
const known = (h: OrderHistory, day: string, asOf: string) => h.firstDay !== null && day >= h.firstDay && day < asOf;

export function trendAsOf(h: OrderHistory, asOf: string): number {
  if (h.firstDay === null || daysBetween(h.firstDay, asOf) < 28) return 1;
  const perDay = (from: string, to: string) => {
    const days = dateRange(from, to).filter((d) => publicHoliday(d) === null);
    return days.length === 0 ? 0 : days.reduce((s, d) => s + count(h, d), 0) / days.length;
  };
  const recent = perDay(addDays(asOf, -14), addDays(asOf, -1));
  const prior = perDay(addDays(asOf, -28), addDays(asOf, -15));
  if (prior === 0) return 1;
  return Math.min(TREND_MAX, Math.max(TREND_MIN, recent / prior));
}

/** The same-weekday mean of `date` over the 4 weeks before `asOf`, and how many days it averaged. */
export function baseAsOf(h: OrderHistory, asOf: string, date: string): { mean: number; samples: number } {
  // The same weekday as `date` within asOf-28 … asOf-1: exactly four dates.
  const offset = ((daysBetween(asOf, date) % 7) + 7) % 7; // 0..6: date's weekday relative to asOf
  const sameWeekday = [1, 2, 3, 4].map((k) => addDays(asOf, offset - 7 * k));
  const days = sameWeekday.filter((d) => known(h, d, asOf) && publicHoliday(d) === null);
  if (days.length === 0) return { mean: 0, samples: 0 };
  return { mean: days.reduce((s, d) => s + count(h, d), 0) / days.length, samples: days.length };
}

export function expectedAsOf(h: OrderHistory, asOf: string, date: string, trend = trendAsOf(h, asOf)): number {
  return baseAsOf(h, asOf, date).mean * trend;
}

/** Full weeks between the first completed order and `asOf`. */
export function weeksOfHistory(h: OrderHistory, asOf: string): number {
  return h.firstDay === null ? 0 : Math.max(0, Math.floor(daysBetween(h.firstDay, asOf) / 7));
}

export interface BacktestDay {
  date: string;
  actual: number;
  forecast: number;
}

/**
 * The error the method would have made over the 4 weeks before `asOf`: each of those days forecast
 * as of that day (with only the history before it), compared with what happened. Evaluated are the
 * days with history before them (at least a week) where either orders happened or some were
 * expected (a closed Monday forecast at 0 says nothing). MAPE over the evaluated days with orders;
 * MAE over all evaluated days.
 */
export function backtest(h: OrderHistory, asOf: string): { days: BacktestDay[]; mape: number | null; mae: number | null } {
  const days: BacktestDay[] = [];
  for (const d of dateRange(addDays(asOf, -7 * WEEKS), addDays(asOf, -1))) {
    if (h.firstDay === null || daysBetween(h.firstDay, d) < 7) continue;
    const forecast = expectedAsOf(h, d, d);
    const actual = count(h, d);
    if (actual === 0 && forecast === 0) continue;
    days.push({ date: d, actual, forecast });
  }
  const withOrders = days.filter((d) => d.actual > 0);
  const mape = withOrders.length ? (withOrders.reduce((s, d) => s + Math.abs(d.actual - d.forecast) / d.actual, 0) / withOrders.length) * 100 : null;
  const mae = days.length ? days.reduce((s, d) => s + Math.abs(d.actual - d.forecast), 0) / days.length : null;
  return { days, mape, mae };
}

export type Confidence = 'low' | 'medium' | 'high';

/** Low with less than 4 weeks of history or no back-test; otherwise by the back-test's MAPE: ≤ 15 % high, ≤ 30 % medium. */
export function confidenceOf(weeks: number, mape: number | null): Confidence {
  if (weeks < WEEKS || mape === null) return 'low';
  if (mape <= 15) return 'high';
  if (mape <= 30) return 'medium';
  return 'low';
}

export const round1 = (x: number) => Math.round(x * 10) / 10;
export const round2 = (x: number) => Math.round(x * 100) / 100;
