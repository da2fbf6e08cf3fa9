import { z } from 'zod';
import { Days } from '../../shared/schemas.js';
import '../../shared/validation.js';
import { WEEKDAYS } from '../../shared/zoned-time.js';

export const Weekday = z.enum(WEEKDAYS).meta({ description: 'Weekday key, as in the opening hours setting' });
export const HolidayName = z.string().nullable().meta({ description: 'Dutch public holiday on this date (e.g. Koningsdag), or null' });

export const ForecastQuery = z.object({ days: Days(7, 28) }).strict();

export const ForecastDay = z
  .object({
    date: z.string().meta({ description: 'YYYY-MM-DD in the restaurant’s time zone' }),
    weekday: Weekday,
    expected_orders: z.number().meta({ description: 'Expected completed orders (one decimal)' }),
    base: z.number().meta({ description: 'Same-weekday mean over the last 4 weeks (holidays left out)' }),
    samples: z.number().int().meta({ description: 'How many days that mean averaged (0..4)' }),
    holiday: HolidayName,
  })
  .meta({ id: 'ForecastDay' });

export const HistoryDay = z
  .object({ date: z.string(), weekday: Weekday, orders: z.number().int(), holiday: HolidayName })
  .meta({ id: 'ForecastHistoryDay' });

export const BacktestDay = z
  .object({ date: z.string(), actual: z.number().int(), forecast: z.number() })
  .meta({ id: 'ForecastBacktestDay' });

export const Forecast = z
  .object({
    data: z.array(ForecastDay),
    method: z.literal('weekday_mean_4w_trend_14d').meta({ description: 'Same-weekday mean of the last 4 weeks × trend (last 14 days over the 14 before, clamped 0.5..1.5)' }),
    as_of: z.string().meta({ description: 'Today: the forecast uses the completed orders of the days before it' }),
    weeks_of_history: z.number().int(),
    trend: z.number().meta({ description: 'Trend multiplier used (0.5..1.5; 1 with less than 4 weeks of history)' }),
    confidence: z.enum(['low', 'medium', 'high']).meta({ description: 'low with less than 4 weeks of history or a back-test MAPE over 30 %; high at 15 % or less' }),
    backtest: z
      .object({
        mape: z.number().nullable().meta({ description: 'Mean absolute percentage error over the last 4 weeks (days with orders), one decimal; null without such days' }),
        mae: z.number().nullable().meta({ description: 'Mean absolute error in orders per day, two decimals' }),
        days_evaluated: z.number().int(),
        days: z.array(BacktestDay),
      })
      .meta({ id: 'ForecastBacktest' }),
    history: z.array(HistoryDay).meta({ description: 'The last 28 days before today: completed orders per day, for the chart' }),
  })
  .meta({ id: 'Forecast' });
export type Forecast = z.infer<typeof Forecast>;
