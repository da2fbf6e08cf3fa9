import type { Db } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, businessDay, dateRange, weekdayOf } from '../../shared/zoned-time.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import { publicHoliday } from '../analytics/calendar.js';
import { forecastRepository } from './forecast.repository.js';
import { backtest, baseAsOf, confidenceOf, round1, round2, trendAsOf, weeksOfHistory, type OrderHistory } from './forecast.rules.js';
import type { Forecast } from './forecast.schemas.js';

/** How far back the history reaches: 4 weeks for the means, 4 more for the back-test's own means and trends. */
const LOOKBACK_DAYS = 8 * 7;

export function createForecastService(deps: { db: Db; clock: Clock; tenants: TenantsService }) {
  const { db, clock, tenants } = deps;

  async function today(tenantId: string): Promise<string> {
    const { timezone } = await tenants.cachedSettings(tenantId);
    return businessDay(clock.now(), timezone);
  }

  async function history(tenantId: string, asOf: string): Promise<OrderHistory> {
    const [counts, firstDay] = await Promise.all([
      forecastRepository.countsByDay(db, tenantId, addDays(asOf, -LOOKBACK_DAYS), addDays(asOf, -1)),
      forecastRepository.firstDay(db, tenantId),
    ]);
    // Orders of today (or later: a clock that went back) are not history yet.
    return { counts, firstDay: firstDay !== null && firstDay < asOf ? firstDay : null };
  }

  /** Expected completed orders for each date (on or after today), as of today (or the given day). */
  async function expectedFor(tenantId: string, dates: string[], asOfDay?: string) {
    const asOf = asOfDay ?? (await today(tenantId));
    const h = await history(tenantId, asOf);
    const trend = trendAsOf(h, asOf);
    const weeks = weeksOfHistory(h, asOf);
    const bt = backtest(h, asOf);
    return {
      asOf,
      trend,
      weeks,
      backtest: bt,
      confidence: confidenceOf(weeks, bt.mape),
      history: h,
      days: dates.map((date) => {
        const { mean, samples } = baseAsOf(h, asOf, date);
        return { date, weekday: weekdayOf(date), expected_orders: round1(mean * trend), base: round2(mean), samples, holiday: publicHoliday(date) };
      }),
    };
  }

  return {
    today,
    expectedFor,

    /** GET /forecast/orders: the next `days` days from today, how far to trust them, and the history to draw them against. */
    async forecast(tenantId: string, days: number): Promise<Forecast> {
      const first = await today(tenantId);
      const f = await expectedFor(tenantId, dateRange(first, addDays(first, days - 1)), first);
      const bt = f.backtest;
      return {
        data: f.days,
        method: 'weekday_mean_4w_trend_14d',
        as_of: f.asOf,
        weeks_of_history: f.weeks,
        trend: round2(f.trend),
        confidence: f.confidence,
        backtest: {
          mape: bt.mape === null ? null : round1(bt.mape),
          mae: bt.mae === null ? null : round2(bt.mae),
          days_evaluated: bt.days.length,
          days: bt.days.map((d) => ({ ...d, forecast: round1(d.forecast) })),
        },
        history: dateRange(addDays(f.asOf, -28), addDays(f.asOf, -1)).map((date) => ({
          date,
          weekday: weekdayOf(date),
          orders: f.history.counts.get(date) ?? 0,
          holiday: publicHoliday(date),
        })),
      };
    },
  };
}

export type ForecastService = ReturnType<typeof createForecastService>;
