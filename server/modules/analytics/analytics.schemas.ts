import { z } from 'zod';
import { Days, Limit } from '../../shared/schemas.js';
import '../../shared/validation.js';

export const DaysQuery = z.object({ days: Days(30, 365) }).strict();
export const TopProductsQuery = z.object({ days: Days(30, 365), limit: Limit }).strict();

const Period = {
  days: z.number().int(),
  from: z.string().meta({ description: 'First business day of the period (YYYY-MM-DD, restaurant’s time zone)' }),
  to: z.string().meta({ description: 'Last business day (today)' }),
};

export const MenuClass = z.enum(['star', 'plowhorse', 'puzzle', 'dog']);
const Level = z.enum(['high', 'low']);

export const MenuEngineeringItem = z
  .object({
    product_id: z.string(),
    name: z.string(),
    quantity: z.number().int(),
    popularity_percent: z.number().meta({ description: 'Share of all items sold, in percent (two decimals): the chart’s x axis' }),
    revenue_cents: z.number().int(),
    price_cents: z.number().int().meta({ description: 'Average price actually charged per item' }),
    cost_cents: z.number().int().nullable().meta({ description: 'Cost of one item: the product’s cost, else its recipe’s ingredient cost; null when unknown (counted as 0)' }),
    margin_cents: z.number().int().meta({ description: 'Contribution margin per item (price minus cost): the chart’s y axis' }),
    margin_total_cents: z.number().int(),
    popularity: Level,
    margin: Level,
    class: MenuClass,
    waste_cost_cents: z.number().int().meta({ description: 'Waste booked against this dish in the period: its own waste plus its share of its ingredients’ waste' }),
    adjusted_margin_cents: z.number().int().meta({ description: 'Margin per item after waste' }),
    adjusted_margin_total_cents: z.number().int(),
    adjusted_margin: Level,
    adjusted_class: MenuClass,
  })
  .meta({ id: 'MenuEngineeringItem' });

export const MenuEngineering = z
  .object({
    ...Period,
    method: z.literal('kasavana_smith'),
    product_count: z.number().int().meta({ description: 'N: products sold in the period' }),
    total_quantity: z.number().int(),
    thresholds: z
      .object({
        popularity_percent: z.number().meta({ description: '70 % of 1/N, in percent: at or above it popularity is high' }),
        popularity_quantity: z.number().meta({ description: 'The same threshold as a quantity (70 % × total / N)' }),
        margin_cents: z.number().meta({ description: 'Sales-weighted average margin per item: at or above it margin is high' }),
        adjusted_margin_cents: z.number().meta({ description: 'The same average after waste' }),
      })
      .meta({ id: 'MenuEngineeringThresholds' }),
    counts: z.object({ star: z.number().int(), plowhorse: z.number().int(), puzzle: z.number().int(), dog: z.number().int() }),
    adjusted_counts: z.object({ star: z.number().int(), plowhorse: z.number().int(), puzzle: z.number().int(), dog: z.number().int() }),
    waste_cost_cents: z.number().int().meta({ description: 'All waste attributed to the dishes analysed' }),
    data: z.array(MenuEngineeringItem),
  })
  .meta({ id: 'MenuEngineering' });
export type MenuEngineering = z.infer<typeof MenuEngineering>;

export const TopProduct = z
  .object({
    rank: z.number().int().meta({ description: '1 + the number of products that sold more; equal quantities share a rank' }),
    product_id: z.string(),
    name: z.string(),
    quantity: z.number().int(),
    revenue_cents: z.number().int(),
    share_percent: z.number().meta({ description: 'Share of all items sold, in percent (two decimals)' }),
  })
  .meta({ id: 'TopProduct' });

export const TopProducts = z
  .object({ ...Period, total_quantity: z.number().int(), total_revenue_cents: z.number().int(), data: z.array(TopProduct) })
  .meta({ id: 'TopProducts' });
export type TopProducts = z.infer<typeof TopProducts>;

// ---- revenue (CONTRACT §19 "Revenue", docs/till.md "Revenue")
const CalendarDate = z.iso.date();
/** Longest period of GET /analytics/revenue, in business days (a year, leap day included). */
export const MAX_REVENUE_DAYS = 366;

export const RevenueQuery = z
  .object({
    from: CalendarDate.optional().meta({ description: 'First business day (YYYY-MM-DD); default six days before `to` (the last 7 days)' }),
    to: CalendarDate.optional().meta({ description: 'Last business day; default today' }),
    group: z.enum(['day', 'hour', 'weekday']).default('day').meta({ description: 'What `data` is grouped by: every business day of the period, the hour of day (00..23) or the weekday (mon..sun)' }),
  })
  .strict();

const RevenueVat = z.object({ rate: z.number(), gross_cents: z.number().int(), vat_cents: z.number().int(), net_cents: z.number().int() });
const RevenueFigures = {
  orders: z.number().int().meta({ description: 'Distinct orders paid (a bill payment counts the orders it paid)' }),
  gross_cents: z.number().int().meta({ description: 'Omzet incl. btw: the payments without tips, as in the day close' }),
  vat_cents: z.number().int(),
  net_cents: z.number().int().meta({ description: 'Omzet excl. btw: gross minus the VAT per rate' }),
  avg_ticket_cents: z.number().int().meta({ description: 'Gross per order, rounded to the cent (0 without orders)' }),
  tips_cents: z.number().int(),
  discounts_cents: z.number().int().meta({ description: 'Discounts given (journal), already out of the gross' }),
};

export const RevenueRow = z
  .object({
    key: z.string().meta({ description: "The business day (YYYY-MM-DD), the hour ('00'..'23', wall clock of the payment) or the weekday ('mon'..'sun')" }),
    ...RevenueFigures,
    days: z.number().int().meta({ description: 'Business days of the period in this row (a weekday: how many of them; an hour: every day of the period)' }),
    labour_cents: z.number().int().nullable().meta({ description: 'Labour cost of the row’s business days (null per hour)' }),
    labour_percent: z.number().nullable().meta({ description: 'Labour over net revenue in percent, one decimal (null without net revenue, and per hour)' }),
  })
  .meta({ id: 'RevenueRow' });

export const Revenue = z
  .object({
    from: CalendarDate,
    to: CalendarDate,
    days: z.number().int(),
    group: z.enum(['day', 'hour', 'weekday']),
    data: z.array(RevenueRow),
    totals: z
      .object({ ...RevenueFigures, voids_cents: z.number().int().meta({ description: 'Items voided (never paid)' }), refunds_cents: z.number().int().meta({ description: 'Money refunded (not taken off the gross, as in the day close)' }) })
      .meta({ id: 'RevenueTotals' }),
    vat: z.array(RevenueVat).meta({ description: 'Per VAT rate over the whole period' }),
    by_method: z.array(z.object({ method: z.string(), count: z.number().int(), amount_cents: z.number().int(), tip_cents: z.number().int() })),
    labour_cents: z.number().int().meta({ description: 'Labour cost: closed shifts within the period’s business days at each employee’s hourly wage' }),
    labour_percent: z.number().nullable().meta({ description: 'labour_cents / net revenue × 100, one decimal; null without net revenue' }),
    labour_hours: z.number().meta({ description: 'Paid hours worked (two decimals)' }),
    labour_unpriced_hours: z.number().meta({ description: 'Hours of employees without an hourly wage (not in labour_cents)' }),
    open_shifts: z.number().int().meta({ description: 'Shifts still running in the period: not counted until they are closed' }),
  })
  .meta({ id: 'Revenue' });
export type Revenue = z.infer<typeof Revenue>;
