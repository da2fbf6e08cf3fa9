import type { Executor } from '../../db/connection.js';
import type { PaymentRefundsTable, PaymentSimulatorTable, PaymentsTable } from '../../db/database.js';
import type { PaymentStatus } from './payments.schemas.js';

export type PaymentRow = PaymentsTable;
export type RefundRow = PaymentRefundsTable;
export type SimulatorRow = PaymentSimulatorTable;

export interface PaymentFilter {
  status?: PaymentStatus;
  order_id?: string;
}

export const paymentsRepository = {
  find: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  /** By id alone: callbacks and the guest's return page know no tenant. */
  findAnyTenant: (db: Executor, id: string) => db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst(),

  findByProviderId: (db: Executor, providerPaymentId: string) =>
    db.selectFrom('payments').selectAll().where('provider_payment_id', '=', providerPaymentId).executeTakeFirst(),

  forOrder: (db: Executor, tenantId: string, orderId: string) =>
    db.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId).where('order_id', '=', orderId).orderBy('created_at').orderBy('id').execute(),

  /** Open payments for a bill, for the amount still being paid. */
  openForBill: (db: Executor, tenantId: string, billId: string) =>
    db.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId).where('bill_id', '=', billId).where('status', '=', 'open').execute(),

  /** Open payments of this node's providers older than `before`, for reconciliation. */
  openBefore: (db: Executor, origin: string, before: string, limit: number) =>
    db
      .selectFrom('payments')
      .selectAll()
      .where('origin', '=', origin)
      .where('status', '=', 'open')
      .where('provider_payment_id', 'is not', null)
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(limit)
      .execute(),

  list: (db: Executor, tenantId: string, f: PaymentFilter, limit: number, offset: number) => {
    let q = db.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.order_id) q = q.where('order_id', '=', f.order_id);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
  },

  count: async (db: Executor, tenantId: string, f: PaymentFilter) => {
    let q = db.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.order_id) q = q.where('order_id', '=', f.order_id);
    return Number((await q.executeTakeFirstOrThrow()).n);
  },

  insert: (db: Executor, row: PaymentRow) => db.insertInto('payments').values(row).execute(),

  /** Records the provider's id and checkout once; a concurrent repeat that set the same values changes nothing. */
  /** The provider's payment id and checkout, once: the updated row; undefined when the payment had one already. */
  setProvider: (db: Executor, id: string, providerPaymentId: string, checkoutUrl: string | null, now: string) =>
    db
      .updateTable('payments')
      .set({ provider_payment_id: providerPaymentId, checkout_url: checkoutUrl, updated_at: now })
      .where('id', '=', id)
      .where('provider_payment_id', 'is', null)
      .returningAll()
      .executeTakeFirst(),

  /**
   * The one atomic step of a payment becoming paid: a conditional update that only one of any
   * number of concurrent callbacks (on any node) can win. True when this call made the change.
   */
  markPaid: async (db: Executor, id: string, now: string): Promise<boolean> => {
    const r = await db.updateTable('payments').set({ status: 'paid', paid_at: now, updated_at: now }).where('id', '=', id).where('status', '<>', 'paid').executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  /** open → failed | expired | canceled, once. */
  markClosed: async (db: Executor, id: string, status: 'failed' | 'expired' | 'canceled', now: string): Promise<boolean> => {
    const r = await db.updateTable('payments').set({ status, updated_at: now }).where('id', '=', id).where('status', '=', 'open').executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },

  setNote: (db: Executor, id: string, note: string) => db.updateTable('payments').set({ note }).where('id', '=', id).execute(),

  refundsOf: (db: Executor, paymentIds: string[]) =>
    paymentIds.length === 0
      ? Promise.resolve([] as RefundRow[])
      : db.selectFrom('payment_refunds').selectAll().where('payment_id', 'in', paymentIds).orderBy('created_at').orderBy('id').execute(),

  insertRefund: (db: Executor, row: RefundRow) => db.insertInto('payment_refunds').values(row).execute(),

  updateRefund: (db: Executor, id: string, patch: Partial<Pick<RefundRow, 'status' | 'provider_refund_id' | 'updated_at'>>) =>
    db.updateTable('payment_refunds').set(patch).where('id', '=', id).execute(),

  findRefund: (db: Executor, id: string) => db.selectFrom('payment_refunds').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),

  /**
   * Refunds of payments made on this node (`origin`) that never reached their provider (pending,
   * no provider refund id) and were asked for before `before`: the reconcile job sends them again.
   */
  stuckRefunds: (db: Executor, origin: string, before: string, limit: number) =>
    db
      .selectFrom('payment_refunds')
      .innerJoin('payments', 'payments.id', 'payment_refunds.payment_id')
      .selectAll('payment_refunds')
      .where('payment_refunds.status', '=', 'pending')
      .where('payment_refunds.provider_refund_id', 'is', null)
      .where('payments.origin', '=', origin)
      .where('payment_refunds.created_at', '<', before)
      .limit(limit)
      .execute(),
};

/** The built-in simulator's own records (`payment_simulator`, local-only: the "provider side", simulator.provider.ts). */
export const simulatorRepository = {
  find: (db: Executor, id: string) => db.selectFrom('payment_simulator').selectAll().where('id', '=', id).executeTakeFirst(),
  findByKey: (db: Executor, idempotencyKey: string) => db.selectFrom('payment_simulator').selectAll().where('idempotency_key', '=', idempotencyKey).executeTakeFirstOrThrow(),
  /** Idempotent by the idempotency key: a second insert with the same key keeps the first row. The inserted row; undefined when one with the key was there. */
  insert: (db: Executor, row: SimulatorRow) =>
    db.insertInto('payment_simulator').values(row).onConflict((oc) => oc.column('idempotency_key').doNothing()).returningAll().executeTakeFirst(),
  /** An open payment's outcome (paid, failed, expired); whether this call changed it (only an open one changes). */
  decideIfOpen: async (db: Executor, id: string, status: 'paid' | 'failed' | 'expired', now: string): Promise<boolean> => {
    const res = await db.updateTable('payment_simulator').set({ status, updated_at: now }).where('id', '=', id).where('status', '=', 'open').executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },
  /** Adds a refund to a payment unless it would refund more than was paid; whether it was added. */
  addRefund: async (db: Executor, id: string, amountCents: number, now: string): Promise<boolean> => {
    const res = await db
      .updateTable('payment_simulator')
      .set((eb) => ({ refunded_cents: eb('refunded_cents', '+', amountCents), updated_at: now }))
      .where('id', '=', id)
      .where((eb) => eb(eb('refunded_cents', '+', amountCents), '<=', eb.ref('amount_cents')))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },
  /** Open payments whose time passed (`expires_at <= now`), at most `limit`. */
  due: (db: Executor, now: string, limit: number) => db.selectFrom('payment_simulator').selectAll().where('status', '=', 'open').where('expires_at', '<=', now).limit(limit).execute(),
};
