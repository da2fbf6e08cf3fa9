import { dateRange, wallClock, WEEKDAYS, weekdayOf } from '../../shared/zoned-time.js';
import { vatTable, type SaleFact } from '../journal/journal.closes.js';

/**
 * Revenue for the manager (CONTRACT §19 "Revenue", docs/till.md "Revenue"), in one pure function
 * over the journal's entries of the period (so the money agrees with the day close to the cent):
 * - gross (omzet incl. btw) = the payments without tips, as the close's `orders.gross_cents`;
 * - VAT per rate: each payment split over the rates of the orders it paid as the close splits it,
 *   then per rate vat = gross × rate / (100 + rate) on the bucket's (or the period's) total for that
 *   rate, half away from zero; net = gross − VAT. A day's bucket therefore equals its close; the
 *   buckets' nets may differ from the period's net by rounding cents;
 * - orders: distinct orders paid (a bill payment counts the orders it paid) within the bucket; an
 *   order paid in two hours counts in both hours, once in the period's total;
 * - average ticket = gross / orders, rounded to the cent;
 * - day and weekday buckets by business day (setting business_day_starts_at: 01:30 belongs to the
 *   evening before); hour buckets by the wall-clock hour of the payment in the restaurant's zone;
 * - labour from the shifts per business day (closed shifts at the employee's hourly wage), labour % =
 *   labour / net × 100 (one decimal); hour buckets have no labour (null).
 */
export type RevenueGroup = 'day' | 'hour' | 'weekday';

export interface LabourOfDay {
  cents: number;
  ms: number;
  unpriced_ms: number;
}

export interface RevenueInput {
  from: string;
  to: string;
  group: RevenueGroup;
  timezone: string;
  facts: SaleFact[];
  /** Labour per business day of the period (missing days count 0). */
  labour: ReadonlyMap<string, LabourOfDay>;
  open_shifts: number;
}

interface Acc {
  orders: Set<string>;
  gross: number;
  tips: number;
  discounts: number;
  byRate: Map<number, number>;
  labour: number;
  days: number;
}

const acc = (): Acc => ({ orders: new Set(), gross: 0, tips: 0, discounts: 0, byRate: new Map(), labour: 0, days: 0 });
const hours = (ms: number) => Math.round(ms / 36_000) / 100;
/** Labour as a percentage of net revenue, one decimal; null without net revenue. */
export const labourPercent = (labour: number, net: number): number | null => (net > 0 ? Math.round((labour * 1000) / net) / 10 : null);

function add(a: Acc, f: SaleFact): void {
  if (f.kind === 'payment') {
    a.gross += f.amount_cents;
    a.tips += f.tip_cents;
    for (const o of f.orders) a.orders.add(o);
    for (const [rate, g] of f.rates) a.byRate.set(rate, (a.byRate.get(rate) ?? 0) + g);
  } else if (f.kind === 'discount') a.discounts += f.amount_cents;
}

function figures(a: Acc) {
  const vat = vatTable(a.byRate);
  const vatCents = vat.reduce((s, v) => s + v.vat_cents, 0);
  const orders = a.orders.size;
  return {
    orders,
    gross_cents: a.gross,
    vat_cents: vatCents,
    net_cents: a.gross - vatCents,
    avg_ticket_cents: orders === 0 ? 0 : Math.round(a.gross / orders),
    tips_cents: a.tips,
    discounts_cents: a.discounts,
    vat,
  };
}

export function revenueReport(input: RevenueInput) {
  const days = dateRange(input.from, input.to);
  const keys = input.group === 'day' ? days : input.group === 'weekday' ? [...WEEKDAYS] : Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));
  const buckets = new Map<string, Acc>(keys.map((k) => [k, acc()]));
  const keyOf = (f: SaleFact): string =>
    input.group === 'day' ? f.business_day : input.group === 'weekday' ? weekdayOf(f.business_day) : wallClock(new Date(f.at), input.timezone).time.slice(0, 2);
  const total = acc();
  let voids = 0;
  let refunds = 0;
  const methods = new Map<string, { method: string; count: number; amount_cents: number; tip_cents: number }>();
  for (const f of input.facts) {
    add(total, f);
    const b = buckets.get(keyOf(f));
    if (b) add(b, f);
    if (f.kind === 'void') voids += f.amount_cents;
    if (f.kind === 'refund') refunds += f.amount_cents;
    if (f.kind === 'payment') {
      const m = methods.get(f.method ?? 'overig') ?? { method: f.method ?? 'overig', count: 0, amount_cents: 0, tip_cents: 0 };
      m.count += 1;
      m.amount_cents += f.amount_cents;
      m.tip_cents += f.tip_cents;
      methods.set(m.method, m);
    }
  }
  let labourMs = 0;
  let unpricedMs = 0;
  for (const d of days) {
    const l = input.labour.get(d);
    const key = input.group === 'day' ? d : input.group === 'weekday' ? weekdayOf(d) : null;
    const b = key === null ? undefined : buckets.get(key);
    if (b) b.days += 1;
    if (!l) continue;
    total.labour += l.cents;
    labourMs += l.ms;
    unpricedMs += l.unpriced_ms;
    if (b) b.labour += l.cents;
  }
  const { vat: periodVat, ...t } = figures(total);
  return {
    from: input.from,
    to: input.to,
    days: days.length,
    group: input.group,
    data: keys.map((key) => {
      const b = buckets.get(key)!;
      const { vat: _vat, ...f } = figures(b);
      const hour = input.group === 'hour';
      return {
        key,
        ...f,
        days: hour ? days.length : b.days,
        labour_cents: hour ? null : b.labour,
        labour_percent: hour ? null : labourPercent(b.labour, f.net_cents),
      };
    }),
    totals: { ...t, voids_cents: voids, refunds_cents: refunds },
    vat: periodVat,
    by_method: [...methods.values()].sort((a, b) => a.method.localeCompare(b.method)),
    labour_cents: total.labour,
    labour_percent: labourPercent(total.labour, t.net_cents),
    labour_hours: hours(labourMs),
    labour_unpriced_hours: hours(unpricedMs),
    open_shifts: input.open_shifts,
  };
}
