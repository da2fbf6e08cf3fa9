import type { Tx } from '../../db/connection.js';
import type { OrderItemsTable, OrdersTable, OrderStatusHistoryTable } from '../../db/database.js';
import { insertIfAbsent, insertManyIfAbsent } from '../../../sync/apply-helpers.js';
import { RejectOp, type ApplyContext, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
import { toOrderDto } from './orders.service.js';
import { isFinal, STATUS_RANK, transition } from './orders.rules.js';
import type { Order, OrderStatus } from './orders.schemas.js';

interface CreatedPayload {
  order: Order;
  history?: OrderStatusHistoryTable;
  business_day: string;
  origin: string;
  idempotency_key: string | null;
  request_hash?: string | null;
  created_by?: string | null;
}
interface StatusPayload {
  order: Order;
  from?: OrderStatus;
  to: OrderStatus;
  history?: OrderStatusHistoryTable;
}

const isStatus = (s: unknown): s is OrderStatus => typeof s === 'string' && s in STATUS_RANK;

async function snapshot(trx: Tx, orderId: string): Promise<Order> {
  const found = await loadOrder(trx, orderId);
  if (!found) throw new Error(`order ${orderId} not found`);
  return toOrderDto(found.row, found.items);
}

/** The order row and its items (by position) in one statement (a left join), or undefined. */
async function loadOrder(trx: Tx, orderId: string): Promise<{ row: OrdersTable; items: OrderItemsTable[] } | undefined> {
  const rows = await trx
    .selectFrom('orders')
    .leftJoin('order_items', 'order_items.order_id', 'orders.id')
    .selectAll('orders')
    .select([
      'order_items.id as i_id',
      'order_items.position as i_position',
      'order_items.product_id as i_product_id',
      'order_items.name as i_name',
      'order_items.quantity as i_quantity',
      'order_items.unit_price_cents as i_unit_price_cents',
      'order_items.total_cents as i_total_cents',
      'order_items.notes as i_notes',
    ])
    .where('orders.id', '=', orderId)
    .orderBy('order_items.position')
    .execute();
  const first = rows[0];
  if (!first) return undefined;
  const { i_id: _i, i_position: _p, i_product_id: _pr, i_name: _n, i_quantity: _q, i_unit_price_cents: _u, i_total_cents: _t, i_notes: _no, ...row } = first;
  const items: OrderItemsTable[] = rows
    .filter((r) => r.i_id !== null)
    .map((r) => ({
      id: r.i_id!,
      tenant_id: row.tenant_id,
      order_id: row.id,
      position: r.i_position!,
      product_id: r.i_product_id!,
      name: r.i_name!,
      quantity: r.i_quantity!,
      unit_price_cents: r.i_unit_price_cents!,
      total_cents: r.i_total_cents!,
      notes: r.i_notes ?? null,
    }));
  return { row, items };
}

async function addHistory(trx: Tx, change: SyncChange, h: OrderStatusHistoryTable | undefined, ctx: ApplyContext): Promise<void> {
  if (!h || typeof h.id !== 'string' || !isStatus(h.to_status)) return;
  const row = { ...h, tenant_id: change.tenant_id, order_id: change.entity_id } as OrderStatusHistoryTable & Record<string, unknown>;
  // A ledger no apply reads back: the cloud's push writes a batch's rows together.
  if (ctx.deferLedger) ctx.deferLedger('order_status_history', row);
  else await insertIfAbsent(trx, 'order_status_history', row);
}

async function applyCreated(trx: Tx, change: SyncChange, ctx: ApplyContext): Promise<{ conflict?: string; idempotency_key?: string | null; order?: Order }> {
  const p = change.payload as CreatedPayload;
  const o = p?.order;
  if (!o || o.id !== change.entity_id || !Array.isArray(o.items) || typeof o.number !== 'string' || typeof p.business_day !== 'string') {
    throw new RejectOp('Ongeldige bestelling.');
  }
  const existing = await trx.selectFrom('orders').select(['id', 'tenant_id']).where('id', '=', o.id).executeTakeFirst();
  if (existing) {
    if (existing.tenant_id !== change.tenant_id) throw new RejectOp('Deze bestelling hoort bij een ander restaurant.');
    // Applied before: ids are born once, where the order was taken. When adopting, take the
    // number and key the cloud settled on (it renames an order whose number was already taken).
    if (ctx.mode === 'adopt') {
      await trx.updateTable('orders').set({ number: o.number, idempotency_key: p.idempotency_key ?? null }).where('id', '=', o.id).execute();
    }
    return {};
  }
  const notes: string[] = [];
  // Numbers come from per-origin sequences and should never collide; if two devices of one tenant
  // share a prefix, keep both orders and make the later number distinct rather than lose one.
  let number = o.number;
  const numberTaken = await trx
    .selectFrom('orders')
    .select('id')
    .where('tenant_id', '=', change.tenant_id)
    .where('business_day', '=', p.business_day)
    .where('number', '=', number)
    .executeTakeFirst();
  if (numberTaken) {
    number = `${o.number}-${o.id.slice(-4)}`;
    notes.push(`Bestelnummer ${o.number} bestond al op ${p.business_day}; deze bestelling heet nu ${number}.`);
  }
  let key = p.idempotency_key ?? null;
  if (key) {
    const keyTaken = await trx.selectFrom('orders').select('id').where('tenant_id', '=', change.tenant_id).where('idempotency_key', '=', key).executeTakeFirst();
    if (keyTaken) {
      key = null;
      notes.push('De idempotency-sleutel van deze bestelling was al gebruikt voor een andere bestelling.');
    }
  }
  const row: OrdersTable = {
    id: o.id,
    tenant_id: change.tenant_id,
    number,
    business_day: p.business_day,
    origin: p.origin ?? change.origin,
    status: isStatus(o.status) ? o.status : 'new',
    source: o.source,
    table_id: o.table_id ?? null,
    customer_name: o.customer?.name ?? null,
    customer_phone: o.customer?.phone ?? null,
    notes: o.notes ?? null,
    total_cents: o.total_cents,
    payment_status: o.payment_status === 'paid' ? 'paid' : 'open',
    idempotency_key: key,
    request_hash: key ? (p.request_hash ?? null) : null,
    created_by: p.created_by ?? null,
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
  await trx.insertInto('orders').values(row).execute();
  const items: OrderItemsTable[] = o.items.map((i, position) => ({
    id: i.id,
    tenant_id: change.tenant_id,
    order_id: o.id,
    position,
    product_id: i.product_id,
    name: i.name,
    quantity: i.quantity,
    unit_price_cents: i.unit_price_cents,
    total_cents: i.total_cents,
    notes: i.notes ?? null,
  }));
  await insertManyIfAbsent(trx, 'order_items', items as Array<OrderItemsTable & Record<string, unknown>>);
  await addHistory(trx, change, p.history, ctx);
  // Just inserted: the resulting state is these rows (items by position), no need to read them back.
  const order = toOrderDto(row, items);
  return notes.length ? { conflict: notes.join(' '), idempotency_key: key, order } : { order };
}

/**
 * Order status only moves forward (CONTRACT §5). Merging (the cloud applying an appliance's op):
 * a backward or repeated move is a no-op; once a final status is set, a different final status is
 * a recorded conflict and not applied: the first final status the cloud accepted wins. Adopting
 * (an appliance taking the cloud's state): forward moves are taken, and a final status of the cloud
 * replaces a different local one.
 */
function mergedStatus(current: OrderStatus, wanted: OrderStatus, mode: ApplyContext['mode']): { status: OrderStatus; conflict?: string } {
  if (current === wanted) return { status: current };
  if (mode === 'adopt') {
    if (isFinal(wanted) && isFinal(current)) return { status: wanted };
    return { status: transition(current, wanted) === 'allowed' ? wanted : current };
  }
  if (isFinal(current) && isFinal(wanted)) return { status: current, conflict: `De bestelling was al '${current}'; '${wanted}' is niet toegepast.` };
  return { status: transition(current, wanted) === 'allowed' ? wanted : current };
}

export const ordersSync: EntityDescriptor[] = [
  {
    entity: 'order',
    merge: 'monotonic-status',
    tables: ['orders', 'order_items', 'order_status_history'],
    async apply(trx, change, ctx) {
      let conflict: string | undefined;
      let merged: Record<string, unknown> = {};
      let order: Order;
      if (change.kind === 'order.created') {
        const r = await applyCreated(trx, change, ctx);
        conflict = r.conflict;
        order = r.order ?? (await snapshot(trx, change.entity_id));
        if (r.idempotency_key !== undefined) merged = { idempotency_key: r.idempotency_key };
      } else if (change.kind === 'order.status_changed' || change.kind === 'order.paid') {
        const found = await loadOrder(trx, change.entity_id);
        if (!found || found.row.tenant_id !== change.tenant_id) throw new RejectOp('Bestelling niet gevonden.');
        const { row } = found;
        const p = change.payload as StatusPayload;
        const patch: Partial<OrdersTable> = {};
        if (change.kind === 'order.status_changed') {
          const wanted = ctx.mode === 'adopt' ? p?.order?.status : p?.to;
          if (!isStatus(wanted)) throw new RejectOp('Ongeldige status.');
          await addHistory(trx, change, p.history, ctx);
          const merged = mergedStatus(row.status, wanted, ctx.mode);
          conflict = merged.conflict;
          if (merged.status !== row.status) patch.status = merged.status;
        } else if (row.payment_status !== 'paid') {
          patch.payment_status = 'paid'; // paid never reverts
        }
        if (ctx.mode === 'adopt' && p?.order?.payment_status === 'paid' && row.payment_status !== 'paid') patch.payment_status = 'paid';
        if (Object.keys(patch).length > 0) {
          patch.updated_at = change.created_at > row.updated_at ? change.created_at : row.updated_at;
          await trx.updateTable('orders').set(patch).where('id', '=', row.id).execute();
        }
        // The resulting state: the row as read plus this patch; a status or payment change leaves the items as they are.
        order = toOrderDto({ ...row, ...patch }, found.items);
      } else {
        throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      }
      const p = change.payload as Record<string, unknown>;
      return { payload: { ...p, ...merged, order }, ...(conflict ? { conflict } : {}) };
    },
  },
];
