import type { WebhookSubscriptionsTable } from '../../db/database.js';
import { assertTenantRef, parsePayload, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
import { WebhookRecord } from './webhooks.schemas.js';
import { toWebhookRecord } from './webhooks.service.js';

const KINDS = new Set(['webhook.created', 'webhook.secret_rotated', 'webhook.deleted', 'webhook.updated']);

/**
 * Webhook subscriptions replicate (docs/partners.md, "Where keys and webhooks live"): the cloud
 * sends the events when there is a cloud, so a webhook registered on the appliance must reach it;
 * an appliance shows the same list as the cloud. The secret travels with the row (through the
 * authenticated sync channel; the sender needs it to sign). Last writer wins on the row in cloud
 * apply order (a secret rotated on both sides of an outage: the rotation the cloud applied last
 * holds, on every side); deletion is sticky. The address rule is not re-checked here: the sender
 * checks every address at every attempt, and a refused one is a failed delivery the admin sees.
 * Deliveries are the sender's own queue (local-only).
 */
export const webhooksSync: EntityDescriptor[] = [
  {
    entity: 'webhook',
    merge: 'lww-fields',
    tables: ['webhook_subscriptions'],
    async apply(trx, change, ctx) {
      if (!KINDS.has(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const p = parsePayload(WebhookRecord, change.payload, 'de webhook');
      if (p.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor de webhook.');
      const current = await trx.selectFrom('webhook_subscriptions').selectAll().where('id', '=', p.id).executeTakeFirst();
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Deze webhook hoort bij een ander restaurant.');
      // A SYNC_KEY is trusted like the restaurant's staff, not its admin (issue 17, SECURITY.md): a
      // device may only delete a webhook the cloud knows; registering one (an address that would
      // receive the restaurant's events) or changing its secret is an admin's act in the cloud.
      const fromDevice = ctx.side === 'cloud' && ctx.mode === 'merge';
      if (fromDevice && !(current && p.deleted_at !== null)) {
        throw new RejectOp('Een webhook wordt alleen in de cloud aangemaakt of gewijzigd; een apparaat mag een webhook alleen verwijderen.');
      }
      if (!current) await assertTenantRef(trx, 'users', p.created_by, change.tenant_id, 'De maker van de webhook', ctx.batch);
      const deleted_at = ctx.mode === 'adopt' ? (p.deleted_at ?? current?.deleted_at ?? null) : (current?.deleted_at ?? p.deleted_at);
      const row: WebhookSubscriptionsTable = {
        id: p.id,
        tenant_id: change.tenant_id,
        // From a device only the deletion counts: address, events and secret stay the cloud's.
        url: fromDevice ? current!.url : p.url,
        events: fromDevice ? current!.events : JSON.stringify(p.events),
        secret: fromDevice ? current!.secret : p.secret,
        description: fromDevice ? current!.description : p.description,
        created_by: current ? current.created_by : p.created_by,
        created_at: current ? current.created_at : p.created_at,
        updated_at: current && current.updated_at > p.updated_at ? current.updated_at : p.updated_at,
        deleted_at,
      };
      await upsertById(trx, 'webhook_subscriptions', row as WebhookSubscriptionsTable & Record<string, unknown>);
      return { payload: toWebhookRecord(row) };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('webhook_subscriptions').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map((r) => ({ entity: 'webhook', entity_id: r.id, kind: 'webhook.updated', payload: toWebhookRecord(r), created_at: r.updated_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
