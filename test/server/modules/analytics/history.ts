import type { TestApp } from '../../../helpers/app.js';
import type { OrderStatus } from '../../../../server/modules/orders/orders.schemas.js';

/**
 * Crafted order histories for the insight tests: orders taken through the real orders service with
 * the test clock set to their moment (so business days come out exactly as in real use), then moved
 * to their final status.
 */
export async function orderAt(
  t: TestApp,
  tenantId: string,
  at: string,
  items: Array<{ product_id: string; quantity: number }>,
  status: OrderStatus = 'completed',
): Promise<string> {
  const keep = t.clock.now();
  t.clock.set(at);
  try {
    const actor = { tenantId, userId: null, via: 'pos' as const };
    const { order } = await t.services.orders.create(actor, { items });
    if (status !== 'new') await t.services.orders.setStatus(actor, order.id, status);
    return order.id;
  } finally {
    t.clock.set(keep);
  }
}

/** `n` completed orders of one item each on a date (at 12:00 UTC, the same date in Amsterdam). */
export async function ordersOn(t: TestApp, tenantId: string, date: string, n: number, productId: string): Promise<void> {
  for (let i = 0; i < n; i++) await orderAt(t, tenantId, `${date}T12:00:${String(i % 60).padStart(2, '0')}.000Z`, [{ product_id: productId, quantity: 1 }]);
}

export function addDays(ymd: string, n: number): string {
  const d = new Date(`${ymd}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}
