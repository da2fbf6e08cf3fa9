import { AppError } from '../shared/errors.js';
import type { DemoContext } from './seed.js';

/**
 * Partner API and webhooks (issue 16, docs/partners.md): the keys a bistro hands out (a delivery
 * platform that moves orders along, the bookkeeping that reads, and an old till link that was
 * revoked) and one webhook for the delivery platform. The webhook points at `partner.example`, a
 * name that never resolves: orders made in the demo queue deliveries that fail visibly after four
 * attempts, which is what Webhooks → leveringen looks like when a partner is down (an admin can send
 * them again). It receives only events after its creation, so the eight weeks of history send nothing.
 * The keys themselves are not printed: an admin makes a fresh one to try the API.
 */
export async function seedPartners(ctx: DemoContext): Promise<void> {
  const { apiKeys, webhooks } = ctx.runtime.services;
  const tenantId = ctx.tenant.id;
  await apiKeys.create(tenantId, { name: 'Bezorgplatform (bestellingen)', scopes: ['write'] }, ctx.admin.id);
  await apiKeys.create(tenantId, { name: 'Boekhouding (alleen lezen)', scopes: ['read'] }, ctx.admin.id);
  const old = await apiKeys.create(tenantId, { name: 'Oude kassakoppeling', scopes: ['admin'] }, ctx.admin.id);
  await apiKeys.revoke(tenantId, old.id);
  ctx.counts.api_keys = 3;
  try {
    await webhooks.create(
      tenantId,
      { url: 'https://partner.example/webhooks/gouden-lepel', events: ['order.created', 'order.status_changed', 'order.paid'], description: 'Bezorgplatform (demo-adres, bestaat niet)' },
      ctx.admin.id,
    );
    ctx.counts.webhooks = 1;
  } catch (err) {
    // In the cloud the address is checked in DNS first, and this one never resolves: no demo webhook there.
    if (!(err instanceof AppError && err.code === 'VALIDATION')) throw err;
    ctx.counts.webhooks = 0;
  }
}
