import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { createOrdersService } from '../modules/orders/orders.service.js';
import type { OrderStatus } from '../modules/orders/orders.schemas.js';
import type { DemoContext } from './seed.js';
import { DEMO_MENU, demoModifiers, groupsOf } from './menu.js';

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
  const choices = rng(2023);
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
      // Each guest's main on their seat with its choices (a separate generator: the other draws stay as they were).
      const items = [
        ...Array.from({ length: party }, (_, seat) => {
          const main = pick(mains);
          const modifiers = demoModifiers(groupsOf(ctx, main), choices);
          return { product_id: main.id, quantity: 1, ...(via === 'pos' ? { seat: seat + 1 } : {}), ...(modifiers ? { modifiers } : {}) };
        }),
        { product_id: pick(drinks).id, quantity: party },
      ];
      const { order } = await orders.create({ tenantId: tenant.id, userId: via === 'pos' ? waiter.id : null, via }, { items });
      const actor = { tenantId: tenant.id, userId: waiter.id, via: 'pos' as const };
      if (random() < 0.03) {
        clock.advance(5 * 60_000);
        await orders.setStatus(actor, order.id, 'cancelled');
        continue;
      }
      // The mains (course 2) are fired when the table is ready for them.
      clock.advance(10 * 60_000);
      for (const course of new Set(order.items.filter((i) => i.held).map((i) => i.course))) await orders.fire(actor, order.id, course);
      clock.advance((15 + random() * 30) * 60_000);
      await orders.markPaid(actor, order.id, { provider: via === 'web' ? 'simulator' : 'pin' });
      await orders.setStatus(actor, order.id, 'completed');
      count++;
    }
  }

  // Tonight's service: live orders in every stage, so the kitchen view is never empty. Tables order a
  // starter with the order and their mains (course 2) with their choices, each on a guest's seat;
  // the mains are fired once the order is being prepared, so the first ones still hold course 2.
  const byName = (name: string) => products.find((p) => p.name === name);
  const starterNames = new Set(DEMO_MENU.find(([category]) => category === 'Voorgerechten')?.[1].map(([name]) => name) ?? []);
  const starters = products.filter((p) => starterNames.has(p.name));
  const live: OrderStatus[] = ['new', 'new', 'accepted', 'preparing', 'preparing', 'ready'];
  let n = 0;
  for (const status of live) {
    const waiter = pick(staff);
    const actor = { tenantId: tenant.id, userId: waiter.id, via: 'pos' as const };
    const line = (product: (typeof products)[number] | undefined, seat: number, chosen?: Array<{ option_id: string; quantity?: number }>) => {
      if (!product) return [];
      const modifiers = chosen ?? demoModifiers(groupsOf(ctx, product), choices);
      return [{ product_id: product.id, quantity: 1, seat, ...(modifiers ? { modifiers } : {}) }];
    };
    const option = (product: (typeof products)[number] | undefined, name: string) => groupsOf(ctx, product ?? { modifier_group_ids: [] }).flatMap((g) => g.options).find((o) => o.name === name);
    // The first table: a steak with pepper sauce, medium, for seat 1 and a burger with bacon and cheese for seat 2.
    const steak = byName('Biefstuk met friet');
    const burger = byName('Burger De Gouden Lepel');
    const first = n === 0 && steak && burger;
    const ids = (...xs: Array<{ id: string } | undefined>) => xs.flatMap((x) => (x ? [{ option_id: x.id }] : []));
    const mainsOf = first
      ? [...line(steak, 1, ids(option(steak, 'Pepersaus'), option(steak, 'Medium'))), ...line(burger, 2, ids(option(burger, 'Extra bacon'), option(burger, 'Extra kaas')))]
      : [...line(pick(mains), 1), ...(random() < 0.6 ? line(pick(mains), 2) : [])];
    const { order } = await runtime.services.orders.create(actor, {
      items: [
        ...(starters.length && (first || random() < 0.5) ? line(pick(starters), 1) : []),
        ...mainsOf,
        { product_id: pick(drinks).id, quantity: 2, notes: random() < 0.5 ? 'met ijs' : undefined },
      ],
      notes: random() < 0.3 ? 'Allergie: noten' : undefined,
    });
    n++;
    if (status === 'preparing' || status === 'ready') {
      for (const course of new Set(order.items.filter((i) => i.held).map((i) => i.course))) await runtime.services.orders.fire(actor, order.id, course);
    }
    // One drink was keyed in once too often at the second table.
    if (n === 2) {
      const drink = order.items.find((i) => i.quantity > 1 && !i.held);
      if (drink) await runtime.services.orders.voidItem(actor, order.id, drink.id, { quantity: 1, reason: 'Verkeerd aangeslagen' });
    }
    if (status !== 'new') await runtime.services.orders.setStatus(actor, order.id, status);
  }
  ctx.counts.orders_history = count;
  ctx.counts.orders_live = live.length;
}
