import { z } from 'zod';
import type { OrderPaymentsTable, ReceiptsTable } from '../../db/database.js';
import { assertTenantRef, insertIfAbsent, parsePayload } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
import { assertNotForeign, flushPendingOrders, overpaidNote, tillPaidOf } from '../orders/orders.sync.js';
import { PAYMENT_METHODS } from './till.rules.js';

/**
 * The till across sync (CONTRACT §19, docs/till.md "Across sync"). Discounts and the guest at the
 * till are ops of the order (orders.sync.ts); a bill's move is an op of the bill (floor.sync.ts).
 * Here:
 *
 * - `order_payment`: a payment at the till on an order without a table is a ledger row with its own
 *   id, inserted once (a payment pushed twice, or seen again in a page, counts once; payments made on
 *   both sides of an outage are both kept: they are real money). When the union pays more than the
 *   order's total after discounts, the cloud answers the op as a visible `conflict` (in
 *   `/sync/status`) saying how much to give back; nothing is dropped.
 * - `receipt`: receipts are numbered only by the node that numbers the restaurant's receipts (the
 *   appliance; the cloud for a restaurant without one), so the numbers stay gapless; they replicate
 *   as read-only copies (a union by id), so the other side shows the same number. A copy whose
 *   number another receipt of the restaurant holds is refused (recorded), never renumbered.
 */

const Timestamp = z.iso.datetime({ offset: true });
const PaymentWire = z.object({
  id: z.uuid(),
  order_id: z.uuid(),
  amount_cents: z.number().int().min(1).max(10_000_000),
  tip_cents: z.number().int().min(0).max(1_000_000),
  method: z.enum(PAYMENT_METHODS),
  received_cents: z.number().int().min(0).max(100_000_000).nullable(),
  change_cents: z.number().int().min(0).max(100_000_000),
  items: z
    .string()
    .max(50_000)
    .refine((t) => {
      try {
        return Array.isArray(JSON.parse(t));
      } catch {
        return false;
      }
    }, { message: 'moet een lijst zijn.' }),
  created_by: z.uuid().nullable(),
  created_at: Timestamp,
});
const ReceiptWire = z.object({
  id: z.uuid(),
  series: z.string().regex(/^\d{4}$/),
  seq: z.number().int().min(1).max(99_999_999),
  number: z.string().regex(/^\d{4}-\d{6,8}$/),
  bill_id: z.uuid().nullable(),
  order_id: z.uuid().nullable(),
  total_cents: z.number().int().min(0).max(1_000_000_000),
  paid_at: Timestamp,
  created_at: Timestamp,
});

export const ORDER_PAYMENT_ENTITY = 'order_payment';
export const RECEIPT_ENTITY = 'receipt';

export const tillSync: EntityDescriptor[] = [
  {
    entity: ORDER_PAYMENT_ENTITY,
    merge: 'ledger',
    // Append-only: an echo the cloud kept as sent changes nothing here.
    echo: 'skip-equal',
    tables: ['order_payments'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'order_payment.recorded' && change.kind !== 'order_payment.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const pay = parsePayload(PaymentWire, (change.payload as { payment?: unknown } | null)?.payment, 'een betaling');
      if (pay.id !== change.entity_id) throw new RejectOp('Ongeldige betaling.');
      const existing = await trx.selectFrom('order_payments').select('tenant_id').where('id', '=', pay.id).executeTakeFirst();
      if (existing) {
        if (existing.tenant_id !== change.tenant_id) throw new RejectOp('Deze betaling hoort bij een ander restaurant.');
        return { payload: { payment: pay } };
      }
      const merging = ctx.side === 'cloud' && ctx.mode === 'merge';
      if (merging) {
        await assertTenantRef(trx, 'users', pay.created_by, change.tenant_id, 'De medewerker van deze betaling', ctx.batch);
        await assertNotForeign(trx, 'orders', pay.order_id, change.tenant_id, 'De bestelling van deze betaling');
      }
      const row: OrderPaymentsTable = { ...pay, tenant_id: change.tenant_id };
      await insertIfAbsent(trx, 'order_payments', row as OrderPaymentsTable & Record<string, unknown>);
      if (!merging) return { payload: { payment: pay } };
      // Over-paid? The order as it stands here (the batch's pending orders written first).
      await flushPendingOrders(trx, ctx);
      const order = await trx.selectFrom('orders').select(['number', 'total_cents']).where('id', '=', pay.order_id).executeTakeFirst();
      const paid = await tillPaidOf(trx, pay.order_id);
      if (order && paid > Number(order.total_cents)) return { payload: { payment: pay }, conflict: overpaidNote(order.number, paid - Number(order.total_cents)) };
      return { payload: { payment: pay } };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('order_payments').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map(({ tenant_id: _t, ...payment }) => ({ entity: ORDER_PAYMENT_ENTITY, entity_id: payment.id, kind: 'order_payment.snapshot', payload: { payment }, created_at: payment.created_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
  {
    entity: RECEIPT_ENTITY,
    merge: 'ledger',
    echo: 'skip-equal',
    tables: ['receipts'],
    async apply(trx, change, ctx) {
      if (change.kind !== 'receipt.issued' && change.kind !== 'receipt.snapshot') throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const r = parsePayload(ReceiptWire, (change.payload as { receipt?: unknown } | null)?.receipt, 'een bon');
      if (r.id !== change.entity_id || r.number !== `${r.series}-${String(r.seq).padStart(6, '0')}`) throw new RejectOp('Ongeldige bon.');
      const clash = await trx
        .selectFrom('receipts')
        .select(['id', 'tenant_id'])
        .where((eb) => eb.or([eb('id', '=', r.id), eb.and([eb('tenant_id', '=', change.tenant_id), eb('series', '=', r.series), eb('seq', '=', r.seq)])]))
        .execute();
      const same = clash.find((c) => c.id === r.id);
      if (same) {
        if (same.tenant_id !== change.tenant_id) throw new RejectOp('Deze bon hoort bij een ander restaurant.');
        return;
      }
      if (clash.length > 0) throw new RejectOp(`Bonnummer ${r.number} is al gegeven aan een andere bon; deze bon is niet overgenomen.`);
      if (ctx.side === 'cloud' && ctx.mode === 'merge') {
        await assertNotForeign(trx, 'orders', r.order_id, change.tenant_id, 'De bestelling van deze bon');
        await assertNotForeign(trx, 'bills', r.bill_id, change.tenant_id, 'De rekening van deze bon');
      }
      const row: ReceiptsTable = { ...r, tenant_id: change.tenant_id };
      await insertIfAbsent(trx, 'receipts', row as ReceiptsTable & Record<string, unknown>);
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('receipts').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map(({ tenant_id: _t, ...receipt }) => ({ entity: RECEIPT_ENTITY, entity_id: receipt.id, kind: 'receipt.snapshot', payload: { receipt }, created_at: receipt.created_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
