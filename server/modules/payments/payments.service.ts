import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import { AppError, conflict, isAppError, notFound } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { JournalAppender } from '../journal/journal.service.js';
import type { Actor, OrdersService, PaymentInfo } from '../orders/orders.service.js';
import type { Order } from '../orders/orders.schemas.js';
import { ProviderRefused, ProviderUnavailable, type PaymentProvider, type ProviderName, type ProviderPayment } from './payments.provider.js';
import { paymentsRepository as repo, type PaymentFilter, type PaymentRow, type RefundRow } from './payments.repository.js';
import type { Payment, Refund } from './payments.schemas.js';
import type { Simulator } from './simulator.provider.js';

/** Webhook paths the providers call (payments.routes.ts, public.routes.ts). */
export const ORDER_WEBHOOK_PATH = '/api/v1/payments/webhook';
export const TABLE_WEBHOOK_PATH = '/api/v1/public/tafel-webhook';
/** The guest's return page after a checkout (public.routes.ts). */
export const RETURN_PATH = '/api/v1/public/betaling/';

/** An open payment older than this is looked up at the provider by the reconcile job (a lost callback loses money). */
export const RECONCILE_AFTER_MS = 2 * 60_000;

/**
 * What pay-at-table needs from the floor plan's bills (server/modules/floor, issue 11): recording a
 * paid amount on a bill inside the payment's own transaction. When it pays the bill in full, the
 * bill closes and its unpaid orders are marked paid in that same transaction (orders.markPaidIn,
 * through `via` with `order_payment`): `paid_order_ids`. Refusals (CONFLICT: closed, more than is
 * open; NOT_FOUND) come before anything is written.
 */
export interface BillPayments {
  recordBillPayment(
    w: Writer,
    input: {
      tenantId: string;
      billId: string;
      amount_cents: number;
      tip_cents: number;
      payment_id: string;
      source: 'pay_at_table';
      via: Actor['via'];
      order_payment: PaymentInfo;
    },
  ): Promise<{ closed: boolean; paid_order_ids: string[] }>;
}

export const unavailable = () =>
  new AppError('INTERNAL', 'Online betalen lukt op dit moment niet; probeer het over een paar minuten opnieuw.', { status: 503, headers: { 'retry-after': '30' } });
const providerDown = () =>
  new AppError('INTERNAL', 'De betaalprovider is even niet bereikbaar; probeer het over een paar minuten opnieuw.', { status: 503, headers: { 'retry-after': '30' } });

export function toPaymentDto(row: PaymentRow, refunds: RefundRow[]): Payment {
  const mine = refunds.filter((r) => r.payment_id === row.id);
  return {
    id: row.id,
    provider: row.provider,
    provider_payment_id: row.provider_payment_id,
    purpose: row.purpose,
    order_id: row.order_id,
    table_name: row.table_name,
    amount_cents: row.amount_cents,
    tip_cents: row.tip_cents,
    status: row.status,
    checkout_url: row.checkout_url,
    note: row.note,
    paid_at: row.paid_at,
    refunded_cents: mine.filter((r) => r.status !== 'failed').reduce((s, r) => s + r.amount_cents, 0),
    refunds: mine.map(toRefundDto),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const toRefundDto = (r: RefundRow): Refund => ({
  id: r.id,
  payment_id: r.payment_id,
  amount_cents: r.amount_cents,
  status: r.status,
  provider_refund_id: r.provider_refund_id,
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** A payment row claimed inside its order's transaction (claimOrderPaymentIn), for startOrderPayment. */
export interface OrderPaymentClaim {
  row: PaymentRow;
}

const paymentChange = (row: PaymentRow, kind: string) => ({ entity: 'payment', entityId: row.id, kind, payload: { payment: row } });
const refundChange = (row: RefundRow, kind: string) => ({ entity: 'payment_refund', entityId: row.id, kind, payload: { refund: row } });

export interface StartPaymentInput {
  tenantId: string;
  /** Where the guest's browser reaches this server (PUBLIC_BASE_URL, else the request's own origin). */
  baseUrl: string;
  description: string;
}

export interface Providers {
  /** The provider new payments use: mollie with MOLLIE_API_KEY, else the simulator. */
  active: PaymentProvider;
  simulator: Simulator;
  mollie?: PaymentProvider;
}

export function createPaymentsService(deps: { db: Db; changes: ChangeLog; clock: Clock; orders: OrdersService; providers: Providers; bills?: BillPayments; journal?: JournalAppender; log?: (msg: string, extra?: object) => void }) {
  const { db, changes, clock, orders, providers } = deps;
  let bills = deps.bills;
  const log = deps.log ?? (() => {});
  const providerFor = (name: ProviderName): PaymentProvider | undefined => (name === 'simulator' ? providers.simulator : providers.mollie);

  async function dto(row: PaymentRow): Promise<Payment> {
    return toPaymentDto(row, await repo.refundsOf(db, [row.id]));
  }

  /**
   * A checkout as it was just opened at the provider. An open payment has no refunds (a refund needs
   * a paid payment, and paid never reverts), so none are read for it.
   */
  const checkoutDto = (row: PaymentRow): Promise<Payment> => (row.status === 'open' ? Promise.resolve(toPaymentDto(row, [])) : dto(row));

  /** A new open payment (the claim's insert), recorded as `payment.created` in the caller's transaction. */
  async function insertOpenPayment(w: Writer, tenantId: string, what: Pick<PaymentRow, 'purpose' | 'order_id' | 'table_name' | 'bill_id' | 'amount_cents' | 'tip_cents'>): Promise<PaymentRow> {
    const row: PaymentRow = {
      id: newId(),
      tenant_id: tenantId,
      origin: changes.origin,
      provider: providers.active.name,
      provider_payment_id: null,
      ...what,
      status: 'open',
      checkout_url: null,
      note: null,
      paid_at: null,
      created_at: w.now,
      updated_at: w.now,
    };
    await repo.insert(w.trx, row);
    await w.record(paymentChange(row, 'payment.created'));
    return row;
  }

  /** A new open payment of the whole order. */
  const insertOrderPayment = (w: Writer, tenantId: string, order: Pick<Order, 'id' | 'total_cents'>): Promise<PaymentRow> =>
    insertOpenPayment(w, tenantId, { purpose: 'order', order_id: order.id, table_name: null, bill_id: null, amount_cents: order.total_cents, tip_cents: 0 });

  /** The provider's payment on our row, once (a concurrent repeat may have written it first: then the row as it is). */
  async function withProviderId(w: Writer, row: PaymentRow, answer: ProviderPayment): Promise<PaymentRow> {
    const updated = await repo.setProvider(w.trx, row.id, answer.id, answer.checkout_url, w.now);
    if (!updated) return (await repo.findAnyTenant(w.trx, row.id))!;
    await w.record(paymentChange(updated, 'payment.updated'));
    return updated;
  }

  /** The provider could not be asked (or refused): the row can never be paid, so it stops counting as open. */
  async function providerFailed(row: PaymentRow, err: unknown): Promise<never> {
    await changes.write(row.tenant_id, async (w) => {
      if (await repo.markClosed(w.trx, row.id, 'canceled', w.now)) {
        await repo.setNote(w.trx, row.id, 'De betaalprovider was niet bereikbaar; deze betaling is nooit gestart.');
        await w.record(paymentChange((await repo.findAnyTenant(w.trx, row.id))!, 'payment.status_changed'));
      }
    });
    log('payment provider create failed', { payment: row.id, err: String(err) });
    throw err instanceof ProviderUnavailable || err instanceof ProviderRefused ? unavailable() : err;
  }

  /**
   * Asks the provider to start a checkout for an (uncommitted-to-the-provider) payment row;
   * idempotent by our payment id, so concurrent repeats get the same provider payment.
   */
  async function openAtProvider(row: PaymentRow, input: StartPaymentInput): Promise<PaymentRow> {
    if (row.provider_payment_id) return row;
    const provider = providerFor(row.provider);
    if (!provider) return providerFailed(row, new ProviderUnavailable(`provider ${row.provider} is not configured here`));
    const webhookPath = row.purpose === 'table' ? TABLE_WEBHOOK_PATH : ORDER_WEBHOOK_PATH;
    const request = {
      reference: row.id,
      amount_cents: row.amount_cents + row.tip_cents,
      description: input.description,
      redirect_url: `${input.baseUrl}${RETURN_PATH}${row.id}`,
      webhook_url: `${input.baseUrl}${webhookPath}`,
    };
    if (provider.local) {
      // The simulator's records are rows of this database: its payment and our provider id commit
      // together (one commit instead of its own and ours; bench/README.md "Fewer round trips").
      let asked = false;
      try {
        return await changes.write(row.tenant_id, async (w) => {
          const answer = await provider.create(request, w.trx);
          asked = true;
          return withProviderId(w, row, answer);
        });
      } catch (err) {
        if (asked) throw err;
        return providerFailed(row, err);
      }
    }
    let answer: ProviderPayment;
    try {
      answer = await provider.create(request);
    } catch (err) {
      // Never sent (or not known to be).
      return providerFailed(row, err);
    }
    return changes.write(row.tenant_id, (w) => withProviderId(w, row, answer));
  }

  /**
   * The provider's answer for one of our payments, applied once. Paid: the conditional update on
   * the payment row (only one caller on any node wins it), then the order (orders.markPaidIn: its
   * `paid` hooks earn loyalty points) or the bill (floor.recordBillPayment; paid in full, it closes
   * and marks its orders paid), in the SAME transaction. Failed, expired and cancelled are
   * recorded. Paid never reverts.
   */
  async function settle(row: PaymentRow, answer: ProviderPayment): Promise<boolean> {
    if (answer.status === 'open' || row.status === 'paid') return false;
    if (answer.status !== 'paid' && row.status !== 'open') return false;
    if (answer.status === 'paid' && answer.amount_cents !== row.amount_cents + row.tip_cents) {
      // Not the amount we asked for: money is not what the order says. Staff must look at it.
      log('payment amount mismatch', { payment: row.id, asked: row.amount_cents + row.tip_cents, got: answer.amount_cents });
      await changes.write(row.tenant_id, async (w) => {
        await repo.setNote(w.trx, row.id, `De betaalprovider meldt een ander bedrag (${answer.amount_cents} cent) dan gevraagd; niet als betaald geboekt.`);
        await w.record(paymentChange((await repo.findAnyTenant(w.trx, row.id))!, 'payment.updated'));
      });
      return false;
    }
    const target = answer.status;
    const actor: Actor = { tenantId: row.tenant_id, userId: null, via: 'web' };
    const info: PaymentInfo = { provider: row.provider, payment_id: row.id, amount_cents: row.amount_cents };
    const changed = await changes.write(row.tenant_id, async (w) => {
      let note: string | null = null;
      if (target === 'paid') {
        if (!(await repo.markPaid(w.trx, row.id, w.now))) return false;
        if (row.purpose === 'order' && row.order_id) {
          // Read first (this transaction holds the restaurant's write lock): a paid or cancelled order
          // takes no payment and gets a note. Catching markPaidIn's CONFLICT instead would also catch
          // one thrown by a `paid` hook after the order was written, and commit half of it.
          const current = await orders.getIn(w, row.tenant_id, row.order_id);
          if (current.payment_status === 'paid') note = 'De bestelling was al betaald: dit is een tweede betaling. Betaal deze terug.';
          else if (current.status === 'cancelled') note = 'De bestelling was al geannuleerd toen deze betaling binnenkwam. Betaal deze terug.';
          else {
            await orders.markPaidIn(w, actor, row.order_id, info);
            // Paid online: in the journal, also when its business day was closed meanwhile (then late in the next close).
            await deps.journal?.append(w, {
              tenant_id: row.tenant_id, kind: 'payment', ref_id: row.id, order_id: row.order_id, amount_cents: row.amount_cents, tip_cents: row.tip_cents,
              method: 'online', detail: { source: 'web', provider: row.provider }, allow_closed_day: true,
            });
          }
        } else if (row.purpose === 'table' && row.bill_id) {
          if (!bills) throw new Error('pay-at-table payment without the floor plan');
          try {
            // Paid in full, the bill closes and its orders become paid (their `paid` hooks too) right here.
            await bills.recordBillPayment(w, {
              tenantId: row.tenant_id,
              billId: row.bill_id,
              amount_cents: row.amount_cents,
              tip_cents: row.tip_cents,
              payment_id: row.id,
              source: 'pay_at_table',
              via: actor.via,
              order_payment: info,
            });
          } catch (err) {
            // The money came in, but the bill no longer takes it (paid meanwhile at the counter, closed).
            // recordBillPayment refuses before it writes anything, so nothing of it is committed.
            if (!isAppError(err) || err.code !== 'CONFLICT') throw err;
            note = `De rekening nam deze betaling niet meer aan (${err.message}) Betaal deze terug.`;
          }
        }
      } else if (!(await repo.markClosed(w.trx, row.id, target, w.now))) {
        return false;
      }
      if (note) await repo.setNote(w.trx, row.id, note);
      await w.record(paymentChange((await repo.findAnyTenant(w.trx, row.id))!, 'payment.status_changed'));
      return true;
    });
    return changed;
  }

  /** Looks one of our payments up at its provider and applies the answer; 'unavailable' when it could not be asked. */
  async function refresh(row: PaymentRow): Promise<'changed' | 'unchanged' | 'unknown' | 'unavailable'> {
    const provider = providerFor(row.provider);
    if (!provider || !row.provider_payment_id) return 'unknown';
    let answer: ProviderPayment | null;
    try {
      answer = await provider.get(row.provider_payment_id);
    } catch (err) {
      if (err instanceof ProviderUnavailable) return 'unavailable';
      throw err;
    }
    // Unknown at the provider, or its record names another payment of ours: nothing to act on.
    if (!answer || answer.id !== row.provider_payment_id || (answer.reference !== null && answer.reference !== row.id)) return 'unknown';
    return (await settle(row, answer)) ? 'changed' : 'unchanged';
  }

  return {
    /** The floor plan's bills, once that module is wired (composition root). */
    useBills(b: BillPayments): void {
      bills = b;
    },

    providerName: (): ProviderName => providers.active.name,

    async get(tenantId: string, id: string): Promise<Payment> {
      const row = await repo.find(db, tenantId, id);
      if (!row) throw notFound('Betaling');
      return dto(row);
    },

    /** By id alone, for the guest's return page. */
    async findAnyTenant(id: string): Promise<PaymentRow | undefined> {
      return repo.findAnyTenant(db, id);
    },

    async list(tenantId: string, filter: PaymentFilter, limit: number, offset: number) {
      const [rows, total] = await Promise.all([repo.list(db, tenantId, filter, limit, offset), repo.count(db, tenantId, filter)]);
      const refunds = await repo.refundsOf(db, rows.map((r) => r.id));
      return { data: rows.map((r) => toPaymentDto(r, refunds)), total, limit, offset };
    },

    async forOrder(tenantId: string, orderId: string): Promise<Payment[]> {
      const rows = await repo.forOrder(db, tenantId, orderId);
      const refunds = await repo.refundsOf(db, rows.map((r) => r.id));
      return rows.map((r) => toPaymentDto(r, refunds));
    },

    /**
     * The checkout of a public order: its open payment when there is one (so repeats and retries
     * get the same checkout), else a new one. Null when the order is paid already.
     */
    async startOrderPayment(input: StartPaymentInput & { orderId: string }, claimed?: OrderPaymentClaim): Promise<Payment | null> {
      const claim = async () =>
        changes.write(input.tenantId, async (w) => {
          const order = await orders.getIn(w, input.tenantId, input.orderId);
          if (order.payment_status === 'paid') return null;
          if (order.status === 'cancelled') throw conflict('Deze bestelling is geannuleerd en kan niet meer betaald worden.');
          const existing = (await repo.forOrder(w.trx, input.tenantId, input.orderId)).filter((p) => p.status === 'open' || p.status === 'paid');
          const paid = existing.find((p) => p.status === 'paid');
          if (paid) return paid;
          const open = existing.find((p) => p.status === 'open');
          if (open) return open;
          return insertOrderPayment(w, input.tenantId, order);
        });
      // Claimed in the order's own transaction (claimOrderPaymentIn): the row that claim would find.
      let row = claimed?.row ?? (await claim());
      if (!row) return null;
      // An open payment found again (a retried request) may have ended at the provider meanwhile.
      if (row.status === 'open' && row.provider_payment_id && (await refresh(row)) === 'changed') {
        row = await claim();
        if (!row) return null;
      }
      if (row.status === 'paid') return dto(row);
      return checkoutDto(await openAtProvider(row, input));
    },

    /**
     * `startOrderPayment`'s claim for an order created in this very transaction (`w`), so the
     * payment row and its `payment.created` commit with the order (the public order: one
     * transaction instead of two). A new order has no payment yet and is neither paid nor
     * cancelled, so this is what the claim would insert. Pass the result to `startOrderPayment`.
     */
    async claimOrderPaymentIn(w: Writer, tenantId: string, order: Order): Promise<OrderPaymentClaim> {
      return { row: await insertOrderPayment(w, tenantId, order) };
    },

    /**
     * A pay-at-table payment of `amount` (+ tip) on a bill whose `openCents` the floor plan just
     * gave: never more than is open, counting payments still open for that bill (checked inside
     * the tenant's write lock, so two guests paying at once cannot both take the same euros).
     */
    async startTablePayment(input: StartPaymentInput & { tableName: string; billId: string; amountCents: number; tipCents: number; openCents: number; recheckOpen: () => Promise<number> }): Promise<Payment> {
      const tooMuch = (available: number) =>
        conflict(
          available <= 0
            ? 'Er staat voor deze tafel niets meer open om te betalen (of een andere betaling is nog bezig).'
            : `Dit bedrag is hoger dan wat er nog openstaat voor deze tafel (nog € ${(available / 100).toFixed(2).replace('.', ',')}).`,
        );
      const row = await changes.write(input.tenantId, async (w) => {
        const pending = (await repo.openForBill(w.trx, input.tenantId, input.billId)).reduce((s, p) => s + p.amount_cents, 0);
        const available = input.openCents - pending;
        if (input.amountCents > available) throw tooMuch(available);
        return insertOpenPayment(w, input.tenantId, { purpose: 'table', order_id: null, table_name: input.tableName, bill_id: input.billId, amount_cents: input.amountCents, tip_cents: input.tipCents });
      });
      // Optimistic re-check with the bill as it is now: a payment that became paid between the
      // floor's answer and our claim lowered what is open. Over-committed: withdraw ours.
      const openNow = await input.recheckOpen();
      const others = (await repo.openForBill(db, input.tenantId, input.billId)).filter((p) => p.id !== row.id).reduce((s, p) => s + p.amount_cents, 0);
      if (input.amountCents > openNow - others) {
        await changes.write(input.tenantId, async (w) => {
          if (await repo.markClosed(w.trx, row.id, 'canceled', w.now)) await w.record(paymentChange((await repo.findAnyTenant(w.trx, row.id))!, 'payment.status_changed'));
        });
        throw tooMuch(openNow - others);
      }
      return checkoutDto(await openAtProvider(row, input));
    },

    /**
     * A provider callback naming payment ids (POST /payments/webhook: one; POST /public/tafel-webhook:
     * a batch). Never trusted: each id we know is looked up at its provider and only that answer
     * changes anything; ids we do not know change nothing. Throws 503 when a provider could not be
     * asked, so the provider sends the callback again.
     */
    async handleCallback(ids: string[]): Promise<{ received: number; changed: number; unknown: number }> {
      let changed = 0;
      let unknown = 0;
      let down = false;
      for (const id of [...new Set(ids)]) {
        const row = await repo.findByProviderId(db, id);
        if (!row) {
          unknown += 1;
          continue;
        }
        const r = await refresh(row);
        if (r === 'changed') changed += 1;
        else if (r === 'unknown') unknown += 1;
        else if (r === 'unavailable') down = true;
      }
      if (down) throw providerDown();
      return { received: ids.length, changed, unknown };
    },

    /**
     * Refunds all or part of a paid payment through its provider (admin). The refund row is
     * written first (pending), inside the tenant's write lock, so concurrent refunds can never add
     * up to more than was paid; the provider is then asked with the refund's id as idempotency key.
     */
    async refund(actor: { tenantId: string; userId: string }, id: string, amountCents?: number): Promise<{ payment: Payment; refund: Refund }> {
      const row = await repo.find(db, actor.tenantId, id);
      if (!row) throw notFound('Betaling');
      const provider = providerFor(row.provider);
      if (row.status !== 'paid') throw conflict('Alleen een betaalde betaling kan worden terugbetaald.');
      if (row.origin !== changes.origin || !provider || !row.provider_payment_id) {
        throw conflict('Deze betaling is op een ander systeem gestart (de cloud); terugbetalen kan alleen daar.');
      }
      const refund = await changes.write(actor.tenantId, async (w) => {
        const done = (await repo.refundsOf(w.trx, [row.id])).filter((r) => r.status !== 'failed').reduce((s, r) => s + r.amount_cents, 0);
        const left = row.amount_cents + row.tip_cents - done;
        if (left <= 0) throw conflict('Deze betaling is al volledig terugbetaald.');
        const amount = amountCents ?? left;
        if (amount > left) throw conflict(`Het bedrag is hoger dan wat nog terugbetaald kan worden (nog € ${(left / 100).toFixed(2).replace('.', ',')}).`);
        const r: RefundRow = {
          id: newId(),
          tenant_id: actor.tenantId,
          payment_id: row.id,
          provider_refund_id: null,
          amount_cents: amount,
          status: 'pending',
          created_by: actor.userId,
          created_at: w.now,
          updated_at: w.now,
        };
        await repo.insertRefund(w.trx, r);
        await w.record(refundChange(r, 'payment_refund.created'));
        // The refund in the journal (CONTRACT §19); refused in a closed business day like any booking.
        await deps.journal?.append(w, {
          tenant_id: actor.tenantId, kind: 'refund', ref_id: r.id, order_id: row.order_id, bill_id: row.bill_id, amount_cents: amount, method: 'online', user_id: actor.userId,
          detail: { payment_id: row.id, provider: row.provider },
        });
        return r;
      });
      const result = await this.sendRefund(row, refund);
      return { payment: await dto((await repo.find(db, actor.tenantId, id))!), refund: toRefundDto(result) };
    },

    /** Asks the provider to carry out a pending refund (also the reconcile job's retry); idempotent by the refund's id. */
    async sendRefund(row: PaymentRow, refund: RefundRow): Promise<RefundRow> {
      const provider = providerFor(row.provider)!;
      try {
        const answer = await provider.refund(row.provider_payment_id!, refund.amount_cents, refund.id);
        return await changes.write(row.tenant_id, async (w) => {
          await repo.updateRefund(w.trx, refund.id, { provider_refund_id: answer.id, status: answer.status, updated_at: w.now });
          const updated = await repo.findRefund(w.trx, refund.id);
          await w.record(refundChange(updated, 'payment_refund.updated'));
          return updated;
        });
      } catch (err) {
        if (err instanceof ProviderRefused) {
          await changes.write(row.tenant_id, async (w) => {
            await repo.updateRefund(w.trx, refund.id, { status: 'failed', updated_at: w.now });
            await w.record(refundChange(await repo.findRefund(w.trx, refund.id), 'payment_refund.updated'));
            // The journal is append-only: a refund that did not happen is undone by an entry of minus its amount.
            await deps.journal?.append(w, {
              tenant_id: row.tenant_id, kind: 'refund', ref_id: refund.id, order_id: row.order_id, bill_id: row.bill_id, amount_cents: -refund.amount_cents, method: 'online',
              detail: { payment_id: row.id, failed: true }, allow_closed_day: true,
            });
          });
          log('refund refused by the provider', { payment: row.id, reason: err.message });
          throw conflict('De betaalprovider weigerde de terugbetaling. Kijk bij de betaalprovider wat er al is terugbetaald.');
        }
        // Unknown whether it arrived: it stays pending (and counts), the reconcile job asks again with the same key.
        if (err instanceof ProviderUnavailable) throw providerDown();
        throw err;
      }
    },

    /**
     * The reconcile job (every minute): payments still open after RECONCILE_AFTER_MS are looked up
     * at their provider (a lost callback must not lose a payment), pending refunds that never reached
     * the provider are sent again, and the simulator's unanswered checkouts expire (their callbacks
     * go out through `deliver`).
     */
    async reconcile(deliver?: (webhookUrl: string, providerPaymentId: string) => Promise<void>): Promise<{ looked_up: number; changed: number }> {
      let changed = 0;
      if (deliver) {
        for (const sim of await providers.simulator.expireDue()) await deliver(sim.webhook_url, sim.id).catch((err: unknown) => log('simulator callback failed', { err: String(err) }));
      }
      const before = new Date(clock.now().getTime() - RECONCILE_AFTER_MS).toISOString();
      const open = await repo.openBefore(db, changes.origin, before, 100);
      for (const row of open) if ((await refresh(row)) === 'changed') changed += 1;
      const stuck = await repo.stuckRefunds(db, changes.origin, before, 50);
      for (const r of stuck) {
        const p = await repo.findAnyTenant(db, r.payment_id);
        if (p) await this.sendRefund(p, r).catch(() => {});
      }
      return { looked_up: open.length, changed };
    },

    simulator: providers.simulator,
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
