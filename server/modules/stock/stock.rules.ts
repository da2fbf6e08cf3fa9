import { stableId } from '../../shared/ids.js';
import type { StockMovementType } from '../../db/database.js';

/**
 * The stock rules in one place (docs/stock.md): quantities, the replay that defines a level, the
 * deterministic ids that make a consequence of an order or waste entry exist once, and the
 * purchase formulas. Pure functions: the service, sync apply, the CLI and the tests share them.
 */

/** Quantities are stored as integer thousandths of the product's unit (grams of a kg, ml of a litre). */
export const MILLI = 1000;
/** The largest quantity one movement may carry (CONTRACT §7 leaves it open). */
export const MAX_QUANTITY = 1_000_000;

export const toMilli = (q: number): number => Math.round(q * MILLI);
export const fromMilli = (m: number): number => Number(m) / MILLI;
/** True when `q` has at most three decimals (what the ledger can hold exactly). */
export const hasAtMost3Decimals = (q: number): boolean => Math.abs(q * MILLI - Math.round(q * MILLI)) < 1e-6;

/** Movements that take stock out and that staff may not take below zero (CONTRACT §7). */
export const GUARDED_TYPES: ReadonlySet<StockMovementType> = new Set(['REMOVAL', 'TRANSFER_OUT']);

/** The minimal shape the replay needs. */
export interface ReplayMovement {
  id: string;
  type: StockMovementType;
  quantity_milli: number;
  counted_milli: number | null;
  booked_at: string;
}

/** Replay order: by `booked_at`, then id (a total order every node agrees on). */
export const replayOrder = (a: Pick<ReplayMovement, 'booked_at' | 'id'>, b: Pick<ReplayMovement, 'booked_at' | 'id'>): number =>
  a.booked_at < b.booked_at ? -1 : a.booked_at > b.booked_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * The level of one product at one location = the replay of its movements in replay order: an
 * ADJUSTMENT sets the level to what was counted (the count was true at the moment it was made),
 * every other movement adds its signed quantity. The one definition: the maintained level, `stock
 * verify` and the property test all equal this.
 */
export function replayLevel(movements: ReadonlyArray<ReplayMovement>): number {
  let level = 0;
  for (const m of [...movements].sort(replayOrder)) level = m.type === 'ADJUSTMENT' && m.counted_milli !== null ? Number(m.counted_milli) : level + Number(m.quantity_milli);
  return level;
}

/**
 * The booking key of a movement made on this node now: `now`, or 1 ms after the last movement this
 * node holds for the product and location when that one is not older (a clock behind the other
 * side's). So a movement is replayed after everything its maker could see; only movements made on
 * two sides without seeing each other are ordered by their clocks.
 */
export function nextBookedAt(now: string, last: string | null | undefined): string {
  if (!last || now > last) return now;
  return new Date(new Date(last).getTime() + 1).toISOString();
}

/** The stock area's id namespace (server/shared/ids.ts). */
const NAMESPACE = '6f1d3c2e-8a4b-5c7d-9e0f-1a2b3c4d5e6f';
/**
 * Ids of consequences that either side may book for the same cause (an order completed on both
 * sides during an outage): derived from the cause, so the union of the ledgers keeps one.
 * Deliberately not from the location: a default location changed offline on one side must not
 * make the same order's consumption two rows. FROZEN, do not change: ids already stored and synced
 * (each is ONE part, `kind:id[:id]`, as before `stableId` existed; pinned in
 * test/server/shared/ids.test.ts).
 */
export const saleMovementId = (orderId: string, ingredientId: string): string => stableId(NAMESPACE, `sale:${orderId}:${ingredientId}`);
/** The change-log entity id of one order's consumption (the same on both sides, so a pull rebases onto it). */
export const saleEntityId = (orderId: string): string => stableId(NAMESPACE, `sale:${orderId}`);
export const wasteMovementId = (wasteId: string, productId: string): string => stableId(NAMESPACE, `waste:${wasteId}:${productId}`);
/** The location every node creates alike when a tenant has none and stock must be booked (same id on both sides). */
export const fallbackLocationId = (tenantId: string): string => stableId(NAMESPACE, `default-location:${tenantId}`);

/** Counted units are ordered in whole units; weights and volumes to the gram / millilitre. */
const WHOLE_UNITS = new Set(['stuk', 'fles', 'doos', 'portie', 'gram', 'ml']);

/** Rounds a quantity to order (in milli) up to what can be ordered in that unit. */
export function roundUpToUnit(milli: number, unit: string | null): number {
  if (milli <= 0) return 0;
  return unit && WHOLE_UNITS.has(unit) ? Math.ceil(milli / MILLI) * MILLI : Math.ceil(milli);
}

export const DEFAULT_COVER_DAYS = 7;

export interface SuggestionInput {
  /** Consumption (sales, staff removals, waste) over the lookback window, in milli. */
  consumedMilli: number;
  lookbackDays: number;
  leadDays: number;
  coverDays: number;
  /** The current total over all locations, in milli (may be negative). */
  totalMilli: number;
  unit: string | null;
}

export interface Suggestion {
  daily_use_milli: number;
  /** Days the current stock lasts at that use; null without use. */
  days_of_cover: number | null;
  target_milli: number;
  to_order_milli: number;
}

/**
 * The purchase suggestion (CONTRACT §7, docs/stock.md):
 *   daily use      = consumption over the lookback / lookback days
 *   target         = daily use × (lead days + cover days)
 *   to order       = target − max(total, 0), rounded up to the unit; never below 0
 *   days of cover  = max(total, 0) / daily use
 * A negative total counts as 0: what is not there cannot be used twice. No consumption: nothing.
 */
export function suggest(i: SuggestionInput): Suggestion | null {
  if (i.consumedMilli <= 0) return null;
  const daily = i.consumedMilli / i.lookbackDays;
  const onHand = Math.max(i.totalMilli, 0);
  const target = daily * (i.leadDays + i.coverDays);
  return {
    daily_use_milli: daily,
    days_of_cover: Math.round((onHand / daily) * 10) / 10,
    target_milli: Math.ceil(target),
    to_order_milli: roundUpToUnit(target - onHand, i.unit),
  };
}

/** The shortfall under the minimum level (GET /purchase-list): min_level − total, rounded up to the unit. */
export function shortfall(totalMilli: number, minLevelMilli: number, unit: string | null): number {
  return roundUpToUnit(minLevelMilli - totalMilli, unit);
}
