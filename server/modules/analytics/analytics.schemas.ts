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
