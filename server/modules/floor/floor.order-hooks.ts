import type { Writer } from '../../db/change-log.js';
import type { OrdersTable } from '../../db/database.js';
import type { Actor } from '../orders/orders.service.js';
import type { Order } from '../orders/orders.schemas.js';
import { addRound, payOrderShare, settleBillOf, settling } from './floor.bills.js';
import { loadTable, type FloorContext } from './floor.context.js';
import type { TableRow } from './floor.repository.js';
import { refresh } from './floor.status.js';

/** The statuses of an active order (as `tablesWithActiveOrders` reads them): its table is occupied. */
const ACTIVE: ReadonlySet<string> = new Set(['new', 'accepted', 'preparing', 'ready', 'delivering']);

/**
 * The floor's order hooks (registered in the composition root, server/modules/index.ts): an order on
 * a table is a round of its bill, and the table's status follows the order. Each runs inside the
 * order's transaction. Part of the floor service (floor.service.ts).
 */
export function createFloorOrderHooks(ctx: FloorContext) {
  /** The table `creating` checked, for `created` in the same transaction (read once per order, not twice). */
  const checked = new WeakMap<Writer, TableRow>();
  return {
    /** `creating`: an order's table must be a live table of this restaurant (404 otherwise, like any foreign id). */
    async orderCreating(w: Writer, actor: Actor, row: OrdersTable): Promise<void> {
      if (row.table_id) checked.set(w, await loadTable(w.trx, actor.tenantId, row.table_id));
    },

    /** `created`: the order is a round of its table's open bill, or opens it; the table's status may change. */
    async orderCreated(w: Writer, actor: Actor, order: Order): Promise<void> {
      if (!order.table_id) return;
      await addRound(w, actor.tenantId, order.table_id, order.id);
      const table = checked.get(w);
      // A new order is active: its table is occupied.
      await refresh(ctx, w, actor.tenantId, [order.table_id], ACTIVE.has(order.status) ? { occupied: true, ...(table?.id === order.table_id ? { rows: [table] } : {}) } : undefined);
    },

    /** `statusChanged`: a cancelled round may leave the bill paid in full or empty; the table's status may change. */
    async orderStatusChanged(w: Writer, actor: Actor, order: Order): Promise<void> {
      if (!order.table_id) return;
      if (order.status === 'cancelled') await settleBillOf(ctx, w, actor, order.id);
      // Still active (the kitchen moving it forward): its table is occupied.
      await refresh(ctx, w, actor.tenantId, [order.table_id], ACTIVE.has(order.status) ? { occupied: true } : undefined);
    },

    /** `paid`: an order paid on its own (at the counter) pays its part of the open bill (floor.bills.ts `payOrderShare`). */
    async orderPaid(w: Writer, actor: Actor, order: Order): Promise<void> {
      if (!order.table_id) return;
      // Marked paid by its bill closing (floor.bills.ts `settling`): no share to pay, the table announced once.
      const run = settling.get(w);
      if (run) {
        if (run.refreshed.has(order.table_id)) return;
        run.refreshed.add(order.table_id);
        await refresh(ctx, w, actor.tenantId, [order.table_id]);
        return;
      }
      await payOrderShare(ctx, w, actor, order);
      await refresh(ctx, w, actor.tenantId, [order.table_id]);
    },
  };
}
