import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { createOrdersService } from '../modules/orders/orders.service.js';
import type { OrderStatus } from '../modules/orders/orders.schemas.js';
import type { DemoContext } from './seed.js';

/** Deterministic pseudo-random numbers, so every demo looks the same. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Orders per opening day (Wed..Sun), before ±25 % noise and a gentle upward trend. */
const PER_WEEKDAY: Record<number, number> = { 3: 24, 4: 28, 5: 42, 6: 50, 0: 32 };
/** Eight weeks (CONTRACT §15); DEMO_HISTORY_WEEKS (0..52) makes a smaller demo, e.g. for tests. */
export function historyWeeks(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.DEMO_HISTORY_WEEKS ?? 8);
  return Number.isInteger(n) && n >= 0 && n <= 52 ? n : 8;
}

/**
 * Eight weeks of service (for forecasts, analytics and payroll) and a handful of live orders.
 * History is written through the real orders service and change log, with a clock set to each
 * order's moment, so it is indistinguishable from orders taken back then.
 */
export async function seedOrders(ctx: DemoContext): Promise<void> {
  const { runtime, tenant } = ctx;
  const products = (ctx.products ?? []).filter((p) => p.available);
  if (products.length === 0) return;
  const random = rng(20261121);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const mains = products.filter((p) => p.price_cents >= 1700);
  const drinks = products.filter((p) => p.price_cents < 600 && p.vat_rate !== null);
  const clock = new ManualClock();
  const changes = new ChangeLog(runtime.handle.db, clock, runtime.changes.origin);
  const orders = createOrdersService({ db: runtime.handle.db, changes, menu: runtime.services.menu, tenants: runtime.services.tenants });
  const staff = ctx.staff.filter((s) => s.job === 'bediening' || s.job === 'bar');

  const today = runtime.clock.now();
  const weeks = historyWeeks();
  const startDay = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - weeks * 7));
  let count = 0;
  for (let d = 0; d < weeks * 7; d++) {
    const day = new Date(startDay.getTime() + d * 86_400_000);
    const base = PER_WEEKDAY[day.getUTCDay()];
    if (!base) continue; // closed on Monday and Tuesday
    const trend = 0.85 + (0.3 * d) / (weeks * 7);
    const n = Math.round(base * trend * (0.75 + random() * 0.5));
    for (let i = 0; i < n; i++) {
      // Between 11:00 and 21:00 UTC: lunch and dinner in Amsterdam.
      const at = new Date(day.getTime() + (11 + random() * 10) * 3_600_000);
      clock.set(at);
      const waiter = pick(staff);
      const via = random() < 0.2 ? ('web' as const) : ('pos' as const);
      const party = 1 + Math.floor(random() * 4);
      const items = [
        ...Array.from({ length: party }, () => ({ product_id: pick(mains).id, quantity: 1 })),
        { product_id: pick(drinks).id, quantity: party },
      ];
      const { order } = await orders.create({ tenantId: tenant.id, userId: via === 'pos' ? waiter.id : null, via }, { items });
      const actor = { tenantId: tenant.id, userId: waiter.id, via: 'pos' as const };
      if (random() < 0.03) {
        clock.advance(5 * 60_000);
        await orders.setStatus(actor, order.id, 'cancelled');
        continue;
      }
      clock.advance((25 + random() * 30) * 60_000);
      await orders.markPaid(actor, order.id, { provider: via === 'web' ? 'simulator' : 'pin' });
      await orders.setStatus(actor, order.id, 'completed');
      count++;
    }
  }

  // Tonight's service: live orders in every stage, so the kitchen view is never empty.
  const live: OrderStatus[] = ['new', 'new', 'accepted', 'preparing', 'preparing', 'ready'];
  for (const status of live) {
    const waiter = pick(staff);
    const actor = { tenantId: tenant.id, userId: waiter.id, via: 'pos' as const };
    const { order } = await runtime.services.orders.create(actor, {
      items: [
        { product_id: pick(mains).id, quantity: 1 + Math.floor(random() * 2) },
        { product_id: pick(drinks).id, quantity: 2, notes: random() < 0.5 ? 'met ijs' : undefined },
      ],
      notes: random() < 0.3 ? 'Allergie: noten' : undefined,
    });
    if (status !== 'new') await runtime.services.orders.setStatus(actor, order.id, status);
  }
  ctx.counts.orders_history = count;
  ctx.counts.orders_live = live.length;
}
