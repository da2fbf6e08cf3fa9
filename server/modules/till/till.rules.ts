/**
 * The till's pure rules (issue 25, CONTRACT §19, docs/till.md): payment methods, change, VAT per
 * rate, discounts spread over lines, receipt numbers. No database: the floor and orders services,
 * sync and the demo all call these.
 */
import { conflict, invalidField } from '../../shared/errors.js';

/** How a payment was made. `online` is set by pay-at-table and web payments, never chosen at the till. */
export const PAYMENT_METHODS = ['contant', 'pin', 'creditcard', 'cadeaubon', 'overig', 'online'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
/** The methods staff choose at the till (POST .../payments). */
export const TILL_METHODS = ['contant', 'pin', 'creditcard', 'cadeaubon', 'overig'] as const;

/** The method of a payment row that predates methods (a node one release behind): pay-at-table was online. */
export const legacyMethod = (source: string): PaymentMethod => (source === 'pay_at_table' ? 'online' : 'overig');

/** What a discount is (CONTRACT §19). */
export const DISCOUNT_KINDS = ['percent', 'amount', 'comp', 'points'] as const;
export type DiscountKind = (typeof DISCOUNT_KINDS)[number];

/** n / d rounded half away from zero (integers; d > 0). */
export function divRound(n: number, d: number): number {
  const a = Math.abs(n);
  const q = Math.floor(a / d);
  const r = a - q * d;
  const v = 2 * r >= d ? q + 1 : q;
  return n < 0 ? -v : v;
}

/** The VAT inside a gross amount at `rate` percent: gross × rate / (100 + rate), rounded half away from zero. */
export const vatOf = (gross: number, rate: number): number => divRound(gross * rate, 100 + rate);

export interface VatLine {
  rate: number;
  gross_cents: number;
  vat_cents: number;
  net_cents: number;
}

/** Per rate (ascending): the gross of the lines at that rate, the VAT in it (on the rate's total) and the net. */
export function vatSummary(lines: ReadonlyArray<{ rate: number; gross_cents: number }>): VatLine[] {
  const byRate = new Map<number, number>();
  for (const l of lines) byRate.set(l.rate, (byRate.get(l.rate) ?? 0) + l.gross_cents);
  return vatLines(byRate);
}

/** vatSummary's lines from the gross per rate, by rate. */
function vatLines(byRate: ReadonlyMap<number, number>): VatLine[] {
  // One rate (most orders): nothing to sort.
  if (byRate.size === 1) return [vatLine(...byRate.entries().next().value!)];
  return [...byRate.entries()].sort((a, b) => a[0] - b[0]).map(([rate, gross]) => vatLine(rate, gross));
}

/** One rate's VAT line from its gross. */
function vatLine(rate: number, gross: number): VatLine {
  const vat = vatOf(gross, rate);
  return { rate, gross_cents: gross, vat_cents: vat, net_cents: gross - vat };
}

/** Adds VAT summaries (a bill of several orders, a day): the gross per rate adds up, the VAT is taken on the sum. */
export const mergeVat = (parts: ReadonlyArray<ReadonlyArray<VatLine>>): VatLine[] => vatSummary(parts.flat());

/**
 * Spreads `amount` over lines in proportion to their gross (each share rounded down), the rounding
 * rest on the largest line (the first of equals). Never more than a line's gross; `amount` is
 * clamped to the lines' total.
 */
export function spread(grosses: readonly number[], amount: number): number[] {
  const total = grosses.reduce((s, g) => s + g, 0);
  const take = Math.max(0, Math.min(amount, total));
  if (take === 0 || total === 0) return grosses.map(() => 0);
  const shares = grosses.map((g) => Math.floor((take * g) / total));
  let rest = take - shares.reduce((s, x) => s + x, 0);
  // The rest on the largest; if it would take that line below zero (cannot, as shares are floors), on the next largest.
  const order = grosses.map((g, i) => i).sort((a, b) => grosses[b]! - grosses[a]! || a - b);
  for (const i of order) {
    if (rest === 0) break;
    const room = grosses[i]! - shares[i]!;
    const add = Math.min(room, rest);
    shares[i]! += add;
    rest -= add;
  }
  return shares;
}

export interface PricedLine {
  id: string;
  /** The line's total after voids. */
  total_cents: number;
  vat_rate: number;
}
export interface AppliedDiscount {
  item_id: string | null;
  amount_cents: number;
}

/**
 * Each line's gross after discounts: a line's own discounts first (never below zero), then the
 * order's discounts spread over what is left by amount (`spread`). Returns the lines in the same order.
 */
export function linesAfterDiscounts(lines: readonly PricedLine[], discounts: readonly AppliedDiscount[]): Array<PricedLine & { gross_cents: number; discount_cents: number }> {
  const own = lines.map((l) => Math.min(l.total_cents, discounts.filter((d) => d.item_id === l.id).reduce((s, d) => s + d.amount_cents, 0)));
  const left = lines.map((l, i) => l.total_cents - own[i]!);
  // A discount naming a line that is not (or no longer) there counts as an order discount.
  const ids = new Set(lines.map((l) => l.id));
  const orderWide = discounts.filter((d) => d.item_id === null || !ids.has(d.item_id)).reduce((s, d) => s + d.amount_cents, 0);
  const shares = spread(left, orderWide);
  return lines.map((l, i) => ({ ...l, gross_cents: left[i]! - shares[i]!, discount_cents: own[i]! + shares[i]! }));
}

/** The order's figures: gross before discounts, the discounts that count (never more than the gross), total after them, VAT per rate. */
export function orderFigures(lines: readonly PricedLine[], discounts: readonly AppliedDiscount[]): { gross_cents: number; discount_cents: number; total_cents: number; vat: VatLine[] } {
  if (discounts.length === 0) return undiscountedFigures(lines);
  const after = linesAfterDiscounts(lines, discounts);
  const gross = lines.reduce((s, l) => s + l.total_cents, 0);
  const total = after.reduce((s, l) => s + l.gross_cents, 0);
  return { gross_cents: gross, discount_cents: gross - total, total_cents: total, vat: vatSummary(after.map((l) => ({ rate: l.vat_rate, gross_cents: l.gross_cents }))) };
}

/**
 * `orderFigures` of an order without discounts (most orders; the kitchen board asks it for every
 * order it shows), in one pass: the same figures as `linesAfterDiscounts` with nothing to take off
 * (each line's gross its total, or 0 below zero; no spread) and `vatSummary` of those, without the
 * intermediate arrays and objects.
 */
function undiscountedFigures(lines: readonly PricedLine[]): { gross_cents: number; discount_cents: number; total_cents: number; vat: VatLine[] } {
  let gross = 0;
  let total = 0;
  const byRate = new Map<number, number>();
  for (const l of lines) {
    const after = l.total_cents - Math.min(l.total_cents, 0);
    gross += l.total_cents;
    total += after;
    byRate.set(l.vat_rate, (byRate.get(l.vat_rate) ?? 0) + after);
  }
  return { gross_cents: gross, discount_cents: gross - total, total_cents: total, vat: vatLines(byRate) };
}

/**
 * What a discount takes off `base` (the line's or the order's total left after earlier discounts):
 * percent of it (rounded half away from zero), a fixed amount, all of it (comp), or points × their value;
 * never more than `base`.
 */
export function discountAmount(kind: DiscountKind, value: number | null, base: number, pointValueCents: number): number {
  const raw = kind === 'percent' ? divRound(base * (value ?? 0), 100) : kind === 'amount' ? (value ?? 0) : kind === 'comp' ? base : (value ?? 0) * pointValueCents;
  return Math.max(0, Math.min(base, raw));
}

/** The most staff may take off an order in total (percent of its gross, rounded down). */
export const staffDiscountLimit = (grossCents: number, maxPercent: number): number => Math.floor((grossCents * maxPercent) / 100);

/** Cash: the change for `received` on amount + tip; null when it is not enough. */
export function changeFor(received: number, amount: number, tip: number): number | null {
  const due = amount + tip;
  return received >= due ? received - due : null;
}

const euro = (cents: number): string => `€ ${(cents / 100).toFixed(2).replace('.', ',')}`;

/** A payment as asked for (POST /floorplan/bills/:id/payments, POST /orders/:id/payments), its method resolved. */
export interface TenderInput {
  method: PaymentMethod;
  amount_cents?: number;
  tip_cents?: number;
  received_cents?: number;
  /** The lines chosen to pay (split by dish), if any: the amount is then what they come to. */
  items?: readonly unknown[];
}

/** What a payment takes: the amount, the tip, the cash handed over (contant with `received_cents`, else null) and the change. */
export interface Tendered {
  amount: number;
  tip: number;
  received: number | null;
  change: number;
}

/**
 * A payment's own fields, before anything is read (400s naming the field): an amount or items; the
 * amount a whole number of cents from 1 to 10.000.000; `received_cents` only with contant; the tip
 * whole cents from 0 to 1.000.000. `tender` checks them too; callers check first to refuse early.
 */
export function checkTender(input: TenderInput): void {
  const { amount_cents: amount, tip_cents: tip = 0 } = input;
  if (amount === undefined && !input.items?.length) throw invalidField('amount_cents', "is verplicht (of kies de gerechten in 'items').");
  if (amount !== undefined && (!Number.isInteger(amount) || amount < 1 || amount > 10_000_000)) throw invalidField('amount_cents', 'moet een geheel aantal centen van 1 tot 10.000.000 zijn.');
  if (input.received_cents !== undefined && input.method !== 'contant') throw invalidField('received_cents', "kan alleen bij contante betaling (method 'contant').");
  if (!Number.isInteger(tip) || tip < 0 || tip > 1_000_000) throw invalidField('tip_cents', 'moet een geheel aantal centen van 0 tot 1.000.000 zijn.');
}

/**
 * What a payment takes against what is open (CONTRACT §19, docs/till.md "Payments"), for bills
 * (floor) and orders without a table (till) alike. With chosen items (`due.items_cents`: what they
 * come to) the amount is their sum, and a given `amount_cents` must equal it (400); items that come to
 * nothing are 400. Never more than `due.open_cents` (409). Cash with `received_cents` gives change:
 * received − (amount + tip), 400 when it is less; cash without it is exact. Throws the Dutch errors.
 */
export function tender(input: TenderInput, due: { open_cents: number; items_cents?: number }): Tendered {
  checkTender(input);
  let amount = input.amount_cents ?? 0;
  if (input.items?.length) {
    const sum = due.items_cents ?? 0;
    if (input.amount_cents !== undefined && input.amount_cents !== sum) throw invalidField('amount_cents', `moet gelijk zijn aan wat de gekozen gerechten kosten (${euro(sum)}), of laat het weg.`);
    amount = sum;
    if (amount < 1) throw invalidField('items', 'de gekozen gerechten kosten samen niets; kies andere of geef een bedrag op.');
  }
  if (amount > due.open_cents) throw conflict(`Het bedrag (${euro(amount)}) is hoger dan wat nog openstaat (${euro(due.open_cents)}).`);
  const tip = input.tip_cents ?? 0;
  if (input.method !== 'contant' || input.received_cents === undefined) return { amount, tip, received: null, change: 0 };
  const change = changeFor(input.received_cents, amount, tip);
  if (change === null) throw invalidField('received_cents', `is minder dan te betalen (${euro(amount + tip)}).`);
  return { amount, tip, received: input.received_cents, change };
}

/**
 * What paying `q` more units of a line costs when `paidBefore` of its `units` are paid already and the
 * line's gross after discounts is `gross`: the units share the gross, and all of them together come to
 * exactly `gross` (the rounding lands on the unit that is paid when it arises).
 */
export function unitsShare(gross: number, units: number, paidBefore: number, q: number): number {
  if (units <= 0) return 0;
  return divRound(gross * (paidBefore + q), units) - divRound(gross * paidBefore, units);
}

/** A receipt number: the series (the year) and the sequence, six digits: 2026-000123. */
export const receiptNumber = (series: string, seq: number): string => `${series}-${String(seq).padStart(6, '0')}`;
