import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { AppError, conflict, forbidden, invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { e164OrThrow } from '../../shared/phone.js';
import type { UserRole } from '../../shared/session.js';
import { businessDay } from '../../shared/zoned-time.js';
import type { FloorService } from '../floor/floor.service.js';
import type { LoyaltyService } from '../loyalty/loyalty.service.js';
import type { Actor, OrdersService } from '../orders/orders.service.js';
import type { Order } from '../orders/orders.schemas.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import type { JournalAppender } from '../journal/journal.service.js';
import { tillRepository as repo, type OrderPaymentRow, type ReceiptRow } from './till.repository.js';
import { checkTender, discountAmount, linesAfterDiscounts, mergeVat, receiptNumber, staffDiscountLimit, tender, unitsShare, type PaymentMethod, type TenderInput } from './till.rules.js';
import type { DiscountInput, OrderPayment, OrderPaymentInput, Receipt } from './till.schemas.js';
import { receiptLines } from './till.html.js';

/**
 * The till (issue 25, CONTRACT §19, docs/till.md): payments on orders without a table, discounts,
 * a guest attached by phone, receipts with gapless numbers. Bills' payments and moves live in the
 * floor service (floor.bills.ts), which this one reads through its service.
 */
export interface TillDeps {
  db: Db;
  changes: ChangeLog;
  /** For the settle job's window (default the system clock). */
  clock?: Clock;
  orders: OrdersService;
  floor: FloorService;
  loyalty: LoyaltyService;
  tenants: TenantsService;
  /**
   * Whether this node numbers the restaurant's receipts: an appliance always; the cloud only for a
   * restaurant without one (the numbers of one restaurant come from one place, so they stay gapless).
   */
  numbersReceipts: (tenantId: string) => Promise<boolean>;
  /**
   * Whether receipts are numbered inside the paying transaction (an appliance, a stand-alone server).
   * The cloud numbers them when a receipt is first asked for (after `numbersReceipts`, which reads
   * outside any transaction: on SQLite a read beside an open write would wait for it forever).
   */
  numbersWhenPaid: boolean;
  /** The printers' receipt queue (printing.enqueueReceipt): a job on the receipt printer, 409 when there is none. */
  printReceipt: (tenantId: string, input: { lines: string[]; order_id?: string | null; requested_by?: string | null }) => Promise<{ id: string }>;
  /** The journal (CONTRACT §19): every payment and discount is appended in its own transaction; a closed business day refuses them (409). */
  journal?: JournalAppender;
}

export interface TillActor extends Actor {
  role: UserRole;
}

const euro = (cents: number): string => `€ ${(cents / 100).toFixed(2).replace('.', ',')}`;
const PAID_LINE = (p: { items: string }): Array<{ order_id: string; item_id: string; quantity: number; amount_cents: number }> => {
  try {
    const v = JSON.parse(p.items) as unknown;
    return Array.isArray(v) ? (v as Array<{ order_id: string; item_id: string; quantity: number; amount_cents: number }>) : [];
  } catch {
    return [];
  }
};

const toPaymentDto = (p: OrderPaymentRow): OrderPayment => ({
  id: p.id,
  order_id: p.order_id,
  amount_cents: p.amount_cents,
  tip_cents: p.tip_cents,
  method: p.method,
  received_cents: p.received_cents,
  change_cents: p.change_cents,
  items: PAID_LINE(p),
  created_by: p.created_by,
  created_at: p.created_at,
});

/** Each line's gross after the order's discounts, and its units left after voids. */
function linesOf(order: Order) {
  const after = linesAfterDiscounts(
    order.items.map((i) => ({ id: i.id, total_cents: i.total_cents, vat_rate: i.vat_rate })),
    order.discounts.map((d) => ({ item_id: d.item_id, amount_cents: d.amount_cents })),
  );
  return new Map(order.items.map((i, idx) => [i.id, { name: i.name, gross: after[idx]!.gross_cents, units: i.quantity - i.voided_quantity }]));
}

export function createTillService(deps: TillDeps) {
  const { db, changes, orders, floor, loyalty, tenants } = deps;

  /** Gives a paid bill or order its receipt number inside `w` (once; only where this node numbers receipts). */
  async function issueIn(w: Writer, tenantId: string, target: { bill_id: string; total_cents: number } | { order_id: string; total_cents: number }, checked = false): Promise<ReceiptRow | undefined> {
    if (!checked && !deps.numbersWhenPaid) return undefined;
    const existing = 'bill_id' in target ? await repo.receiptOfBill(w.trx, tenantId, target.bill_id) : await repo.receiptOfOrder(w.trx, tenantId, target.order_id);
    if (existing) return existing;
    const { timezone, business_day_starts_at: startsAt } = await tenants.cachedSettingsIn(w.trx, tenantId); // through the transaction: on SQLite a read outside it waits for this very transaction
    const series = businessDay(w.nowDate, timezone, startsAt).slice(0, 4);
    const seq = (await repo.lastSeq(w.trx, tenantId, series)) + 1;
    const row: ReceiptRow = {
      id: newId(),
      tenant_id: tenantId,
      series,
      seq,
      number: receiptNumber(series, seq),
      bill_id: 'bill_id' in target ? target.bill_id : null,
      order_id: 'order_id' in target ? target.order_id : null,
      total_cents: target.total_cents,
      paid_at: w.now,
      created_at: w.now,
    };
    // Numbered only here (the node that numbers the restaurant's receipts); the other side gets a read-only copy (till.sync.ts).
    await repo.insertReceipt(w.trx, row);
    const { tenant_id: _t, ...wire } = row;
    await w.record({ entity: 'receipt', entityId: row.id, kind: 'receipt.issued', payload: { receipt: wire } });
    return row;
  }

  async function orderFor(tenantId: string, id: string, exec?: Writer): Promise<Order> {
    return exec ? orders.getIn(exec, tenantId, id) : orders.get(tenantId, id);
  }

  /** What the order's till payments add up to. */
  const paidOf = (rows: OrderPaymentRow[]) => rows.reduce((s, p) => s + p.amount_cents, 0);

  return {
    issueIn,

    /**
     * POST /orders/:id/payments (CONTRACT §19): a payment at the till on an order without a table.
     * Never more than is open (409); cash with `received_cents` gives change; `items` pays exactly
     * those lines. Paid in full, the order is marked paid in the same transaction (its `paid` hooks:
     * loyalty points, the receipt number).
     */
    async payOrder(actor: Actor, id: string, input: OrderPaymentInput): Promise<{ order: Order; payment: OrderPayment; paid_cents: number; open_cents: number; change_cents: number }> {
      const method: PaymentMethod = input.method ?? 'overig';
      const asked: TenderInput = { ...input, method };
      checkTender(asked);
      const r = await changes.write(actor.tenantId, async (w) => {
        const order = await orderFor(actor.tenantId, id, w);
        if (order.table_id) throw conflict('Deze bestelling hoort bij een tafel; reken af op de rekening van die tafel.');
        if (order.status === 'cancelled') throw conflict('Een geannuleerde bestelling kan niet betaald worden.');
        if (order.payment_status === 'paid') throw conflict('Deze bestelling is al betaald.');
        const before = await repo.orderPayments(w.trx, actor.tenantId, id);
        const open = Math.max(0, order.total_cents - paidOf(before));
        const paidItems: Array<{ order_id: string; item_id: string; quantity: number; amount_cents: number }> = [];
        if (input.items?.length) {
          const lines = linesOf(order);
          const paidUnits = new Map<string, number>();
          for (const p of before) for (const l of PAID_LINE(p)) paidUnits.set(l.item_id, (paidUnits.get(l.item_id) ?? 0) + l.quantity);
          input.items.forEach((want, idx) => {
            const line = lines.get(want.item_id);
            if (!line) throw invalidField(`items.${idx}.item_id`, 'is geen regel van deze bestelling.');
            const done = paidUnits.get(want.item_id) ?? 0;
            const left = line.units - done;
            if (want.quantity > left) throw conflict(left <= 0 ? `'${line.name}' is al betaald.` : `Van '${line.name}' ${left === 1 ? 'staat' : 'staan'} er nog maar ${left} open.`);
            paidUnits.set(want.item_id, done + want.quantity);
            paidItems.push({ order_id: id, item_id: want.item_id, quantity: want.quantity, amount_cents: unitsShare(line.gross, line.units, done, want.quantity) });
          });
        }
        const { amount, tip, received, change } = tender(asked, { open_cents: open, items_cents: paidItems.reduce((s, i) => s + i.amount_cents, 0) });
        const row: OrderPaymentRow = {
          id: newId(),
          tenant_id: actor.tenantId,
          order_id: id,
          amount_cents: amount,
          tip_cents: tip,
          method,
          received_cents: received,
          change_cents: change,
          items: JSON.stringify(paidItems),
          created_by: actor.userId,
          created_at: w.now,
        };
        await repo.insertOrderPayment(w.trx, row);
        const { tenant_id: _t, ...wire } = row;
        await w.record({ entity: 'order_payment', entityId: row.id, kind: 'order_payment.recorded', payload: { payment: wire } });
        await deps.journal?.append(w, {
          tenant_id: actor.tenantId, kind: 'payment', ref_id: row.id, order_id: id, amount_cents: amount, tip_cents: tip, method, user_id: actor.userId,
          detail: { source: 'till', ...(paidItems.length ? { items: paidItems } : {}), ...(received !== null ? { received_cents: received, change_cents: change } : {}) },
        });
        const paid = paidOf(before) + amount;
        let after = order;
        if (paid >= order.total_cents) after = (await orders.markPaidIn(w, actor, id, { provider: 'kassa', amount_cents: paid })).order;
        return { order: after, payment: toPaymentDto(row), paid_cents: paid, open_cents: Math.max(0, order.total_cents - paid), change_cents: change };
      });
      return r;
    },

    /**
     * The till's minute job (till.jobs.ts), the safety net after sync: an order without a table whose
     * till payments, as the union of both sides' (each paid a part during an outage), add up to its
     * total is marked paid here (`order.paid` with `provider: 'kassa'` and its hooks: points, the
     * receipt where this node numbers them). Only payments of the last two days are looked at.
     * Returns the ids it marked.
     */
    async settleSynced(): Promise<string[]> {
      const since = new Date((deps.clock ?? systemClock).now().getTime() - 2 * 86_400_000).toISOString();
      const rows = await db
        .selectFrom('order_payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['o.id as id', 'o.tenant_id as tenant_id', 'o.total_cents as total_cents'])
        .select((eb) => eb.fn.sum<number>('p.amount_cents').as('paid'))
        .where('p.created_at', '>=', since)
        .where('o.payment_status', '=', 'open')
        .where('o.status', '!=', 'cancelled')
        .where('o.table_id', 'is', null)
        .groupBy(['o.id', 'o.tenant_id', 'o.total_cents'])
        .execute();
      const marked: string[] = [];
      for (const r of rows) {
        if (Number(r.total_cents) <= 0 || Number(r.paid) < Number(r.total_cents)) continue;
        const actor: Actor = { tenantId: r.tenant_id, userId: null, via: 'pos' };
        const done = await changes.write(r.tenant_id, async (w) => {
          const all = paidOf(await repo.orderPayments(w.trx, r.tenant_id, r.id));
          const order = await orderFor(r.tenant_id, r.id, w);
          if (order.payment_status === 'paid' || order.status === 'cancelled' || all < order.total_cents) return false;
          return (await orders.markPaidIn(w, actor, r.id, { provider: 'kassa', amount_cents: all })).changed;
        });
        if (done) marked.push(r.id);
      }
      return marked;
    },

    /** The till payments of an order. */
    async orderPayments(tenantId: string, id: string): Promise<OrderPayment[]> {
      await orders.get(tenantId, id);
      return (await repo.orderPayments(db, tenantId, id)).map(toPaymentDto);
    },

    /**
     * POST /orders/:id/discounts (CONTRACT §19). percent (1..100) or amount (cents) of the line or the
     * order left after earlier discounts, comp (all of it), or points of the order's customer at the
     * restaurant's point value. Staff may give up to `max_staff_discount_percent` of the order's
     * gross in all (points are the guest's own money and do not count); more is 403 for staff.
     */
    async addDiscount(actor: TillActor, id: string, input: DiscountInput): Promise<{ order: Order; discount: Order['discounts'][number] }> {
      const settings = await tenants.cachedSettings(actor.tenantId);
      if ((input.kind === 'percent' || input.kind === 'amount' || input.kind === 'points') && input.value === undefined) throw invalidField('value', `is verplicht bij korting '${input.kind}'.`);
      if (input.kind === 'percent' && input.value! > 100) throw invalidField('value', 'moet een percentage van 1 tot 100 zijn.');
      if (input.kind === 'comp' && input.value !== undefined) throw invalidField('value', "hoort niet bij 'comp' (dat is alles gratis).");
      const plan = async (order: Order) => {
        if (order.status === 'cancelled') throw conflict('Deze bestelling is geannuleerd; er kan geen korting meer op.');
        if (order.payment_status === 'paid') throw conflict('Deze bestelling is al betaald; er kan geen korting meer op.');
        const lines = linesOf(order);
        let base = order.total_cents;
        if (input.item_id) {
          const line = lines.get(input.item_id);
          if (!line) throw invalidField('item_id', 'is geen regel van deze bestelling.');
          base = line.gross;
        }
        const amount = discountAmount(input.kind, input.value ?? null, base, settings.loyalty_point_value_cents);
        if (amount < 1) throw conflict('Hier valt geen korting meer op te geven: het bedrag is al nul.');
        if (input.kind === 'points' && input.value! * settings.loyalty_point_value_cents > base) {
          const max = Math.floor(base / settings.loyalty_point_value_cents);
          throw conflict(`${input.value} punten is meer korting dan er openstaat (${euro(base)}); gebruik hoogstens ${max} punten.`);
        }
        if (input.kind !== 'points' && actor.role !== 'admin') {
          const gross = order.items.reduce((s, i) => s + i.total_cents, 0);
          const limit = staffDiscountLimit(gross, settings.max_staff_discount_percent);
          const given = order.discounts.filter((d) => d.kind !== 'points').reduce((s, d) => s + d.amount_cents, 0);
          if (given + amount > limit) {
            throw forbidden(`Een medewerker mag hoogstens ${settings.max_staff_discount_percent}% korting geven (${euro(limit)} op deze bestelling${given > 0 ? `, al gegeven ${euro(given)}` : ''}); vraag een beheerder.`);
          }
        }
        return amount;
      };
      // Checked before anything is written (also before points are redeemed), then again in the transaction.
      const order = await orderFor(actor.tenantId, id);
      await plan(order);
      let redemption: { customer_id: string; transaction_id: string } | null = null;
      if (input.kind === 'points') {
        const customerId = await customerOf(actor.tenantId, order);
        const r = await loyalty.redeem({ tenantId: actor.tenantId, userId: actor.userId }, { customer_id: customerId, points: input.value! });
        redemption = { customer_id: r.customer_id, transaction_id: r.transaction.id };
      }
      try {
        return await changes.write(actor.tenantId, async (w) => {
          const amount = await plan(await orderFor(actor.tenantId, id, w));
          const row = {
            id: newId(),
            tenant_id: actor.tenantId,
            order_id: id,
            item_id: input.item_id ?? null,
            kind: input.kind,
            value: input.value ?? null,
            amount_cents: amount,
            points: input.kind === 'points' ? input.value! : null,
            customer_id: redemption?.customer_id ?? null,
            loyalty_transaction_id: redemption?.transaction_id ?? null,
            reason: input.reason,
            user_id: actor.userId,
            created_at: w.now,
          };
          const r = await orders.addDiscountIn(w, actor, row);
          // The discount in the journal (CONTRACT §19): refused in a closed business day (the points then go back, below).
          await deps.journal?.append(w, {
            tenant_id: actor.tenantId, kind: 'discount', ref_id: row.id, order_id: id, amount_cents: amount, user_id: actor.userId,
            detail: { kind: row.kind, value: row.value, item_id: row.item_id, reason: row.reason, ...(row.points ? { points: row.points, customer_id: row.customer_id } : {}) },
          });
          return { order: r.order, discount: r.order.discounts.find((d) => d.id === row.id)! };
        });
      } catch (err) {
        // The points were redeemed, the discount was not given: they go back to the guest.
        if (redemption) {
          await loyalty.adjust({ tenantId: actor.tenantId, userId: actor.userId }, { customer_id: redemption.customer_id, points: input.value!, note: 'Terug: de korting met punten kon niet worden gegeven.' });
        }
        throw err;
      }
    },

    /**
     * Attaches a guest to an order by phone (any notation: 06 12345678, +31 6 ..., 0031 ...), the
     * loyalty customer found or made for it; the order then earns points when paid, and can pay with them.
     */
    async attachCustomer(actor: Actor, id: string, input: { phone: string; name?: string }): Promise<Order> {
      const phone = e164OrThrow(input.phone, 'phone');
      let customer: { id: string; name: string | null };
      try {
        customer = await loyalty.getByPhone(actor.tenantId, phone);
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
        customer = (await loyalty.upsert({ tenantId: actor.tenantId, userId: actor.userId }, { phone, ...(input.name ? { name: input.name } : {}) })).customer;
      }
      return orders.attachCustomer(actor, id, { customer_id: customer.id, name: input.name ?? customer.name, phone });
    },

    /** GET /floorplan/bills/:id/receipt: the bill's receipt (its number once paid in full; given now where it is due and missing). */
    async billReceipt(tenantId: string, billId: string): Promise<Receipt> {
      let bill = await floor.getBill(tenantId, billId);
      if (bill.status === 'merged' && bill.merged_into) bill = await floor.getBill(tenantId, bill.merged_into);
      let receipt = await repo.receiptOfBill(db, tenantId, bill.id);
      if (!receipt && bill.status === 'closed' && bill.close_reason === 'paid' && (await deps.numbersReceipts(tenantId))) {
        receipt = await changes.write(tenantId, (w) => issueIn(w, tenantId, { bill_id: bill.id, total_cents: bill.total_cents }, true));
      }
      const live = bill.orders.filter((o) => o.status !== 'cancelled');
      return compose(tenantId, {
        receipt,
        table_name: bill.table_name,
        orders: live,
        payments: bill.payments.map((p) => ({ method: p.method, amount_cents: p.amount_cents, tip_cents: p.tip_cents, change_cents: p.change_cents, received_cents: p.received_cents })),
        paid_at: receipt?.paid_at ?? (bill.close_reason === 'paid' ? bill.closed_at : null),
      });
    },

    /** GET /orders/:id/receipt: an order's receipt (an order on a table answers its bill's). */
    async orderReceipt(tenantId: string, id: string): Promise<Receipt> {
      const order = await orders.get(tenantId, id);
      if (order.table_id) {
        const billId = await floor.billIdOfOrder(tenantId, id);
        if (billId) return this.billReceipt(tenantId, billId);
      }
      let receipt = await repo.receiptOfOrder(db, tenantId, id);
      if (!receipt && order.payment_status === 'paid' && (await deps.numbersReceipts(tenantId))) {
        receipt = await changes.write(tenantId, (w) => issueIn(w, tenantId, { order_id: id, total_cents: order.total_cents }, true));
      }
      const rows = await repo.orderPayments(db, tenantId, id);
      const payments = rows.map((p) => ({ method: p.method, amount_cents: p.amount_cents, tip_cents: p.tip_cents, change_cents: p.change_cents, received_cents: p.received_cents }));
      const rest = order.total_cents - paidOf(rows);
      // Paid outside the till (online, or marked paid at the counter): the rest in one payment.
      if (order.payment_status === 'paid' && rest > 0) payments.push({ method: order.source === 'web' ? 'online' : 'overig', amount_cents: rest, tip_cents: 0, change_cents: 0, received_cents: null });
      return compose(tenantId, { receipt, table_name: null, orders: [order], payments, paid_at: receipt?.paid_at ?? null });
    },

    /** POST .../receipt/print: the receipt as text lines on the restaurant's receipt printer (409 when there is none). */
    async printReceipt(actor: Actor, receipt: Receipt, orderId: string | null): Promise<{ queued: true; job_id: string }> {
      const { timezone } = await tenants.cachedSettings(actor.tenantId);
      const job = await deps.printReceipt(actor.tenantId, { lines: receiptLines(receipt, timezone), order_id: orderId, requested_by: actor.userId });
      return { queued: true, job_id: job.id };
    },
  };

  async function customerOf(tenantId: string, order: Order): Promise<string> {
    if (order.customer?.phone) {
      try {
        return (await loyalty.getByPhone(tenantId, order.customer.phone)).id;
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
      }
    }
    throw conflict('Aan deze bestelling is geen klant met punten gekoppeld; koppel eerst een gast via het telefoonnummer.');
  }

  async function compose(
    tenantId: string,
    part: { receipt: ReceiptRow | undefined; table_name: string | null; orders: Order[]; payments: Receipt['payments']; paid_at: string | null },
  ): Promise<Receipt> {
    const s = await tenants.cachedSettings(tenantId);
    const name = s.name;
    return {
      receipt_number: part.receipt?.number ?? null,
      restaurant: { name, address: s.address, vat_number: s.vat_number, kvk_number: s.kvk_number },
      table_name: part.table_name,
      order_numbers: part.orders.map((o) => o.number),
      lines: part.orders.flatMap((o) =>
        o.items
          .filter((i) => i.quantity - i.voided_quantity > 0)
          .map((i) => ({
            name: i.name,
            quantity: i.quantity - i.voided_quantity,
            unit_price_cents: i.unit_price_cents,
            total_cents: i.total_cents,
            options: i.modifiers.map((m) => (m.quantity > 1 ? `${m.quantity}× ${m.name}` : m.name)),
            vat_rate: i.vat_rate,
          })),
      ),
      discounts: part.orders.flatMap((o) => o.discounts.map((d) => ({ kind: d.kind, reason: d.reason, amount_cents: d.amount_cents }))),
      discount_cents: part.orders.reduce((sum, o) => sum + o.discount_cents, 0),
      vat: mergeVat(part.orders.map((o) => o.vat)),
      total_cents: part.orders.reduce((sum, o) => sum + o.total_cents, 0),
      payments: part.payments,
      paid_at: part.paid_at,
      footer: s.receipt_footer,
    };
  }
}

export type TillService = ReturnType<typeof createTillService>;
