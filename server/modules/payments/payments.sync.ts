import { z } from 'zod';
import type { Tx } from '../../db/connection.js';
import type { PaymentRefundsTable, PaymentsTable } from '../../db/database.js';
import { assertTenantRef, parsePayload, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor, type TableName } from '../../../sync/types.js';
import { PaymentRowSchema, RefundRowSchema } from './payments.schemas.js';

const PAYMENT_COLUMNS = [
  'id', 'tenant_id', 'origin', 'provider', 'provider_payment_id', 'purpose', 'order_id', 'table_name', 'bill_id', 'amount_cents', 'tip_cents', 'status', 'checkout_url', 'note', 'paid_at', 'created_at', 'updated_at',
] as const satisfies readonly (keyof PaymentsTable)[];
const REFUND_COLUMNS = ['id', 'tenant_id', 'payment_id', 'provider_refund_id', 'amount_cents', 'status', 'created_by', 'created_at', 'updated_at'] as const satisfies readonly (keyof PaymentRefundsTable)[];

const pickColumns = <T>(row: Record<string, unknown>, cols: readonly string[]): T => Object.fromEntries(cols.filter((c) => c in row).map((c) => [c, row[c]])) as T;

/**
 * A referenced row that may still be waiting in the same sync batch (orders are written at the
 * batch's flush): absent is accepted, but a row of ANOTHER tenant is never linked to.
 */
export async function assertNotForeign(trx: Tx, table: TableName, id: string | null | undefined, tenantId: string, what: string): Promise<void> {
  if (!id) return;
  const row = await trx.selectFrom(table as 'orders').select('tenant_id').where('id', '=', id).executeTakeFirst();
  if (row && row.tenant_id !== tenantId) throw new RejectOp(`${what} bestaat niet bij dit restaurant.`);
}

const RANK: Record<PaymentsTable['status'], number> = { open: 0, failed: 1, expired: 1, canceled: 1, paid: 2 };

/**
 * Payment status is monotonic: open → failed | expired | canceled, and paid (from anything) never
 * reverts; of two different closed statuses the first one kept wins. The provider's ids and the
 * checkout are set once; a note staff must see is kept.
 */
export function mergePayment(current: PaymentsTable | undefined, incoming: PaymentsTable): PaymentsTable {
  if (!current) return incoming;
  const status = RANK[incoming.status] > RANK[current.status] ? incoming.status : current.status;
  return {
    ...current,
    status,
    provider_payment_id: current.provider_payment_id ?? incoming.provider_payment_id,
    checkout_url: current.checkout_url ?? incoming.checkout_url,
    note: incoming.note ?? current.note,
    paid_at: current.paid_at ?? (status === 'paid' ? incoming.paid_at : null),
    updated_at: incoming.updated_at > current.updated_at ? incoming.updated_at : current.updated_at,
  };
}

const PaymentPayload = z.object({ payment: PaymentRowSchema });
const RefundPayload = z.object({ refund: RefundRowSchema });
const REFUND_RANK: Record<PaymentRefundsTable['status'], number> = { pending: 0, refunded: 1, failed: 1 };

export const paymentsSync: EntityDescriptor[] = [
  {
    entity: 'payment',
    merge: 'monotonic-status',
    tables: ['payments'],
    async apply(trx, change, ctx) {
      if (!['payment.created', 'payment.updated', 'payment.status_changed', 'payment.snapshot'].includes(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const parsed = parsePayload(PaymentPayload, change.payload, 'een betaling', ctx).payment;
      if (parsed.id !== change.entity_id) throw new RejectOp('Ongeldige betaling.');
      const incoming = { ...pickColumns<PaymentsTable>(parsed, PAYMENT_COLUMNS), tenant_id: change.tenant_id };
      // Only the node that talks to the payment's provider changes it (an appliance cannot pay a cloud payment).
      if (ctx.side === 'cloud' && incoming.origin !== change.origin) throw new RejectOp('Deze betaling hoort bij een ander systeem.');
      await assertNotForeign(trx, 'orders', incoming.order_id, change.tenant_id, 'De bestelling');
      const current = await trx.selectFrom('payments').selectAll().where('id', '=', change.entity_id).executeTakeFirst();
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Deze betaling hoort bij een ander restaurant.');
      const next = mergePayment(current, incoming);
      await upsertById(trx, 'payments', next as PaymentsTable & Record<string, unknown>);
      return { payload: { payment: next } };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map((r) => ({ entity: 'payment', entity_id: r.id, kind: 'payment.snapshot', payload: { payment: r }, created_at: r.updated_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
  {
    entity: 'payment_refund',
    merge: 'ledger',
    tables: ['payment_refunds'],
    async apply(trx, change, ctx) {
      if (!['payment_refund.created', 'payment_refund.updated', 'payment_refund.snapshot'].includes(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const parsed = parsePayload(RefundPayload, change.payload, 'een terugbetaling', ctx).refund;
      if (parsed.id !== change.entity_id) throw new RejectOp('Ongeldige terugbetaling.');
      const incoming = { ...pickColumns<PaymentRefundsTable>(parsed, REFUND_COLUMNS), tenant_id: change.tenant_id };
      await assertTenantRef(trx, 'payments', incoming.payment_id, change.tenant_id, 'De betaling', ctx.batch);
      if (ctx.side === 'cloud') {
        const payment = await trx.selectFrom('payments').select('origin').where('id', '=', incoming.payment_id).executeTakeFirstOrThrow();
        if (payment.origin !== change.origin) throw new RejectOp('Deze betaling hoort bij een ander systeem.');
      }
      const current = await trx.selectFrom('payment_refunds').selectAll().where('id', '=', change.entity_id).executeTakeFirst();
      if (current && (current.tenant_id !== change.tenant_id || current.payment_id !== incoming.payment_id)) throw new RejectOp('Ongeldige terugbetaling.');
      // A ledger row whose status moves forward once (pending → refunded | failed); the amount never changes.
      const next: PaymentRefundsTable = current
        ? {
            ...current,
            status: REFUND_RANK[incoming.status] > REFUND_RANK[current.status] ? incoming.status : current.status,
            provider_refund_id: current.provider_refund_id ?? incoming.provider_refund_id,
            updated_at: incoming.updated_at > current.updated_at ? incoming.updated_at : current.updated_at,
          }
        : incoming;
      await upsertById(trx, 'payment_refunds', next as PaymentRefundsTable & Record<string, unknown>);
      return { payload: { refund: next } };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('payment_refunds').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map((r) => ({ entity: 'payment_refund', entity_id: r.id, kind: 'payment_refund.snapshot', payload: { refund: r }, created_at: r.updated_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];

/** The simulator plays the provider: its records are the provider's side of one node, not restaurant data. */
export const PAYMENTS_LOCAL_ONLY = {
  payment_simulator: "the built-in payment simulator's own records: it plays the provider (the outside world), so they stay on the node that created them",
} as const;
