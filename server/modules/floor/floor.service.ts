import type { Writer } from '../../db/change-log.js';
import { createFloorBills } from './floor.bills.js';
import type { BillRow } from './floor.repository.js';
import type { FloorContext, FloorDeps, ReservationsLookup } from './floor.context.js';
import { createFloorLayout } from './floor.layout.js';
import { createFloorOrderHooks } from './floor.order-hooks.js';
import { createFloorRefresh } from './floor.refresh.js';
import { createFloorStatus } from './floor.status.js';

export type { ReservationsLookup, UpcomingBooking } from './floor.context.js';
export type { BillPaymentRequest, BillPaymentResult, TableBill } from './floor.bills.js';

/**
 * The floor service (docs/floor.md): one object composed of its parts, which share one context
 * (floor.context.ts):
 * - floor.layout.ts       zones and tables (admin), positions, the table lookups of other modules
 * - floor.status.ts       a table's live status, its announcement, the floor plan, the manual status
 * - floor.bills.ts        bills: rounds, payments, closing (floor.bill-family.ts reads a bill and its merged bills)
 * - floor.order-hooks.ts  the orders module's hooks (an order is a round of its table's bill)
 * - floor.refresh.ts      what the minute job (floor.jobs.ts) runs: settles bills that sync settled, announces status changes
 */
export function createFloorService(deps: FloorDeps) {
  const ctx: FloorContext = { ...deps, reservations: null, billPaid: [] };
  const bills = createFloorBills(ctx);
  return {
    /** The composition root hands the reservations module's lookup in (the two modules call each other). */
    useReservations(lookup: ReservationsLookup): void {
      ctx.reservations = lookup;
    },
    /** Runs `fn` inside every transaction that closes a bill as paid on this node (the till: the receipt number). */
    onBillPaid(fn: (w: Writer, bill: BillRow, totalCents: number) => Promise<void>): void {
      ctx.billPaid.push(fn);
    },
    ...createFloorLayout(ctx),
    ...createFloorStatus(ctx),
    ...createFloorOrderHooks(ctx),
    ...bills,
    ...createFloorRefresh(ctx, bills),
  };
}

export type FloorService = ReturnType<typeof createFloorService>;
