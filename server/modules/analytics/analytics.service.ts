import type { Db } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { invalidField } from '../../shared/errors.js';
import { addDays, businessDay, dateRange, dayBounds, daysBetween } from '../../shared/zoned-time.js';
import type { SaleFact } from '../journal/journal.closes.js';
import type { MenuService } from '../menu/menu.service.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import { windowOf } from './calendar.js';
import { analyticsRepository } from './analytics.repository.js';
import { classify, type MenuClass } from './analytics.rules.js';
import { MAX_REVENUE_DAYS, type MenuEngineering, type Revenue, type TopProducts } from './analytics.schemas.js';
import { revenueReport, type LabourOfDay, type RevenueGroup } from './analytics.revenue.js';

/**
 * What the waste area tells analytics (server/modules/waste): the waste cost booked against each
 * dish over business days `from..to`, given what each dish sold (ingredient waste is shared out
 * over the dishes whose recipes use the ingredient, in proportion to what they consumed).
 */
export type WasteCostsByDish = (tenantId: string, from: string, to: string, sold: ReadonlyMap<string, number>) => Promise<Map<string, number>>;
/** The ingredient cost of one item of each product that has a recipe (the stock area's recipes). */
export type RecipeCosts = (tenantId: string, productIds: string[]) => Promise<Map<string, number | null>>;

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);
const emptyCounts = (): Record<MenuClass, number> => ({ star: 0, plowhorse: 0, puzzle: 0, dog: 0 });

export function createAnalyticsService(deps: {
  db: Db;
  clock: Clock;
  tenants: TenantsService;
  menu: MenuService;
  wasteCosts?: WasteCostsByDish;
  recipeCosts?: RecipeCosts;
  /** The journal's money of business days from..to (server/modules/journal): revenue agrees with the day close. */
  sales: (tenantId: string, from: string, to: string) => Promise<SaleFact[]>;
  /** Labour cost per period of instants (server/modules/shifts). */
  labour: (tenantId: string, periods: Array<{ start: number; end: number }>) => Promise<{ periods: LabourOfDay[]; open_shifts: number }>;
}) {
  const { db, clock, tenants, menu } = deps;

  async function period(tenantId: string, days: number) {
    const { timezone } = await tenants.cachedSettings(tenantId);
    return { days, ...windowOf(businessDay(clock.now(), timezone), days) };
  }

  return {
    /** GET /analytics/menu-engineering: Kasavana-Smith over the last `days` business days, classic and after waste. */
    async menuEngineering(tenantId: string, days: number): Promise<MenuEngineering> {
      const p = await period(tenantId, days);
      const sales = await analyticsRepository.salesByProduct(db, tenantId, p.from, p.to);
      const products = new Map((await menu.listProducts(tenantId, true)).map((x) => [x.id, x]));
      const withoutCost = sales.filter((s) => (products.get(s.product_id)?.cost_cents ?? null) === null).map((s) => s.product_id);
      const recipe = deps.recipeCosts && withoutCost.length ? await deps.recipeCosts(tenantId, withoutCost) : new Map<string, number | null>();
      const sold = new Map(sales.map((s) => [s.product_id, s.quantity]));
      const waste = deps.wasteCosts ? await deps.wasteCosts(tenantId, p.from, p.to, sold) : new Map<string, number>();
      const c = classify(
        sales.map((s) => {
          const product = products.get(s.product_id);
          return {
            product_id: s.product_id,
            name: product?.name ?? s.name,
            quantity: s.quantity,
            revenue_cents: s.revenue_cents,
            unit_cost_cents: product?.cost_cents ?? recipe.get(s.product_id) ?? null,
            waste_cost_cents: Math.round(waste.get(s.product_id) ?? 0),
          };
        }),
      );
      const counts = emptyCounts();
      const adjustedCounts = emptyCounts();
      for (const l of c.lines) {
        counts[l.class] += 1;
        adjustedCounts[l.adjusted_class] += 1;
      }
      const n = c.product_count;
      return {
        ...p,
        method: 'kasavana_smith',
        product_count: n,
        total_quantity: c.total_quantity,
        thresholds: {
          popularity_percent: n === 0 ? 0 : Math.round((70 / n) * 100) / 100,
          popularity_quantity: n === 0 ? 0 : Math.round(((0.7 * c.total_quantity) / n) * 100) / 100,
          margin_cents: c.total_quantity === 0 ? 0 : Math.round((c.total_margin_cents / c.total_quantity) * 100) / 100,
          adjusted_margin_cents: c.total_quantity === 0 ? 0 : Math.round((c.total_adjusted_margin_cents / c.total_quantity) * 100) / 100,
        },
        counts,
        adjusted_counts: adjustedCounts,
        waste_cost_cents: c.lines.reduce((s, l) => s + l.waste_cost_cents, 0),
        data: c.lines
          .sort((a, b) => b.quantity - a.quantity || b.margin_total_cents - a.margin_total_cents || a.name.localeCompare(b.name, 'nl'))
          .map((l) => ({
            product_id: l.product_id,
            name: l.name,
            quantity: l.quantity,
            popularity_percent: percent(l.quantity, c.total_quantity),
            revenue_cents: l.revenue_cents,
            price_cents: Math.round(l.revenue_cents / l.quantity),
            cost_cents: l.unit_cost_cents,
            margin_cents: Math.round(l.margin_total_cents / l.quantity),
            margin_total_cents: l.margin_total_cents,
            popularity: l.popularity,
            margin: l.margin,
            class: l.class,
            waste_cost_cents: l.waste_cost_cents,
            adjusted_margin_cents: Math.round(l.adjusted_margin_total_cents / l.quantity),
            adjusted_margin_total_cents: l.adjusted_margin_total_cents,
            adjusted_margin: l.adjusted_margin,
            adjusted_class: l.adjusted_class,
          })),
      };
    },

    /**
     * GET /analytics/revenue: omzet, net, VAT, orders, average ticket, tips and discounts of the
     * business days from..to (default the last 7), grouped per day, hour or weekday, with labour cost
     * and labour % from the shifts (docs/till.md "Revenue").
     */
    async revenue(tenantId: string, q: { from?: string; to?: string; group: RevenueGroup }): Promise<Revenue> {
      const s = await tenants.cachedSettings(tenantId);
      const today = businessDay(clock.now(), s.timezone, s.business_day_starts_at);
      const to = q.to ?? (q.from && q.from > today ? q.from : today);
      const from = q.from ?? addDays(to, -6);
      if (from > to) throw invalidField('from', "mag niet na 'to' liggen.");
      if (daysBetween(from, to) + 1 > MAX_REVENUE_DAYS) throw invalidField('to', `mag hoogstens ${MAX_REVENUE_DAYS - 1} dagen na 'from' liggen (een periode van ten hoogste ${MAX_REVENUE_DAYS} dagen).`);
      const days = dateRange(from, to);
      const [facts, labour] = await Promise.all([
        deps.sales(tenantId, from, to),
        deps.labour(
          tenantId,
          days.map((d) => {
            const b = dayBounds(d, s.timezone, s.business_day_starts_at);
            return { start: b.start.getTime(), end: b.end.getTime() };
          }),
        ),
      ]);
      return revenueReport({
        from, to, group: q.group, timezone: s.timezone, facts, open_shifts: labour.open_shifts,
        labour: new Map(days.map((d, i) => [d, labour.periods[i]!])),
      });
    },

    /** GET /analytics/top-products: by quantity sold (ties: more revenue first, then by name), equal quantities share a rank. */
    async topProducts(tenantId: string, days: number, limit: number): Promise<TopProducts> {
      const p = await period(tenantId, days);
      const sales = await analyticsRepository.salesByProduct(db, tenantId, p.from, p.to);
      const products = new Map((await menu.listProducts(tenantId, true)).map((x) => [x.id, x]));
      const lines = sales
        .filter((s) => s.quantity > 0)
        .map((s) => ({ ...s, name: products.get(s.product_id)?.name ?? s.name }))
        .sort((a, b) => b.quantity - a.quantity || b.revenue_cents - a.revenue_cents || a.name.localeCompare(b.name, 'nl') || a.product_id.localeCompare(b.product_id));
      const totalQ = lines.reduce((s, l) => s + l.quantity, 0);
      const totalR = lines.reduce((s, l) => s + l.revenue_cents, 0);
      let rank = 0;
      return {
        ...p,
        total_quantity: totalQ,
        total_revenue_cents: totalR,
        data: lines.slice(0, limit).map((l, i) => {
          if (i === 0 || lines[i - 1]!.quantity !== l.quantity) rank = i + 1;
          return { rank, product_id: l.product_id, name: l.name, quantity: l.quantity, revenue_cents: l.revenue_cents, share_percent: percent(l.quantity, totalQ) };
        }),
      };
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
