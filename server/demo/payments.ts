import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { createOrdersService } from '../modules/orders/orders.service.js';
import { createPaymentsService } from '../modules/payments/payments.service.js';
import { createPaymentProviders } from '../modules/payments/providers.js';
import { createPublicOrdersService } from '../modules/public/public.service.js';
import { createJournalService } from '../modules/journal/journal.service.js';
import { businessDay, dayStart } from '../shared/zoned-time.js';
import { historyWeeks } from './orders.js';
import { demoModifiers } from './menu.js';
import { demoUrl, type DemoContext } from './seed.js';

/** Deterministic pseudo-random numbers, so every demo looks the same. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const GUESTS = ['Sophie de Wit', 'Thomas Vermeulen', 'Lotte Kuipers', 'Milan Prins', 'Julia Huisman', 'Ahmed Benali', 'Noor van Dijk', 'Sem Willems'];

/**
 * Online ordering in the demo (issue 12): eight weeks of guests ordering pickup from the public menu
 * and paying at the checkout (the built-in simulator, as an appliance without a Mollie key has it),
 * now and then a failed payment that the guest tried again, a few partial refunds by the manager;
 * and tonight one order paid and one still waiting at the checkout. Everything goes through the real
 * public-ordering and payments services with a clock set to each moment.
 */
/** The public-ordering and payments services on a clock of their own, and one guest's web order from menu to payment. */
async function webOrdering(ctx: DemoContext, seed: number) {
  const { runtime, tenant } = ctx;
  // What guests can order now (earlier areas may have sold something out): the public menu's products.
  const products = (await runtime.services.menu.staffMenu(tenant.id)).categories.flatMap((c) => c.products).filter((p) => p.available && p.price_cents > 0);
  const random = rng(seed);
  const choices = rng(seed % 10_000);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const clock = new ManualClock();
  const db = runtime.handle.db;
  const changes = new ChangeLog(db, clock, runtime.changes.origin);
  const { tenants, menu, sync } = runtime.services;
  // Online payments and refunds in the journal, on this clock (the day close counts them).
  const journal = createJournalService({ db, changes, clock, tenants, role: 'local' });
  const orders = createOrdersService({ db, changes, menu, tenants, journal });
  const payments = createPaymentsService({ db, changes, clock, orders, journal, providers: createPaymentProviders({ db, clock, config: runtime.config }) });
  const publicOrders = createPublicOrdersService({ db, changes, clock, config: runtime.config, tenants, menu, orders, payments, sync });
  const base = (runtime.config.publicBaseUrl ?? demoUrl(runtime.config)).replace(/\/+$/, '');

  const order = async (i: number, outcome: 'paid' | 'failed' | 'open') => {
    const guest = pick(GUESTS);
    // A dish with choices gets them (the forced sauce and doneness of the steak, an extra now and then).
    const line = (p: (typeof products)[number], quantity: number) => {
      const modifiers = demoModifiers(p.modifier_groups, choices);
      return { product_id: p.id, quantity, ...(modifiers ? { modifiers } : {}) };
    };
    const items = [line(pick(products), 1 + Math.floor(random() * 2)), line(pick(products), 1)];
    const key = `demo-web-${i}`;
    const input = { items, customer: { name: guest, phone: `06${String(20_000_000 + Math.floor(random() * 40_000_000))}` }, type: 'pickup' as const, idempotency_key: key };
    let { body } = await publicOrders.placeOrder(tenant.slug, input, undefined, base);
    if (outcome === 'open') return;
    clock.advance(2 * 60_000);
    if (outcome === 'failed' || random() < 0.12) {
      // The bank said no; the guest tries again a minute later (same order, a fresh checkout).
      await payments.simulator.decide(body.checkout_url!.split('/').pop()!, 'failed');
      await payments.handleCallback([body.checkout_url!.split('/').pop()!]);
      if (outcome === 'failed') return;
      clock.advance(60_000);
      ({ body } = await publicOrders.placeOrder(tenant.slug, input, undefined, base));
    }
    const sim = body.checkout_url!.split('/').pop()!;
    await payments.simulator.decide(sim, 'paid');
    await payments.handleCallback([sim]);
    return body;
  };
  return { products, random, clock, orders, payments, order };
}

/**
 * The eight weeks of web orders (before the stock seeder, which books every completed order's
 * consumption at the moment it completed): each guest pays, and picks the order up half an hour
 * later, so the history ends finished and the kitchen board opens on tonight only (docs/kitchen.md).
 * Now and then the manager refunds part of one the same evening.
 */
export async function seedWebOrders(ctx: DemoContext): Promise<void> {
  const { runtime, tenant, admin } = ctx;
  const { products, random, clock, orders, payments, order } = await webOrdering(ctx, 20261212);
  if (products.length === 0) return;
  const staff = { tenantId: tenant.id, userId: admin.id, via: 'pos' as const };
  const today = runtime.clock.now();
  const weeks = historyWeeks();
  const startDay = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - weeks * 7));
  let paid = 0;
  let refunds = 0;
  let i = 0;
  for (let d = 0; d < weeks * 7; d++) {
    const day = new Date(startDay.getTime() + d * 86_400_000);
    const dow = day.getUTCDay();
    if (dow === 1 || dow === 2) continue; // closed on Monday and Tuesday
    const n = (dow === 5 || dow === 6 ? 4 : 2) + Math.floor(random() * 2);
    for (let k = 0; k < n; k++) {
      clock.set(new Date(day.getTime() + (15 + random() * 4.5) * 3_600_000));
      const body = await order(i++, 'paid');
      if (!body) continue;
      paid += 1;
      // The kitchen fires what waits (a main's course 2), and the guest picks it up half an hour later:
      // completed (the stock seeder books what it used).
      for (const course of new Set(body.order.items.filter((it) => it.held).map((it) => it.course))) await orders.fire(staff, body.order.id, course);
      clock.advance(30 * 60_000);
      await orders.setStatus(staff, body.order.id, 'completed');
      if (random() < 0.05) {
        // Something was missing from the bag: the manager refunds part of it the same evening.
        clock.advance(60 * 60_000);
        await payments.refund({ tenantId: tenant.id, userId: admin.id }, body.payment_id!, 250 + 50 * Math.floor(random() * 6));
        refunds += 1;
      }
    }
  }
  ctx.counts.web_orders = i;
  ctx.counts.payments_paid = paid;
  ctx.counts.refunds = refunds;
}

/**
 * Tonight's web orders (last, after the partner webhook, so they queue its deliveries): one guest has
 * paid and the order waits on the kitchen board, one is still at the checkout.
 */
export async function seedPayments(ctx: DemoContext): Promise<void> {
  const { runtime } = ctx;
  const { products, clock, order } = await webOrdering(ctx, 20261127);
  if (products.length === 0) return;
  const today = runtime.clock.now();
  // Minutes ago, but never before the current business day began: just after it starts (05:00 in the
  // demo's zone), an order 20 minutes old would belong to yesterday and sit under "Niet afgerond".
  const { timezone, business_day_starts_at: startsAt } = await runtime.services.tenants.cachedSettings(ctx.tenant.id);
  const opened = dayStart(businessDay(today, timezone, startsAt), timezone, startsAt).getTime();
  const minutesAgo = (m: number) => new Date(Math.max(opened, today.getTime() - m * 60_000));
  let i = ctx.counts.web_orders ?? 0;
  clock.set(minutesAgo(20));
  if (await order(i++, 'paid')) ctx.counts.payments_paid = (ctx.counts.payments_paid ?? 0) + 1;
  clock.set(minutesAgo(3));
  await order(i++, 'open');
  ctx.counts.web_orders = i;
}
