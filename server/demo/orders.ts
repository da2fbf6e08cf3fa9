import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { conflict } from '../shared/errors.js';
import { createOrdersService, type OrdersService } from '../modules/orders/orders.service.js';
import type { Order, OrderStatus } from '../modules/orders/orders.schemas.js';
import { createJournalService, type JournalService } from '../modules/journal/journal.service.js';
import { createTillService, type TillService } from '../modules/till/till.service.js';
import { createLoyaltyService, type LoyaltyService } from '../modules/loyalty/loyalty.service.js';
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
 * The till of the history on the history's own clock (issue 25): a journal, an orders service that
 * journals, and the till that takes payments and discounts, wired as the composition root wires them
 * (server/modules/index.ts: an order without a table gets its receipt number when paid, a guest
 * attached to it earns points). The
 * journal and the change log are the real ones, so the chain verifies like a real evening's.
 */
export function historyTill(ctx: DemoContext, clock: ManualClock): { changes: ChangeLog; journal: JournalService; orders: OrdersService; till: TillService; loyalty: LoyaltyService } {
  const { runtime } = ctx;
  const db = runtime.handle.db;
  const { tenants, menu, floor } = runtime.services;
  const changes = new ChangeLog(db, clock, runtime.changes.origin);
  const journal = createJournalService({ db, changes, clock, tenants, role: 'local' });
  const orders = createOrdersService({ db, changes, menu, tenants, journal });
  const loyalty = createLoyaltyService({ db, changes, tenants });
  // A paid order with a guest attached earns points (as in server/modules/index.ts).
  orders.on('paid', (w, actor, order) => loyalty.earnForOrder(w, actor, order).then(() => {}));
  const till = createTillService({
    db, changes, orders, floor, loyalty, tenants, journal,
    numbersReceipts: async () => true,
    numbersWhenPaid: true,
    printReceipt: async () => {
      throw conflict('De demo drukt geen bonnen af.');
    },
  });
  orders.on('paid', (w, actor, order) => (order.table_id ? Promise.resolve() : till.issueIn(w, actor.tenantId, { order_id: order.id, total_cents: order.total_cents }).then(() => {})));
  return { changes, journal, orders, till, loyalty };
}

/** A regular who gives his number at the till, and now and then pays part of the bill with his points. */
const REGULAR = { name: 'Jeroen de Graaf', phone: '06 21436587' } as const;

/** A discount now and then, given by the manager with a reason (CONTRACT §19). */
const DISCOUNTS: ReadonlyArray<{ kind: 'percent' | 'amount' | 'comp'; value?: number; line?: 'drink' | 'main'; reason: string }> = [
  { kind: 'percent', value: 10, reason: 'Vaste gast' },
  { kind: 'comp', line: 'drink', reason: 'Lang gewacht op het hoofdgerecht' },
  { kind: 'amount', value: 500, reason: 'Klacht: biefstuk te ver doorgebakken' },
  { kind: 'percent', value: 15, reason: 'Verjaardag' },
  { kind: 'comp', line: 'main', reason: 'Teruggestuurd: koud geserveerd' },
];

/**
 * How a table pays at the till, as a Dutch bistro sees it: mostly pin, a fifth cash (a note handed
 * over, change back), some credit card, now and then a gift card (for the whole bill, or €25 of it
 * and the rest by pin); a tip rounds up to the euro now and then. Through `till.payOrder`: payment
 * rows with their method, received and change, the journal, the order marked paid in full.
 */
async function payAtTill(till: TillService, actor: { tenantId: string; userId: string; via: 'pos' }, order: Order, random: () => number): Promise<void> {
  const total = order.total_cents;
  const r = random();
  const tip = random() < 0.3 ? Math.ceil((total + 1) / 100) * 100 - total + (random() < 0.3 ? 200 : 0) : 0;
  if (r < 0.58) {
    await till.payOrder(actor, order.id, { method: 'pin', amount_cents: total, tip_cents: tip });
  } else if (r < 0.8) {
    const due = total + tip;
    const note = [500, 1000, 2000, 5000].find((n) => n >= due * (random() < 0.5 ? 1 : 1.4)) ?? 5000;
    const received = random() < 0.15 ? due : Math.ceil(due / note) * note;
    await till.payOrder(actor, order.id, { method: 'contant', amount_cents: total, tip_cents: tip, received_cents: received });
  } else if (r < 0.93) {
    await till.payOrder(actor, order.id, { method: 'creditcard', amount_cents: total, tip_cents: tip });
  } else if (total > 2500) {
    await till.payOrder(actor, order.id, { method: 'cadeaubon', amount_cents: 2500 });
    await till.payOrder(actor, order.id, { method: 'pin', amount_cents: total - 2500, tip_cents: tip });
  } else {
    await till.payOrder(actor, order.id, { method: 'cadeaubon', amount_cents: total });
  }
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
  const { orders, till, loyalty } = historyTill(ctx, clock);
  const staff = ctx.staff.filter((s) => s.job === 'bediening' || s.job === 'bar');
  // Separate generators for the till (methods, tips, discounts): the other draws stay as they were.
  const tillRandom = rng(20261125);
  const manager = { tenantId: tenant.id, userId: ctx.admin.id, via: 'pos' as const, role: 'admin' as const };
  let discounts = 0;

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
      if (via === 'web') {
        await orders.markPaid(actor, order.id, { provider: 'simulator' });
      } else {
        let bill = order;
        const guest = tillRandom();
        if (guest < 0.025) {
          // The regular: his number at the till (he earns points when paid); with 100 points saved he pays € 5 with them.
          bill = await till.attachCustomer(actor, order.id, REGULAR);
          if ((await loyalty.balanceByPhone(tenant.id, REGULAR.phone)).balance >= 100 && bill.total_cents > 500 && tillRandom() < 0.6) {
            bill = (await till.addDiscount({ ...actor, role: 'staff' }, order.id, { kind: 'points', value: 100, reason: 'Punten ingewisseld' })).order;
            discounts += 1;
          }
        } else if (guest < 0.05) {
          // The manager gives a discount, with its reason, before the table pays.
          const d = DISCOUNTS[discounts++ % DISCOUNTS.length]!;
          const line = d.line === 'drink' ? order.items.at(-1) : d.line === 'main' ? order.items[0] : undefined;
          bill = (await till.addDiscount(manager, order.id, { kind: d.kind, ...(d.value !== undefined ? { value: d.value } : {}), ...(line ? { item_id: line.id } : {}), reason: d.reason })).order;
        }
        await payAtTill(till, { tenantId: tenant.id, userId: waiter.id, via: 'pos' }, bill, tillRandom);
      }
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
  ctx.counts.discounts = discounts;
  ctx.counts.orders_live = live.length;
}
