/**
 * Menu engineering (Kasavana-Smith, CONTRACT §14), in one pure function. Over the analysed period,
 * for the N products that sold:
 * - popularity is high when a product's share of all items sold is at least 70 % of 1/N
 *   (quantity × N × 10 ≥ 7 × total quantity, compared in integers);
 * - margin is high when its contribution margin per item (revenue minus quantity × cost, over the
 *   quantity) is at least the sales-weighted average margin (all contribution over all items);
 * - star = high/high, plowhorse = high popularity/low margin, puzzle = low/high, dog = low/low.
 * The waste-adjusted class does the same with the margin lowered by the cost of the waste booked
 * against the dish (its own waste and its share of its ingredients' waste, docs/insights.md).
 */
export type MenuClass = 'star' | 'plowhorse' | 'puzzle' | 'dog';
export type Level = 'high' | 'low';

export interface SaleLine {
  product_id: string;
  name: string;
  quantity: number;
  revenue_cents: number;
  /** Cost of one item (product cost, else its recipe's ingredient cost); null when unknown (counted as 0). */
  unit_cost_cents: number | null;
  /** Waste cost attributed to this dish in the period. */
  waste_cost_cents: number;
}

export interface ClassifiedLine extends SaleLine {
  margin_total_cents: number;
  adjusted_margin_total_cents: number;
  popularity: Level;
  margin: Level;
  class: MenuClass;
  adjusted_margin: Level;
  adjusted_class: MenuClass;
}

export interface Classification {
  product_count: number;
  total_quantity: number;
  total_margin_cents: number;
  total_adjusted_margin_cents: number;
  lines: ClassifiedLine[];
}

export const classOf = (popularity: Level, margin: Level): MenuClass =>
  popularity === 'high' ? (margin === 'high' ? 'star' : 'plowhorse') : margin === 'high' ? 'puzzle' : 'dog';

const big = (n: number) => BigInt(Math.round(n));

export function classify(sales: SaleLine[]): Classification {
  const lines = sales.filter((s) => s.quantity > 0);
  const n = BigInt(lines.length);
  const withMargins = lines.map((s) => {
    const margin = s.revenue_cents - s.quantity * (s.unit_cost_cents ?? 0);
    return { s, margin, adjusted: margin - s.waste_cost_cents };
  });
  const totalQ = lines.reduce((a, s) => a + s.quantity, 0);
  const totalM = withMargins.reduce((a, x) => a + x.margin, 0);
  const totalA = withMargins.reduce((a, x) => a + x.adjusted, 0);
  const Q = big(totalQ);
  const classified = withMargins.map(({ s, margin, adjusted }) => {
    const q = big(s.quantity);
    const popularity: Level = q * n * 10n >= 7n * Q ? 'high' : 'low';
    const marginLevel: Level = big(margin) * Q >= big(totalM) * q ? 'high' : 'low';
    const adjustedLevel: Level = big(adjusted) * Q >= big(totalA) * q ? 'high' : 'low';
    return {
      ...s,
      margin_total_cents: margin,
      adjusted_margin_total_cents: adjusted,
      popularity,
      margin: marginLevel,
      class: classOf(popularity, marginLevel),
      adjusted_margin: adjustedLevel,
      adjusted_class: classOf(popularity, adjustedLevel),
    };
  });
  return { product_count: lines.length, total_quantity: totalQ, total_margin_cents: totalM, total_adjusted_margin_cents: totalA, lines: classified };
}
