import { onTestFinished } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type SeededTenant, type TestApp } from '../../../helpers/app.js';
import { seedMenu, type SeededMenu } from '../../../helpers/factories.js';
import type { ManualClock } from '../../../../server/shared/clock.js';
import { FakeMollie } from './fake-mollie.js';

export const PUBLIC_BASE = 'https://bestel.example.test';

export interface PayWorld {
  t: TestApp;
  r: SeededTenant;
  menu: SeededMenu;
  admin: string;
  staff: string;
  mollie: FakeMollie | null;
  /** How often the orders `paid` hook ran per order id (where loyalty earns its points). */
  paidHooks: Map<string, number>;
}

/** An app with a restaurant and its menu; `mollie: true` runs the Mollie provider against the fake Mollie API. */
export async function payWorld(opts: { mollie?: boolean; env?: Record<string, string>; clock?: ManualClock; cloud?: boolean } = {}): Promise<PayWorld> {
  const mollie = opts.mollie ? await FakeMollie.start() : null;
  if (mollie) onTestFinished(() => mollie.close());
  const env: Record<string, string> = {
    ...(mollie ? { MOLLIE_API_KEY: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM', PUBLIC_BASE_URL: PUBLIC_BASE, MOLLIE_API_ENDPOINT: mollie.url } : {}),
    ...(opts.cloud ? { ROLE: 'cloud', DATABASE_URL: 'postgres://127.0.0.1:5432/unused' } : {}),
    ...opts.env,
  };
  const t = await createTestApp({ env, ...(opts.clock ? { clock: opts.clock } : {}) });
  const r = await t.seedTenant({ name: 'Eetcafé De Proef' });
  const menu = await seedMenu(t, r.id);
  const paidHooks = new Map<string, number>();
  t.services.orders.on('paid', async (_w, _actor, order) => {
    paidHooks.set(order.id, (paidHooks.get(order.id) ?? 0) + 1);
  });
  return { t, r, menu, admin: await r.adminCookie(), staff: await r.staffCookie(), mollie, paidHooks };
}

export const guest = { name: 'Jan Jansen', phone: '06 12345678', email: 'jan@example.test' };

export function publicOrder(w: PayWorld, extra: Record<string, unknown> = {}, slug = w.r.slug) {
  return w.t.req({
    method: 'POST',
    url: `/api/v1/public/order/${slug}`,
    payload: { items: [{ product_id: w.menu.friet.id, quantity: 2 }, { product_id: w.menu.burger.id, quantity: 1 }], customer: guest, type: 'pickup', ...extra },
  });
}

/** A provider callback as Mollie sends it: POST, form body `id=…`. */
export function callback(t: TestApp, id: string, path = '/api/v1/payments/webhook') {
  return t.req({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `id=${encodeURIComponent(id)}` });
}

export async function countChanges(t: TestApp, tenantId: string, kind: string, entityId?: string): Promise<number> {
  let q = t.handle.db.selectFrom('change_log').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).where('kind', '=', kind);
  if (entityId) q = q.where('entity_id', '=', entityId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function countRows(t: TestApp, table: 'orders' | 'payments' | 'public_orders' | 'payment_refunds' | 'payment_simulator', tenantId?: string): Promise<number> {
  const q = tenantId
    ? sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where tenant_id = ${tenantId}`
    : sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`;
  return Number((await q.execute(t.handle.db)).rows[0]!.n);
}

/** Loyalty points of a phone (0 for a phone without a customer). */
export async function pointsOf(t: TestApp, tenantId: string, phone: string): Promise<number> {
  return t.services.loyalty.balanceByPhone(tenantId, phone).then((b) => b.balance, () => 0);
}
