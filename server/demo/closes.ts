import { ManualClock } from '../shared/clock.js';
import { historyWeeks, historyTill } from './orders.js';
import type { DemoContext } from './seed.js';

/** Deterministic pseudo-random numbers, so every demo looks the same. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** How far the counted cash drawer is off now and then (cents): a coin short, a note mixed up. */
const DIFFERENCES = [-5, -10, 20, -50, 5, -135, 10, -20, 50, -200];

/**
 * The day close of every evening of the history (issue 25, docs/till.md "Day close"): after the
 * last guest (23:15 UTC, before the next business day starts at 05:00 in Amsterdam) the manager
 * counts the drawer and makes the Z report through the real journal service: payments by method,
 * discounts, refunds, VAT, cash expected against counted, numbered and chained. Most evenings the
 * drawer is right; now and then it is a few cents or euros off. Runs after every area that books
 * money in the history (orders, web orders); today's business day stays open.
 */
export async function seedDayCloses(ctx: DemoContext): Promise<void> {
  const { runtime, tenant, admin } = ctx;
  const random = rng(20261126);
  const clock = new ManualClock();
  const { journal } = historyTill(ctx, clock);
  const now = runtime.clock.now();
  const today = await journal.dayOf(tenant.id, now);
  const weeks = historyWeeks();
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - weeks * 7);
  let closes = 0;
  let off = 0;
  for (let d = 0; d <= weeks * 7; d++) {
    const day = new Date(start + d * 86_400_000).toISOString().slice(0, 10);
    if (day >= today) break;
    const x = await journal.closes.preview(tenant.id, day);
    if (x.entries === 0) continue; // closed that day (Monday, Tuesday): no service, no close
    clock.set(new Date(`${day}T23:15:00.000Z`));
    const difference = random() < 0.7 ? 0 : DIFFERENCES[Math.floor(random() * DIFFERENCES.length)]!;
    if (difference !== 0) off += 1;
    await journal.closes.close({ tenantId: tenant.id, userId: admin.id }, { business_date: day, cash_counted_cents: Math.max(0, x.cash_expected_cents + difference) });
    closes += 1;
  }
  ctx.counts.day_closes = closes;
  ctx.counts.day_closes_cash_off = off;
}
