import type { Writer } from '../../db/change-log.js';
import { AppError, conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Actor, PaymentInfo } from '../orders/orders.service.js';
import type { Order } from '../orders/orders.schemas.js';
import { billDto, families, familyOf, loadBill, paidItemsOf, rootOf, toPaymentDto, type BillFamily } from './floor.bill-family.js';
import { billChange, loadTable, strip, tableChange, type FloorContext } from './floor.context.js';
import { floorRepository as repo, type BillRow, type PaymentRow, type RoundRow, type TableRow } from './floor.repository.js';
import { billFigures, floorId, settledReason } from './floor.rules.js';
import type { Bill, BillPayment, BillPaymentInput } from './floor.schemas.js';
import { refresh } from './floor.status.js';
import { checkTender, legacyMethod, linesAfterDiscounts, tender, unitsShare, type PaymentMethod, type TenderInput } from '../till/till.rules.js';

/**
 * Bills (docs/floor.md, "Bills"): a table's open bill gets a round per order, takes payments
 * (pay-at-table, staff, an order paid at the counter) and closes when paid in full, when nothing is
 * left on it, or by staff; closed as paid, its orders are marked paid in the same transaction.
 * A bill merged into another across sync lives on in that one (floor.bill-family.ts reads them).
 * Part of the floor service (floor.service.ts).
 */

/** `floor.recordBillPayment` input (pay-at-table, issue 12; staff at the table). */
export interface BillPaymentRequest {
  tenantId: string;
  billId: string;
  /** May be left out when `items` are given: it is then what those lines come to. */
  amount_cents?: number;
  tip_cents?: number;
  /** Cash handed over (method contant): at least amount + tip; the change is the rest. */
  received_cents?: number;
  /** Pay exactly these lines (split by dish): units of items of the bill's orders. */
  items?: Array<{ item_id: string; quantity: number }>;
  /** The provider's payment id: a repeat with the same id records nothing twice. */
  payment_id?: string | null;
  source?: 'pay_at_table' | 'staff';
  /** How it was paid (CONTRACT §19); default `online` for pay-at-table, `overig` for staff. */
  method?: PaymentMethod;
  userId?: string | null;
  /**
   * When this payment closes the bill, its unpaid orders are marked paid in the same transaction
   * (orders.markPaidIn) by `userId` through this channel (default: `pos` for staff, `web` for
   * pay-at-table) ...
   */
  via?: Actor['via'];
  /** ... with this payment info on their `order.paid` (default `{ provider: 'tafel' }`). */
  order_payment?: PaymentInfo;
}

export interface BillPaymentResult {
  bill_id: string;
  table_id: string;
  payment: BillPayment;
  total_cents: number;
  paid_cents: number;
  open_cents: number;
  tip_cents: number;
  /** This payment closed the bill (paid in full). */
  closed: boolean;
  /** The payment id was recorded before: nothing changed. */
  duplicate: boolean;
  /**
   * The bill's orders this payment marked paid, in the caller's transaction, because it closed the
   * bill (orders.markPaidIn: `order.paid` and the orders' `paid` hooks); empty when it did not close it.
   */
  paid_order_ids: string[];
}

export interface TableBill {
  table: { id: string; name: string };
  orders: Order[];
  total_cents: number;
  paid_cents: number;
  open_cents: number;
  bill_id: string | null;
}

/** How a bill closed as paid marks its orders paid: by whom, through which channel, with what payment info. */
export interface PaidAs {
  actor: Actor;
  payment: PaymentInfo;
}
/** Bills paid in full by the floor itself (a cancellation or a counter payment settling the rest, the minute job). */
export const TABLE_PAYMENT: PaymentInfo = { provider: 'tafel' };

const billClosed = () => conflict('Deze rekening is al gesloten.');

/**
 * Marks every order of a (root) bill's family that is not cancelled and not paid yet paid, inside
 * `w` (orders.markPaidIn: `order.paid` once per order and the orders' `paid` hooks, e.g. loyalty).
 * Call it only after the bill is closed: the floor's own `paid` hook then sees a closed bill and
 * records no payment of its own. Returns the ids it marked.
 */
async function markOrdersPaid(ctx: FloorContext, w: Writer, root: BillRow, as: PaidAs, known?: BillFamily): Promise<{ marked: string[]; refreshed: boolean }> {
  const fam = known ?? (await familyOf(w.trx, root.tenant_id, root));
  const ids = fam.orders.filter((o) => o.status !== 'cancelled' && o.payment_status !== 'paid').map((o) => o.id);
  // The bill is closed: each order's own floor `paid` hook has no share to pay (floor.order-hooks.ts),
  // and its table's status needs announcing once, after the first order (see `settling`).
  const run: Settling = { refreshed: new Set() };
  settling.set(w, run);
  try {
    return { marked: await ctx.orders.markManyPaidIn(w, as.actor, ids, as.payment), refreshed: run.refreshed.has(root.table_id) };
  } catch (err) {
    // Read in this same transaction under the restaurant's write lock, the orders exist and are not
    // cancelled: a CONFLICT or NOT_FOUND here comes from a `paid` hook. It must fail the whole
    // write, never pass for a refusal of the payment, which a caller (payments.settle) records as
    // a note and commits: that would commit a closed bill with some of its orders unpaid.
    if (err instanceof AppError && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND')) {
      throw new Error(`floor: the orders of bill ${root.id} could not be marked paid: ${err.code} ${err.message}`, { cause: err });
    }
    throw err;
  } finally {
    settling.delete(w);
  }
}

/**
 * The orders of a bill closed as paid being marked paid inside this writer (markOrdersPaid). Each
 * order's floor `paid` hook then only announces its table's status, once per table: the first
 * order's hook does what it always did (the bill is closed, so its share is nothing), and nothing
 * between the orders changes a table's status (their payment is no input of it), so the later
 * orders' refreshes found nothing to announce. Same changes, in the same order, fewer statements.
 */
interface Settling {
  refreshed: Set<string>;
}
export const settling = new WeakMap<Writer, Settling>();

/**
 * Closes a (root) bill on this node. Closed as `paid`, its unpaid, non-cancelled orders are marked
 * paid in the same transaction (`paidAs`), so a closed, paid bill never has unpaid orders behind
 * it; closed by staff (`staff`, the rest is on the house) or `empty`, the orders are left as they are.
 */
async function close(
  ctx: FloorContext,
  w: Writer,
  bill: BillRow,
  reason: 'paid' | 'staff' | 'empty',
  userId: string | null,
  paidAs?: PaidAs,
  /** The bill's family as read in this transaction, when the caller has it (its orders and total are what closing reads). */
  known?: BillFamily,
): Promise<{ row: BillRow; paidOrderIds: string[]; refreshed: boolean }> {
  const row: BillRow = { ...bill, status: 'closed', closed_at: w.now, close_reason: reason, closed_by: userId, updated_at: w.now };
  await repo.updateBill(w.trx, row);
  await w.record(billChange(row.id, 'bill.closed', { bill: strip(row) }));
  // Guests seated by hand ("bezet" set by staff) leave with their bill: the manual status goes with it.
  const table = await repo.findTable(w.trx, bill.tenant_id, bill.table_id);
  if (table && table.status_override === 'bezet') {
    const next: TableRow = { ...table, status_override: null, override_at: null, updated_at: w.now };
    await repo.updateTable(w.trx, next);
    await w.record(tableChange(next, 'table.updated', { status_override: null, override_at: null }));
  }
  const fam = reason === 'paid' ? (known ?? (await familyOf(w.trx, bill.tenant_id, row))) : undefined;
  const { marked: paidOrderIds, refreshed } =
    reason === 'paid' ? await markOrdersPaid(ctx, w, row, paidAs ?? { actor: { tenantId: bill.tenant_id, userId, via: 'pos' }, payment: TABLE_PAYMENT }, fam) : { marked: [], refreshed: false };
  // The total is the non-cancelled orders' (billFigures): marking them paid does not change it.
  if (reason === 'paid' && ctx.billPaid.length > 0) for (const fn of ctx.billPaid) await fn(w, row, fam!.figures.total_cents);
  return { row, paidOrderIds, refreshed };
}

/** Closes the bill of this order's round when it is paid in full or has nothing left (every order cancelled). */
export async function settleBillOf(ctx: FloorContext, w: Writer, actor: Actor, orderId: string): Promise<void> {
  const tenantId = actor.tenantId;
  const round = await repo.roundOfOrder(w.trx, tenantId, orderId);
  if (!round) return;
  const bill = await repo.findBill(w.trx, tenantId, round.bill_id);
  if (!bill) return;
  const root = await rootOf(w.trx, tenantId, bill);
  if (root.status !== 'open') return;
  const fam = await familyOf(w.trx, tenantId, root);
  const reason = settledReason(fam.figures, fam.orders);
  // Paid in full by a cancellation or a counter payment: the other orders were paid by the bill's earlier payments.
  if (reason) await close(ctx, w, root, reason, actor.userId, { actor, payment: TABLE_PAYMENT }, fam);
}

/**
 * An order on a table is a round of the table's open bill, or opens it (the round's id derives from
 * the order, so both sides of an outage record it once). Inside the order's
 * transaction, under the restaurant's write lock; the unique index on the open bill per table is
 * the database's guarantee on top (two first rounds at once: one bill).
 */
export async function addRound(w: Writer, tenantId: string, tableId: string, orderId: string): Promise<void> {
  let bill = await repo.findOpenBill(w.trx, tenantId, tableId);
  if (!bill) {
    bill = { id: newId(), tenant_id: tenantId, table_id: tableId, status: 'open', opened_at: w.now, closed_at: null, close_reason: null, closed_by: null, merged_into: null, conflict: null, created_at: w.now, updated_at: w.now };
    await repo.insertBill(w.trx, bill);
    await w.record(billChange(bill.id, 'bill.opened', { bill: strip(bill) }));
  }
  const round: RoundRow = { id: floorId('bill-round', orderId), tenant_id: tenantId, bill_id: bill.id, order_id: orderId, table_id: tableId, created_at: w.now };
  await repo.insertRound(w.trx, round);
  await w.record(billChange(bill.id, 'bill.round_added', { round: strip(round) }));
}

/**
 * An order paid on its own (at the counter) pays its part of its open bill: a payment of the
 * order's total (at most what is open) with an id derived from the order, so both sides of an
 * outage marking it paid record it once; the bill closes when that settles it.
 */
export async function payOrderShare(ctx: FloorContext, w: Writer, actor: Actor, order: Order): Promise<void> {
  const tenantId = actor.tenantId;
  const round = await repo.roundOfOrder(w.trx, tenantId, order.id);
  const bill = round ? await repo.findBill(w.trx, tenantId, round.bill_id) : undefined;
  if (!bill) return;
  const root = await rootOf(w.trx, tenantId, bill);
  if (root.status !== 'open') return;
  const fam = await familyOf(w.trx, tenantId, root);
  const amount = Math.min(order.total_cents, fam.figures.open_cents);
  const id = floorId('bill-payment-order', order.id);
  if (amount > 0 && !(await repo.findPayment(w.trx, id))) {
    const payment: PaymentRow = { id, tenant_id: tenantId, bill_id: root.id, amount_cents: amount, tip_cents: 0, source: 'order', payment_id: null, order_id: order.id, created_by: actor.userId, created_at: w.now, method: 'overig', received_cents: null, change_cents: 0, items: '[]' };
    await repo.insertPayment(w.trx, payment);
    await w.record(billChange(root.id, 'bill.payment_recorded', { payment: strip(payment) }));
  }
  await settleBillOf(ctx, w, actor, order.id);
}

/** A line (units of an order item) a payment paid, with what those units came to. */
export interface PaidItem {
  order_id: string;
  item_id: string;
  quantity: number;
  amount_cents: number;
}

/**
 * What paying these units of the bill's lines comes to (split by dish, CONTRACT §19): each line's
 * gross after its order's discounts, shared over its units (`unitsShare`), less the units paid by
 * earlier payments. A line that is not on the bill is VALIDATION naming it; more units than are
 * still open is 409.
 */
async function itemsToPay(ctx: FloorContext, w: Writer, tenantId: string, fam: BillFamily, wanted: Array<{ item_id: string; quantity: number }>): Promise<PaidItem[]> {
  const paidBefore = new Map<string, number>();
  for (const p of fam.payments) for (const i of paidItemsOf(p)) paidBefore.set(i.item_id, (paidBefore.get(i.item_id) ?? 0) + i.quantity);
  const lines = new Map<string, { order_id: string; name: string; gross: number; units: number }>();
  for (const o of fam.orders) {
    if (o.status === 'cancelled') continue;
    const order = await ctx.orders.getIn(w, tenantId, o.id);
    const after = linesAfterDiscounts(
      order.items.map((i) => ({ id: i.id, total_cents: i.total_cents, vat_rate: i.vat_rate })),
      order.discounts.map((d) => ({ item_id: d.item_id, amount_cents: d.amount_cents })),
    );
    order.items.forEach((i, idx) => lines.set(i.id, { order_id: order.id, name: i.name, gross: after[idx]!.gross_cents, units: i.quantity - i.voided_quantity }));
  }
  const seen = new Map<string, number>();
  const out: PaidItem[] = [];
  wanted.forEach((want, idx) => {
    const line = lines.get(want.item_id);
    if (!line) throw invalidField(`items.${idx}.item_id`, 'is geen gerecht op deze rekening.');
    const before = (paidBefore.get(want.item_id) ?? 0) + (seen.get(want.item_id) ?? 0);
    const left = line.units - before;
    if (want.quantity > left) throw conflict(left <= 0 ? `'${line.name}' is al betaald.` : `Van '${line.name}' ${left === 1 ? 'staat' : 'staan'} er nog maar ${left} open.`);
    seen.set(want.item_id, (seen.get(want.item_id) ?? 0) + want.quantity);
    out.push({ order_id: line.order_id, item_id: want.item_id, quantity: want.quantity, amount_cents: unitsShare(line.gross, line.units, before, want.quantity) });
  });
  return out;
}

/** Whether any of these open (root) bills is settled: paid in full, or nothing left on it. */
export async function anySettled(ctx: FloorContext, tenantId: string, open: BillRow[]): Promise<boolean> {
  return (await families(ctx.db, tenantId, open)).some((f) => settledReason(f.figures, f.orders) !== null);
}

/**
 * Closes, inside `w`, every open bill of the restaurant that is settled by payments or
 * cancellations that arrived through sync; closed as paid here, its orders are marked paid here too
 * (in this transaction), by the job.
 */
export async function closeSettled(ctx: FloorContext, w: Writer, tenantId: string): Promise<void> {
  for (const f of await families(w.trx, tenantId, await repo.openBills(w.trx, tenantId))) {
    const reason = settledReason(f.figures, f.orders);
    if (reason) await close(ctx, w, f.root, reason, null, { actor: { tenantId, userId: null, via: 'pos' }, payment: TABLE_PAYMENT }, f);
  }
}

export function createFloorBills(ctx: FloorContext) {
  const { db, changes } = ctx;

  async function getBill(tenantId: string, id: string): Promise<Bill> {
    return billDto(ctx, tenantId, await loadBill(db, tenantId, id));
  }

  /**
   * Records a payment against a bill inside the caller's transaction/change-log writer `w`
   * (pay-at-table's callback handler, issue 12, or staff at the table). Never more than is open
   * (CONFLICT); a repeated `payment_id` records nothing twice (`duplicate: true`); the bill closes
   * when it is paid in full (`closed: true`), and then, in the same transaction, its unpaid,
   * non-cancelled orders are marked paid (`paid_order_ids`; `via` and `order_payment` say how):
   * the bill's close and its orders' `order.paid` commit together or not at all. A bill merged into
   * another across sync is paid on the bill it lives in. Every refusal (NOT_FOUND, CONFLICT) comes
   * before anything is written.
   */
  async function recordBillPayment(w: Writer, input: BillPaymentRequest): Promise<BillPaymentResult> {
    const { tenantId } = input;
    const method: PaymentMethod = input.method ?? legacyMethod(input.source ?? 'pay_at_table');
    const asked: TenderInput = { ...input, method };
    checkTender(asked);
    const result = (fam: BillFamily, payment: PaymentRow, closed: boolean, duplicate: boolean, paidOrderIds: string[] = []): BillPaymentResult => ({
      bill_id: fam.root.id,
      table_id: fam.root.table_id,
      payment: toPaymentDto(payment),
      ...fam.figures,
      closed,
      duplicate,
      paid_order_ids: paidOrderIds,
    });
    const id = input.payment_id ? floorId('bill-payment', tenantId, input.payment_id) : newId();
    if (input.payment_id) {
      const seen = await repo.findPayment(w.trx, id);
      if (seen && seen.tenant_id === tenantId) {
        const bill = await loadBill(w.trx, tenantId, seen.bill_id);
        return result(await familyOf(w.trx, tenantId, await rootOf(w.trx, tenantId, bill)), seen, false, true);
      }
    }
    const root = await rootOf(w.trx, tenantId, await loadBill(w.trx, tenantId, input.billId));
    if (root.status !== 'open') throw billClosed();
    const before = await familyOf(w.trx, tenantId, root);
    const paidItems: PaidItem[] = input.items?.length ? await itemsToPay(ctx, w, tenantId, before, input.items) : [];
    const { amount, tip, received, change } = tender(asked, { open_cents: before.figures.open_cents, items_cents: paidItems.reduce((s, i) => s + i.amount_cents, 0) });
    const payment: PaymentRow = {
      id,
      tenant_id: tenantId,
      bill_id: root.id,
      amount_cents: amount,
      tip_cents: tip,
      source: input.source ?? 'pay_at_table',
      payment_id: input.payment_id ?? null,
      order_id: null,
      created_by: input.userId ?? null,
      created_at: w.now,
      method,
      received_cents: received,
      change_cents: change,
      items: JSON.stringify(paidItems),
    };
    await repo.insertPayment(w.trx, payment);
    await w.record(billChange(root.id, 'bill.payment_recorded', { payment: strip(payment) }));
    // The payment in the journal (CONTRACT §19). Staff at the till cannot book into a closed business
    // day (409); money a guest already paid online (pay-at-table) is kept and reported late.
    await ctx.journal?.append(w, {
      tenant_id: tenantId, kind: 'payment', ref_id: payment.id, bill_id: root.id, amount_cents: amount, tip_cents: tip,
      method: payment.method, user_id: payment.created_by,
      detail: { source: payment.source, ...(paidItems.length ? { items: paidItems } : {}), ...(received !== null ? { received_cents: received, change_cents: change } : {}), order_ids: before.orders.filter((o) => o.status !== 'cancelled').map((o) => o.id) },
      allow_closed_day: payment.source === 'pay_at_table',
    });
    // The family with this payment: inserting it changed nothing else the family reads.
    const payments = [...before.payments, payment].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const after: BillFamily = { ...before, payments, figures: billFigures(before.orders, payments) };
    const reason = settledReason(after.figures, after.orders);
    let paidOrderIds: string[] = [];
    let refreshed = false;
    if (reason === 'paid') {
      const actor: Actor = { tenantId, userId: input.userId ?? null, via: input.via ?? (payment.source === 'staff' ? 'pos' : 'web') };
      ({ paidOrderIds, refreshed } = await close(ctx, w, root, 'paid', input.userId ?? null, { actor, payment: input.order_payment ?? TABLE_PAYMENT }, after));
    }
    // Announced already when closing marked its orders paid (nothing since changes the table's status).
    if (!refreshed) await refresh(ctx, w, tenantId, [root.table_id]);
    return result(after, payment, reason === 'paid', false, paidOrderIds);
  }

  return {
    /**
     * Pay-at-table (issue 12): the table by its `public_code` (CONTRACT §11; by name only when the
     * restaurant allows it, `byName`), NOT_FOUND when no live table has it, and its open bill:
     * `{ table: {id, name}, orders, total_cents, paid_cents, open_cents, bill_id }`; a table without
     * an open bill answers zeros and `bill_id: null`. Cancelled orders are left out of `orders`.
     */
    async billForTable(tenantId: string, code: string, opts: { byName?: boolean } = {}): Promise<TableBill> {
      const t = (await repo.findTableByCode(db, tenantId, code)) ?? (opts.byName ? await repo.findTableByName(db, tenantId, code) : undefined);
      if (!t) throw notFound('Tafel');
      const open = await repo.findOpenBill(db, tenantId, t.id);
      if (!open) return { table: { id: t.id, name: t.name }, orders: [], total_cents: 0, paid_cents: 0, open_cents: 0, bill_id: null };
      const bill = await billDto(ctx, tenantId, open);
      return {
        table: { id: t.id, name: t.name },
        orders: bill.orders.filter((o) => o.status !== 'cancelled'),
        total_cents: bill.total_cents,
        paid_cents: bill.paid_cents,
        open_cents: bill.open_cents,
        bill_id: bill.id,
      };
    },

    getBill,

    /** The bill an order's round is on (the bill it lives in, when merged), or null. */
    async billIdOfOrder(tenantId: string, orderId: string): Promise<string | null> {
      const round = await repo.roundOfOrder(db, tenantId, orderId);
      const bill = round ? await repo.findBill(db, tenantId, round.bill_id) : undefined;
      return bill ? (await rootOf(db, tenantId, bill)).id : null;
    },

    /** The open bill of a table (staff); NOT_FOUND when the table has none. */
    async tableBill(tenantId: string, tableId: string): Promise<Bill> {
      await loadTable(db, tenantId, tableId);
      const open = await repo.findOpenBill(db, tenantId, tableId);
      if (!open) throw notFound('Open rekening');
      return billDto(ctx, tenantId, open);
    },

    recordBillPayment,

    /**
     * Staff take a payment at the table (cash, card terminal); when it pays the bill in full, the bill
     * closes and its orders are marked paid (`provider: 'tafel'`), all in this one transaction.
     */
    async payBill(actor: Actor, billId: string, input: BillPaymentInput): Promise<{ bill: Bill; payment: BillPayment; change_cents: number }> {
      const r = await changes.write(actor.tenantId, (w) =>
        recordBillPayment(w, {
          tenantId: actor.tenantId,
          billId,
          amount_cents: input.amount_cents,
          tip_cents: input.tip_cents,
          method: input.method ?? 'overig',
          received_cents: input.received_cents,
          items: input.items,
          source: 'staff',
          userId: actor.userId,
          via: actor.via,
          order_payment: TABLE_PAYMENT,
        }),
        // The payment, its journal entry, the bill's close, its orders' `order.paid` and the receipt: one batch (change-log.ts).
        { batch: true },
      );
      return { bill: await getBill(actor.tenantId, r.bill_id), payment: r.payment, change_cents: r.payment.change_cents };
    },

    /**
     * Moves an open bill to another table (POST /floorplan/bills/:id/move, CONTRACT §19). When that
     * table has an open bill, this one is merged into it (status `merged`, as a merge across sync:
     * its rounds and payments count on the bill it lives in). Its orders move with it. Moving to
     * the table it is on changes nothing. One change `bill.moved` carries the bill, the tables and
     * the orders.
     */
    async moveBill(actor: Actor, id: string, tableId: string): Promise<Bill> {
      const result = await changes.write(actor.tenantId, async (w) => {
        const bill = await loadBill(w.trx, actor.tenantId, id);
        const root = await rootOf(w.trx, actor.tenantId, bill);
        if (root.status !== 'open') throw billClosed();
        const target = await loadTable(w.trx, actor.tenantId, tableId);
        if (target.id === root.table_id) return root.id;
        const fam = await familyOf(w.trx, actor.tenantId, root);
        const there = await repo.findOpenBill(w.trx, actor.tenantId, target.id);
        const from = root.table_id;
        const next: BillRow = there
          ? { ...root, table_id: target.id, status: 'merged', merged_into: there.id, updated_at: w.now }
          : { ...root, table_id: target.id, updated_at: w.now };
        // Merged bills of the family follow their root to the new table.
        for (const m of fam.members) {
          if (m.id === root.id) continue;
          await repo.updateBill(w.trx, { ...m, table_id: target.id, updated_at: w.now });
        }
        await repo.updateBill(w.trx, next);
        const orderIds = fam.rounds.map((r) => r.order_id);
        await repo.moveRounds(w.trx, actor.tenantId, fam.members.map((m) => m.id), target.id);
        await ctx.orders.moveToTableIn(w, actor.tenantId, orderIds, target.id);
        await w.record(billChange(root.id, 'bill.moved', { bill: strip(next), from_table_id: from, to_table_id: target.id, merged_into: there?.id ?? null, order_ids: orderIds }));
        await refresh(ctx, w, actor.tenantId, [from, target.id]);
        return there?.id ?? root.id;
      });
      return getBill(actor.tenantId, result);
    },

    /** Staff close a bill (e.g. the rest is on the house); the table is then free. */
    async closeBill(actor: Actor, id: string): Promise<Bill> {
      await changes.write(actor.tenantId, async (w) => {
        const bill = await loadBill(w.trx, actor.tenantId, id);
        if (bill.status === 'merged') throw conflict('Deze rekening is samengevoegd met een andere rekening van dezelfde tafel; sluit die.');
        if (bill.status !== 'open') throw billClosed();
        await close(ctx, w, bill, 'staff', actor.userId);
        await refresh(ctx, w, actor.tenantId, [bill.table_id]);
      });
      return getBill(actor.tenantId, id);
    },

    /**
     * Repairs bills that THIS node closed as paid (`close_reason: 'paid'`) while some of their orders
     * are neither paid nor cancelled: before the close and the orders' payment were one transaction,
     * a crash between the two commits left them so. Marks those orders paid (orders.markPaidIn, with
     * `provider: 'tafel'`, the `paid` hooks included), one transaction per restaurant. Left alone:
     * bills closed by staff (`staff`: the rest is on the house) or `empty`, open bills, and bills
     * whose close came through sync (the node that closed them marks their orders, and those
     * `order.paid` changes arrive through sync themselves): "closed here" is this node's own
     * `bill.closed` in the change log, which keeps the origin of a replicated change. Reads every
     * unpaid order on a closed or merged bill, so it runs once per start (refreshStatuses), not every
     * minute. Returns the ids of the orders it marked.
     */
    async repairPaidBills(): Promise<string[]> {
      const byTenant = new Map<string, Set<string>>();
      for (const r of await repo.unpaidOrdersOnClosedBills(db)) {
        const set = byTenant.get(r.tenant_id) ?? new Set<string>();
        set.add(r.bill_id);
        byTenant.set(r.tenant_id, set);
      }
      const marked: string[] = [];
      let failure: unknown;
      for (const [tenantId, billIds] of byTenant) {
        try {
          const roots = new Set<string>();
          for (const id of billIds) {
            const bill = await repo.findBill(db, tenantId, id);
            const root = bill ? await rootOf(db, tenantId, bill) : undefined;
            if (root && root.status === 'closed' && root.close_reason === 'paid') roots.add(root.id);
          }
          if (roots.size === 0) continue;
          const mine = await repo.billsClosedBy(db, tenantId, changes.origin, [...roots]);
          if (mine.length === 0) continue;
          const actor: Actor = { tenantId, userId: null, via: 'pos' };
          marked.push(
            ...(await changes.write(tenantId, async (w) => {
              const out: string[] = [];
              for (const id of mine) {
                const root = await repo.findBill(w.trx, tenantId, id);
                if (root && root.status === 'closed' && root.close_reason === 'paid') out.push(...(await markOrdersPaid(ctx, w, root, { actor, payment: TABLE_PAYMENT })).marked);
              }
              return out;
            })),
          );
        } catch (err) {
          // One restaurant's failure does not keep the others from being repaired.
          failure ??= err;
        }
      }
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows the caught error as it was
      if (failure !== undefined) throw failure;
      return marked;
    },
  };
}

export type FloorBills = ReturnType<typeof createFloorBills>;
