import type { Executor } from '../../db/connection.js';
import { notFound } from '../../shared/errors.js';
import type { Order } from '../orders/orders.schemas.js';
import type { FloorContext } from './floor.context.js';
import { floorRepository as repo, type BillRow, type OrderFigures, type PaymentRow, type RoundRow } from './floor.repository.js';
import { billFigures, type BillFigures } from './floor.rules.js';
import { mergeVat } from '../till/till.rules.js';
import type { Bill, BillPayment } from './floor.schemas.js';

/**
 * Reading a bill: a bill and the bills merged into it across sync (its family), the figures over
 * them, and the staff-facing DTO. Writes are in floor.bills.ts.
 */

/** A bill and the bills merged into it (across sync), with what they hold. */
export interface BillFamily {
  root: BillRow;
  members: BillRow[];
  rounds: RoundRow[];
  orders: OrderFigures[];
  payments: PaymentRow[];
  figures: BillFigures;
}

export const toPaymentDto = (p: PaymentRow): BillPayment => ({
  id: p.id,
  amount_cents: p.amount_cents,
  tip_cents: p.tip_cents,
  source: p.source,
  payment_id: p.payment_id,
  order_id: p.order_id,
  created_at: p.created_at,
  method: p.method,
  received_cents: p.received_cents,
  change_cents: p.change_cents,
  items: paidItemsOf(p),
});

/** The lines a payment's `items` JSON names (`[]` for a payment not split by dish). */
export function paidItemsOf(p: { items?: string | null }): Array<{ order_id: string; item_id: string; quantity: number; amount_cents: number }> {
  try {
    const v = JSON.parse(p.items ?? '[]') as unknown;
    return Array.isArray(v) ? (v as Array<{ order_id: string; item_id: string; quantity: number; amount_cents: number }>) : [];
  } catch {
    return [];
  }
}

/** For each root bill: itself and every bill merged into it (transitively). */
export async function families(exec: Executor, tenantId: string, roots: BillRow[]): Promise<BillFamily[]> {
  const owner = new Map<string, string>(roots.map((r) => [r.id, r.id]));
  const members = new Map<string, BillRow[]>(roots.map((r) => [r.id, [r]]));
  let frontier = roots.map((r) => r.id);
  for (let depth = 0; frontier.length > 0 && depth < 20; depth++) {
    const children = (await repo.billsMergedInto(exec, frontier)).filter((c) => c.tenant_id === tenantId && !owner.has(c.id));
    for (const c of children) {
      const root = owner.get(c.merged_into!)!;
      owner.set(c.id, root);
      members.get(root)!.push(c);
    }
    frontier = children.map((c) => c.id);
  }
  const allIds = [...owner.keys()];
  const [rounds, payments] = await Promise.all([repo.roundsOf(exec, allIds), repo.paymentsOf(exec, allIds)]);
  const figures = await repo.orderFigures(exec, tenantId, [...new Set(rounds.map((r) => r.order_id))]);
  const byOrder = new Map(figures.map((f) => [f.id, f]));
  return roots.map((root) => {
    const ids = new Set(members.get(root.id)!.map((m) => m.id));
    const rs = rounds.filter((r) => ids.has(r.bill_id));
    const os = rs.map((r) => byOrder.get(r.order_id)).filter((o): o is OrderFigures => o !== undefined);
    const ps = payments.filter((p) => ids.has(p.bill_id));
    return { root, members: members.get(root.id)!, rounds: rs, orders: os, payments: ps, figures: billFigures(os, ps) };
  });
}

export const familyOf = async (exec: Executor, tenantId: string, root: BillRow): Promise<BillFamily> => (await families(exec, tenantId, [root]))[0]!;

/** The bill a (possibly merged) bill now lives in. */
export async function rootOf(exec: Executor, tenantId: string, bill: BillRow): Promise<BillRow> {
  let b = bill;
  for (let i = 0; i < 20 && b.status === 'merged' && b.merged_into; i++) {
    const next = await repo.findBill(exec, tenantId, b.merged_into);
    if (!next) break;
    b = next;
  }
  return b;
}

/** A bill of this restaurant, or NOT_FOUND. */
export async function loadBill(exec: Executor, tenantId: string, id: string): Promise<BillRow> {
  const bill = await repo.findBill(exec, tenantId, id);
  if (!bill) throw notFound('Rekening');
  return bill;
}

/** The staff-facing bill: orders as the kitchen knows them, payments, figures. Read outside a transaction. */
export async function billDto(ctx: FloorContext, tenantId: string, bill: BillRow): Promise<Bill> {
  const { db, orders } = ctx;
  const fam = await familyOf(db, tenantId, bill);
  const table = await repo.findTable(db, tenantId, bill.table_id);
  // In round order; an order whose round arrived before the order itself (sync) shows up once it is here.
  const list: Order[] = await orders.getMany(tenantId, fam.rounds.map((r) => r.order_id));
  return {
    id: bill.id,
    table_id: bill.table_id,
    table_name: table?.name ?? '',
    status: bill.status,
    opened_at: bill.opened_at,
    closed_at: bill.closed_at,
    close_reason: bill.close_reason,
    merged_into: bill.merged_into,
    merged_bills: fam.members.filter((m) => m.id !== bill.id).map((m) => m.id),
    conflict: bill.conflict,
    orders: list,
    payments: fam.payments.map(toPaymentDto),
    ...fam.figures,
    vat: mergeVat(list.filter((o) => o.status !== 'cancelled').map((o) => o.vat)),
  };
}
