import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { webhooksRepository, type DeliveryRow } from '../../../server/modules/webhooks/webhooks.repository.js';
import { newId } from '../../../server/shared/ids.js';
import { freshDb, lane } from '../../helpers/db.js';

/**
 * The webhook queue's pages on PostgreSQL (migration 0028): a claim changes no indexed column, and
 * each page keeps room for later versions of its rows, so a claim's new row version stays on its
 * row's page (a HOT update, no new entry in any index) instead of being written elsewhere.
 */
describe.runIf(lane === 'postgres')('webhook queue pages (postgres)', () => {
  it('a claim of a queued burst keeps every row on its page, and the claimed rows are the queued ones', async () => {
    const t = await freshDb();
    try {
      const db = t.handle.db;
      const now = '2026-11-29T12:00:00.000Z';
      const tenantId = newId();
      const webhookId = newId();
      await db.insertInto('tenants').values({ id: tenantId, slug: 'de-gouden-lepel', name: 'De Gouden Lepel', settings: '{}', pin_salt: 'salt', created_at: now, updated_at: now, archived_at: null }).execute();
      await db.insertInto('webhook_subscriptions').values({ id: webhookId, tenant_id: tenantId, url: 'http://127.0.0.1:9/hook', events: '["order.created"]', secret: 'whsec_x', description: null, created_by: null, created_at: now, updated_at: now, deleted_at: null }).execute();
      // 200 narrow rows (a claim's batch) queued in one statement, as the consumer queues them: at the default fillfactor these fill their pages.
      const rows: DeliveryRow[] = Array.from({ length: 200 }, () => {
        const eventId = newId();
        return { id: newId(), tenant_id: tenantId, webhook_id: webhookId, event_id: eventId, event_key: `order.created:${eventId}`, event_type: 'order.created', body: '', status: 'pending', attempts: 0, next_attempt_at: now, lock_token: null, locked_until: null, last_attempt_at: null, last_status_code: null, last_error: null, delivered_at: null, created_at: now, updated_at: now };
      });
      await webhooksRepository.enqueue(db, rows);
      const pages = async () => new Map((await sql<{ id: string; page: string }>`select id, (ctid::text::point)[0]::bigint::text as page from webhook_deliveries`.execute(db)).rows.map((r) => [r.id, r.page]));
      const before = await pages();
      const claimed = await webhooksRepository.claimDue(db, 'postgres', '2026-11-29T12:00:01.000Z', 30_000, 'token-1', 200);
      expect(claimed.map((d) => d.id).sort()).toEqual(rows.map((d) => d.id).sort());
      expect(claimed.every((d) => d.lock_token === 'token-1' && d.locked_until !== null)).toBe(true);
      const after = await pages();
      const moved = rows.filter((d) => after.get(d.id) !== before.get(d.id)).length;
      expect(moved).toBe(0);
    } finally {
      await t.drop();
    }
  });
});
