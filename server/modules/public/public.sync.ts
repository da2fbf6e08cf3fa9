import { z } from 'zod';
import type { PublicOrdersTable } from '../../db/database.js';
import { insertIfAbsent, parsePayload } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
import { assertNotForeign } from '../payments/payments.sync.js';
import { ORDER_TYPES } from './public.schemas.js';

const PublicOrderRow = z
  .object({
    id: z.uuid(),
    tenant_id: z.uuid().optional(),
    type: z.enum(ORDER_TYPES),
    customer_email: z.email().max(200).nullable(),
    table_name: z.string().max(60).nullable(),
    delivery_address: z.string().max(300).nullable(),
    payment_required: z.union([z.literal(0), z.literal(1)]),
    appliance_silent_since: z.string().max(40).nullable(),
    created_at: z.string().min(10).max(40),
  })
  .loose();
const PublicOrderPayload = z.object({ public_order: PublicOrderRow });

/** What a guest's order adds to the order: written once where it was accepted, a ledger (insert if absent). */
export const publicSync: EntityDescriptor[] = [
  {
    entity: 'public_order',
    merge: 'ledger',
    tables: ['public_orders'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'public_order.created' && change.kind !== 'public_order.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const row = parsePayload(PublicOrderPayload, change.payload, 'een publieke bestelling', ctx).public_order;
      if (row.id !== change.entity_id) throw new RejectOp('Ongeldige publieke bestelling.');
      await assertNotForeign(trx, 'orders', row.id, change.tenant_id, 'De bestelling');
      const existing = await trx.selectFrom('public_orders').select('tenant_id').where('id', '=', row.id).executeTakeFirst();
      if (existing && existing.tenant_id !== change.tenant_id) throw new RejectOp('Deze bestelling hoort bij een ander restaurant.');
      const next: PublicOrdersTable = {
        id: row.id,
        tenant_id: change.tenant_id,
        type: row.type,
        customer_email: row.customer_email,
        table_name: row.table_name,
        delivery_address: row.delivery_address,
        payment_required: row.payment_required,
        appliance_silent_since: row.appliance_silent_since,
        created_at: row.created_at,
      };
      await insertIfAbsent(trx, 'public_orders', next as PublicOrdersTable & Record<string, unknown>);
      return { payload: { public_order: next } };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('public_orders').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map((r) => ({ entity: 'public_order', entity_id: r.id, kind: 'public_order.snapshot', payload: { public_order: r }, created_at: r.created_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
