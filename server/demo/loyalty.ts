import { ChangeLog } from '../db/change-log.js';
import { ManualClock } from '../shared/clock.js';
import { createLoyaltyService } from '../modules/loyalty/loyalty.service.js';
import type { Order } from '../modules/orders/orders.schemas.js';
import type { DemoContext } from './seed.js';

/** Deterministic pseudo-random numbers, so every demo looks the same. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Regulars of the bistro: (fictional) Dutch mobile numbers written as guests say them. */
const REGULARS: ReadonlyArray<{ name: string; phone: string; email?: string }> = [
  { name: 'Jeroen de Graaf', phone: '06 21436587', email: 'jeroen.degraaf@example.nl' },
  { name: 'Sophie Willems', phone: '0612983746' },
  { name: 'Ahmed Bouzid', phone: '+31 6 3344 5566', email: 'a.bouzid@example.nl' },
  { name: 'Lisa van Dijk', phone: '06-2468-1012' },
  { name: 'Kees Mulder', phone: '0031 6 13572468' },
  { name: 'Noor Hendriks', phone: '06 55443322', email: 'noor@example.nl' },
  { name: 'Tim Vermeulen', phone: '0638712345' },
  { name: 'Fleur Janssens', phone: '+31 6 4567 8910' },
  { name: 'Mohamed El Idrissi', phone: '06 11223344', email: 'mohamed.elidrissi@example.nl' },
  { name: 'Anouk Peters', phone: '0632109876' },
  { name: 'Ruud Kok', phone: '06 28901234' },
  { name: 'Eva Dekker', phone: '+31 6 2233 4455', email: 'eva.dekker@example.nl' },
  { name: 'Bas Brouwer', phone: '06 43218765' },
  { name: 'Julia Smits', phone: '0687651234' },
  { name: 'Thomas Meijer', phone: '06 19283746', email: 'thomas.meijer@example.nl' },
  { name: 'Marloes de Jong', phone: '+32 470 55 66 77' },
];

/**
 * Loyalty (issue 9): regulars who gave their phone number at the till, earning 1 point per whole
 * euro on a share of the eight weeks of paid orders and redeeming 100 points now and then. Written
 * through the real loyalty service at each order's own moment (a clock set to it), like the orders
 * seeder: customers, earn rows linked to the orders, redemptions, all in the change log.
 */
export async function seedLoyalty(ctx: DemoContext): Promise<void> {
  const { runtime, tenant } = ctx;
  const random = rng(90909);
  const clock = new ManualClock();
  const changes = new ChangeLog(runtime.handle.db, clock, runtime.changes.origin);
  const loyalty = createLoyaltyService({ db: runtime.handle.db, changes, tenants: runtime.services.tenants });

  // The paid history, oldest first.
  const paid: Order[] = [];
  for (let offset = 0; ; offset += 200) {
    const page = await runtime.services.orders.list(tenant.id, { statuses: ['completed'] }, 200, offset);
    paid.push(...page.data.filter((o) => o.payment_status === 'paid'));
    if (page.data.length < 200) break;
  }
  paid.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));

  const ids = new Map<number, string>();
  let earned = 0;
  let redeemed = 0;
  for (const order of paid) {
    if (random() >= 0.3) continue; // about three in ten guests give their number
    const i = Math.floor(random() ** 1.7 * REGULARS.length); // some come far more often than others
    const guest = REGULARS[i]!;
    const who = { tenantId: tenant.id, userId: ctx.staff[0]?.id ?? null };
    clock.set(new Date(new Date(order.updated_at).getTime() + 1000));
    if (!ids.has(i)) ids.set(i, (await loyalty.upsert(who, { phone: guest.phone, name: guest.name, ...(guest.email ? { email: guest.email } : {}) })).customer.id);
    const row = await changes.write(tenant.id, (w) => loyalty.earnForOrder(w, who, { ...order, customer: { name: guest.name, phone: guest.phone } }));
    if (row) earned += 1;
    const { balance } = await loyalty.balanceByPhone(tenant.id, guest.phone);
    if (balance >= 100 && random() < 0.6) {
      // A free dessert (100) or a main course (200 or 300) on the next visit's bill.
      clock.advance(60_000);
      await loyalty.redeem(who, { customer_id: ids.get(i)!, points: Math.min(300, 100 * Math.floor(balance / 100)) });
      redeemed += 1;
    }
  }
  ctx.counts.loyalty_customers = ids.size;
  ctx.counts.loyalty_earned = earned;
  ctx.counts.loyalty_redeemed = redeemed;
}
