import type { ChangeInput, ChangeLog, Writer } from '../../db/change-log.js';
import type { Db, Executor } from '../../db/connection.js';
import type { OrdersTable } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Actor, OrdersService, PaymentInfo } from '../orders/orders.service.js';
import type { Order } from '../orders/orders.schemas.js';
import { floorRepository as repo, type BillRow, type OrderFigures, type PaymentRow, type RoundRow, type TableRow, type ZoneRow } from './floor.repository.js';
import { billFigures, deriveStatus, euro, floorId, RESERVED_BEFORE_MIN, RESERVED_GRACE_MIN, settledReason, type BillFigures } from './floor.rules.js';
import type {
  Bill,
  BillPayment,
  BillPaymentInput,
  CreateTableInput,
  CreateZoneInput,
  FloorPlan,
  FloorTable,
  PositionsInput,
  Table,
  TableStatus,
  UpdateTableInput,
  UpdateZoneInput,
  Zone,
} from './floor.schemas.js';

/** A booking that makes its table `gereserveerd` (from the reservations module, see `useReservations`). */
export interface UpcomingBooking {
  id: string;
  table_id: string;
  time: string;
  name: string;
  party_size: number;
  starts_at: string;
}

/** What the floor asks of the reservations module (wired in the composition root; the two call each other). */
export interface ReservationsLookup {
  /**
   * Booked reservations with a table whose start lies in [from, to] (UTC ISO), and the tables of
   * seated reservations still within their seating at `now` (seated early: starting by `to`), read through `exec`.
   */
  forStatus(exec: Executor, tenantId: string, from: string, to: string, now: string): Promise<{ booked: UpcomingBooking[]; seatedTables: string[] }>;
  /** Whether the table has a booked reservation that has not started yet. */
  hasFutureBookings(exec: Executor, tenantId: string, tableId: string, now: string): Promise<boolean>;
}

/** `floor.recordBillPayment` input (pay-at-table, issue 12; staff at the table). */
export interface BillPaymentRequest {
  tenantId: string;
  billId: string;
  amount_cents: number;
  tip_cents?: number;
  /** The provider's payment id: a repeat with the same id records nothing twice. */
  payment_id?: string | null;
  source?: 'pay_at_table' | 'staff';
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

const toZoneDto = (r: ZoneRow): Zone => ({ id: r.id, name: r.name, position: r.position, created_at: r.created_at, updated_at: r.updated_at, archived_at: r.archived_at });
export const toTableDto = (r: TableRow): Table => ({
  id: r.id,
  zone_id: r.zone_id,
  name: r.name,
  seats: r.seats,
  x: r.x,
  y: r.y,
  shape: r.shape,
  reservable: r.reservable === 1,
  status_override: r.status_override,
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});
const toPaymentDto = (p: PaymentRow): BillPayment => ({
  id: p.id,
  amount_cents: p.amount_cents,
  tip_cents: p.tip_cents,
  source: p.source,
  payment_id: p.payment_id,
  order_id: p.order_id,
  created_at: p.created_at,
});
const strip = <T extends { tenant_id: string }>(row: T): Omit<T, 'tenant_id'> => {
  const { tenant_id: _t, ...rest } = row;
  return rest;
};

export const zoneChange = (row: ZoneRow, kind: string, fields?: Partial<ZoneRow>): ChangeInput => ({
  entity: 'zone',
  entityId: row.id,
  kind,
  payload: { zone: strip(row), ...(fields ? { fields } : {}) },
});
export const tableChange = (row: TableRow, kind: string, fields?: Partial<TableRow>): ChangeInput => ({
  entity: 'table',
  entityId: row.id,
  kind,
  payload: { table: strip(row), ...(fields ? { fields } : {}) },
});
const billChange = (billId: string, kind: string, payload: Record<string, unknown>): ChangeInput => ({ entity: 'bill', entityId: billId, kind, payload });

const nameTaken = (name: string) => conflict(`Er is al een tafel met de naam '${name}'.`);
const billClosed = () => conflict('Deze rekening is al gesloten.');
const minutes = (d: Date, m: number) => new Date(d.getTime() + m * 60_000).toISOString();

/** A bill and the bills merged into it (across sync), with what they hold. */
interface BillFamily {
  root: BillRow;
  members: BillRow[];
  rounds: RoundRow[];
  orders: OrderFigures[];
  payments: PaymentRow[];
  figures: BillFigures;
}

export function createFloorService(deps: {
  db: Db;
  changes: ChangeLog;
  clock: Clock;
  orders: OrdersService;
  /** Cloud only: whether the restaurant has an appliance, which then runs the status job itself (its announcements sync up). */
  hasAppliance?: (tenantId: string) => Promise<boolean>;
}) {
  const { db, changes, clock, orders } = deps;
  let reservations: ReservationsLookup | null = null;
  /** Whether this process ran repairPaidBills already (refreshStatuses runs it once). */
  let repairDone = false;

  // ── bills: arithmetic over a bill and the bills merged into it ──

  /** For each root bill: itself and every bill merged into it (transitively). */
  async function families(exec: Executor, tenantId: string, roots: BillRow[]): Promise<BillFamily[]> {
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

  const familyOf = async (exec: Executor, tenantId: string, root: BillRow) => (await families(exec, tenantId, [root]))[0]!;

  /** The bill a (possibly merged) bill now lives in. */
  async function rootOf(exec: Executor, tenantId: string, bill: BillRow): Promise<BillRow> {
    let b = bill;
    for (let i = 0; i < 20 && b.status === 'merged' && b.merged_into; i++) {
      const next = await repo.findBill(exec, tenantId, b.merged_into);
      if (!next) break;
      b = next;
    }
    return b;
  }

  // ── live status ──

  async function computeStatuses(exec: Executor, tenantId: string, tables: TableRow[], now: Date) {
    const [open, active, bookings] = await Promise.all([
      repo.openBills(exec, tenantId),
      repo.tablesWithActiveOrders(exec, tenantId),
      reservations
        ? reservations.forStatus(exec, tenantId, minutes(now, -RESERVED_GRACE_MIN), minutes(now, RESERVED_BEFORE_MIN), now.toISOString())
        : Promise.resolve({ booked: [] as UpcomingBooking[], seatedTables: [] as string[] }),
    ]);
    const billed = new Set(open.map((b) => b.table_id));
    const seated = new Set(bookings.seatedTables);
    const nextBooking = new Map<string, UpcomingBooking>();
    for (const r of [...bookings.booked].sort((a, b) => a.starts_at.localeCompare(b.starts_at))) if (!nextBooking.has(r.table_id)) nextBooking.set(r.table_id, r);
    const out = new Map<string, { status: TableStatus; manual: boolean; booking: UpcomingBooking | null }>();
    for (const t of tables) {
      const booking = nextBooking.get(t.id) ?? null;
      const occupied = billed.has(t.id) || active.has(t.id) || seated.has(t.id);
      const status = deriveStatus({ override: t.status_override, occupied, reserved: booking !== null });
      out.set(t.id, { status, manual: t.status_override !== null, booking });
    }
    return { statuses: out, open };
  }

  /**
   * Announces, in this transaction, every status change of these tables (all live tables when
   * omitted): compares the derived status with the one last announced on this node and records
   * `table.status_changed` for each difference (the change log → the tablets' socket, docs/floor.md).
   */
  async function refresh(w: Writer, tenantId: string, tableIds?: string[]): Promise<void> {
    const tables = (tableIds ? await repo.findTables(w.trx, tenantId, [...new Set(tableIds)]) : await repo.listTables(w.trx, tenantId)).filter((t) => !t.archived_at);
    if (tables.length === 0) return;
    const { statuses } = await computeStatuses(w.trx, tenantId, tables, w.nowDate);
    const announced = new Map((await repo.announced(w.trx, tenantId)).map((r) => [r.table_id, r.status]));
    for (const t of tables) {
      const s = statuses.get(t.id)!;
      const before = announced.get(t.id) ?? 'vrij';
      if (s.status === before) continue;
      await repo.announce(w.trx, { table_id: t.id, tenant_id: tenantId, status: s.status, updated_at: w.now });
      await w.record({
        entity: 'table',
        entityId: t.id,
        kind: 'table.status_changed',
        payload: { table_id: t.id, zone_id: t.zone_id, name: t.name, status: s.status, from: before, manual: s.manual },
      });
    }
  }

  /** How a bill closed as paid marks its orders paid: by whom, through which channel, with what payment info. */
  interface PaidAs {
    actor: Actor;
    payment: PaymentInfo;
  }
  /** Bills paid in full by the floor itself (a cancellation or a counter payment settling the rest, the minute job). */
  const TABLE_PAYMENT: PaymentInfo = { provider: 'tafel' };

  /**
   * Marks every order of a (root) bill's family that is not cancelled and not paid yet paid, inside
   * `w` (orders.markPaidIn: `order.paid` once per order and the orders' `paid` hooks, e.g. loyalty).
   * Call it only after the bill is closed: the floor's own `paid` hook then sees a closed bill and
   * records no payment of its own. Returns the ids it marked.
   */
  async function markOrdersPaid(w: Writer, root: BillRow, as: PaidAs): Promise<string[]> {
    const fam = await familyOf(w.trx, root.tenant_id, root);
    const ids = fam.orders.filter((o) => o.status !== 'cancelled' && o.payment_status !== 'paid').map((o) => o.id);
    const marked: string[] = [];
    for (const id of ids) {
      try {
        if ((await orders.markPaidIn(w, as.actor, id, as.payment)).changed) marked.push(id);
      } catch (err) {
        // Read in this same transaction under the restaurant's write lock, the order exists and is not
        // cancelled: a CONFLICT or NOT_FOUND here comes from a `paid` hook. It must fail the whole
        // write, never pass for a refusal of the payment, which a caller (payments.settle) records as
        // a note and commits: that would commit a closed bill with some of its orders unpaid.
        if (err instanceof AppError && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND')) {
          throw new Error(`floor: order ${id} of bill ${root.id} could not be marked paid: ${err.code} ${err.message}`, { cause: err });
        }
        throw err;
      }
    }
    return marked;
  }

  /**
   * Closes a (root) bill on this node. Closed as `paid`, its unpaid, non-cancelled orders are marked
   * paid in the same transaction (`paidAs`), so a closed, paid bill never has unpaid orders behind
   * it; closed by staff (`staff`, the rest is on the house) or `empty`, the orders are left as they are.
   */
  async function close(w: Writer, bill: BillRow, reason: 'paid' | 'staff' | 'empty', userId: string | null, paidAs?: PaidAs): Promise<{ row: BillRow; paidOrderIds: string[] }> {
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
    const paidOrderIds = reason === 'paid' ? await markOrdersPaid(w, row, paidAs ?? { actor: { tenantId: bill.tenant_id, userId, via: 'pos' }, payment: TABLE_PAYMENT }) : [];
    return { row, paidOrderIds };
  }

  /** Closes the bill of this order's round when it is paid in full or has nothing left (every order cancelled). */
  async function settleBillOf(w: Writer, actor: Actor, orderId: string): Promise<void> {
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
    if (reason) await close(w, root, reason, actor.userId, { actor, payment: TABLE_PAYMENT });
  }

  async function loadTable(exec: Executor, tenantId: string, id: string): Promise<TableRow> {
    const t = await repo.findTable(exec, tenantId, id);
    if (!t || t.archived_at) throw notFound('Tafel');
    return t;
  }

  async function loadZone(exec: Executor, tenantId: string, id: string): Promise<ZoneRow> {
    const z = await repo.findZone(exec, tenantId, id);
    if (!z || z.archived_at) throw notFound('Zone');
    return z;
  }

  async function assertNameFree(exec: Executor, tenantId: string, name: string, self?: string): Promise<void> {
    const other = await repo.findTableByName(exec, tenantId, name);
    if (other && other.id !== self) throw nameTaken(other.name);
  }

  /** The staff-facing bill: orders as the kitchen knows them, payments, figures. Read outside a transaction. */
  async function billDto(tenantId: string, bill: BillRow): Promise<Bill> {
    const fam = await familyOf(db, tenantId, bill);
    const table = await repo.findTable(db, tenantId, bill.table_id);
    const list: Order[] = [];
    for (const r of fam.rounds) {
      try {
        list.push(await orders.get(tenantId, r.order_id));
      } catch (err) {
        // An order whose round arrived before the order itself (sync): it shows up once it is here.
        if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
      }
    }
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
    };
  }

  async function loadBill(exec: Executor, tenantId: string, id: string): Promise<BillRow> {
    const bill = await repo.findBill(exec, tenantId, id);
    if (!bill) throw notFound('Rekening');
    return bill;
  }

  const service = {
    /** The composition root hands the reservations module's lookup in (the two modules call each other). */
    useReservations(lookup: ReservationsLookup): void {
      reservations = lookup;
    },

    // ── zones (admin) ──
    async listZones(tenantId: string): Promise<Zone[]> {
      return (await repo.listZones(db, tenantId, false)).map(toZoneDto);
    },

    async createZone(tenantId: string, input: CreateZoneInput): Promise<Zone> {
      return changes.write(tenantId, async (w) => {
        const row: ZoneRow = { id: newId(), tenant_id: tenantId, name: input.name, position: input.position ?? 0, created_at: w.now, updated_at: w.now, archived_at: null };
        await repo.insertZone(w.trx, row);
        await w.record(zoneChange(row, 'zone.created'));
        return toZoneDto(row);
      });
    },

    async updateZone(tenantId: string, id: string, input: UpdateZoneInput): Promise<Zone> {
      return changes.write(tenantId, async (w) => {
        const cur = await loadZone(w.trx, tenantId, id);
        const fields: Partial<ZoneRow> = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
        const row: ZoneRow = { ...cur, ...fields, updated_at: w.now };
        await repo.updateZone(w.trx, row);
        await w.record(zoneChange(row, 'zone.updated', fields));
        return toZoneDto(row);
      });
    },

    /** Archives an empty zone; one that still has tables is refused (move or archive them first). */
    async archiveZone(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await loadZone(w.trx, tenantId, id);
        if ((await repo.countLiveTablesInZone(w.trx, tenantId, id)) > 0) throw conflict(`Zone '${cur.name}' heeft nog tafels; verplaats of verwijder die eerst.`);
        const row: ZoneRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await repo.updateZone(w.trx, row);
        await w.record(zoneChange(row, 'zone.archived', { archived_at: w.now }));
      });
    },

    // ── tables (admin) ──
    async createTable(tenantId: string, input: CreateTableInput): Promise<Table> {
      return changes.write(tenantId, async (w) => {
        await loadZone(w.trx, tenantId, input.zone_id);
        await assertNameFree(w.trx, tenantId, input.name);
        const row: TableRow = {
          id: newId(),
          tenant_id: tenantId,
          zone_id: input.zone_id,
          name: input.name,
          seats: input.seats,
          x: input.x,
          y: input.y,
          shape: input.shape ?? 'rect',
          reservable: input.reservable === false ? 0 : 1,
          status_override: null,
          override_at: null,
          created_at: w.now,
          updated_at: w.now,
          archived_at: null,
        };
        await repo.insertTable(w.trx, row);
        await w.record(tableChange(row, 'table.created'));
        return toTableDto(row);
      });
    },

    async updateTable(tenantId: string, id: string, input: UpdateTableInput): Promise<Table> {
      return changes.write(tenantId, async (w) => {
        const cur = await loadTable(w.trx, tenantId, id);
        if (input.zone_id !== undefined) await loadZone(w.trx, tenantId, input.zone_id);
        if (input.name !== undefined) await assertNameFree(w.trx, tenantId, input.name, id);
        const { reservable, ...rest } = input;
        const fields: Partial<TableRow> = {
          ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
          ...(reservable === undefined ? {} : { reservable: reservable ? 1 : 0 }),
        };
        const row: TableRow = { ...cur, ...fields, updated_at: w.now };
        await repo.updateTable(w.trx, row);
        await w.record(tableChange(row, 'table.updated', fields));
        return toTableDto(row);
      });
    },

    /** Archives a table (history refers to it); refused while it has an open bill or bookings to come. */
    async archiveTable(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await loadTable(w.trx, tenantId, id);
        if (await repo.findOpenBill(w.trx, tenantId, id)) throw conflict(`Tafel '${cur.name}' heeft nog een open rekening.`);
        if (reservations && (await reservations.hasFutureBookings(w.trx, tenantId, id, w.now))) {
          throw conflict(`Tafel '${cur.name}' heeft nog reserveringen; verplaats of annuleer die eerst.`);
        }
        const row: TableRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await repo.updateTable(w.trx, row);
        await w.record(tableChange(row, 'table.archived', { archived_at: w.now }));
      });
    },

    /** A live table by its name, without case (pay-at-table's URL names the table). */
    async tableByName(tenantId: string, name: string): Promise<Table> {
      const t = await repo.findTableByName(db, tenantId, name);
      if (!t) throw notFound('Tafel');
      return toTableDto(t);
    },

    /** Live tables that may be given to reservations, through `exec` (a transaction when booking). */
    async bookableTables(exec: Executor, tenantId: string): Promise<TableRow[]> {
      return (await repo.listTables(exec, tenantId)).filter((t) => t.reservable === 1);
    },

    /** Tables with guests right now: an open bill or an active order on them (bookings starting soon avoid them). */
    async occupiedTables(exec: Executor, tenantId: string): Promise<Set<string>> {
      const [open, active] = await Promise.all([repo.openBills(exec, tenantId), repo.tablesWithActiveOrders(exec, tenantId)]);
      return new Set([...open.map((b) => b.table_id), ...active]);
    },

    /** Every table's name by id, archived ones included (for lists of bookings). */
    async tableNames(tenantId: string): Promise<Map<string, string>> {
      return new Map((await repo.listTables(db, tenantId, true)).map((t) => [t.id, t.name]));
    },

    async findTable(exec: Executor, tenantId: string, id: string): Promise<TableRow | undefined> {
      const t = await repo.findTable(exec, tenantId, id);
      return t && !t.archived_at ? t : undefined;
    },

    // ── the floor plan with live status (session) ──
    async floorplan(tenantId: string): Promise<FloorPlan> {
      const [zones, tables] = await Promise.all([repo.listZones(db, tenantId, true), repo.listTables(db, tenantId)]);
      const { statuses, open } = await computeStatuses(db, tenantId, tables, clock.now());
      const fams = new Map((await families(db, tenantId, open)).map((f) => [f.root.table_id, f]));
      const used = new Set(tables.map((t) => t.zone_id));
      return {
        zones: zones
          .filter((z) => !z.archived_at || used.has(z.id))
          .map((z) => ({
            id: z.id,
            name: z.name,
            tables: tables
              .filter((t) => t.zone_id === z.id)
              .map((t): FloorTable => {
                const s = statuses.get(t.id)!;
                const fam = fams.get(t.id);
                return {
                  id: t.id,
                  name: t.name,
                  seats: t.seats,
                  x: t.x,
                  y: t.y,
                  shape: t.shape,
                  status: s.status,
                  manual: s.manual,
                  bill: fam ? { id: fam.root.id, total_cents: fam.figures.total_cents, open_cents: fam.figures.open_cents } : null,
                  reservation: s.booking ? { id: s.booking.id, time: s.booking.time, name: s.booking.name, party_size: s.booking.party_size } : null,
                };
              }),
          })),
      };
    },

    /** All-or-nothing: every id must be a live table of this restaurant, or nothing moves. */
    async setPositions(tenantId: string, input: PositionsInput): Promise<Table[]> {
      return changes.write(tenantId, async (w) => {
        const ids = input.tables.map((t) => t.id);
        const found = new Map((await repo.findTables(w.trx, tenantId, ids)).filter((t) => !t.archived_at).map((t) => [t.id, t]));
        const missing = input.tables.findIndex((t) => !found.has(t.id));
        if (missing >= 0) {
          throw new AppError('NOT_FOUND', 'Tafel niet gevonden; er is niets verplaatst.', {
            details: [{ field: `tables.${missing}.id`, error: `'tables.${missing}.id' is geen tafel van dit restaurant.` }],
          });
        }
        const out: Table[] = [];
        for (const p of input.tables) {
          const cur = found.get(p.id)!;
          if (cur.x === p.x && cur.y === p.y) {
            out.push(toTableDto(cur));
            continue;
          }
          const row: TableRow = { ...cur, x: p.x, y: p.y, updated_at: w.now };
          await repo.updateTable(w.trx, row);
          await w.record(tableChange(row, 'table.updated', { x: p.x, y: p.y }));
          out.push(toTableDto(row));
        }
        return out;
      });
    },

    /** Sets (or with null clears) the manual status; the new live status is announced in the same transaction. */
    async setOverride(tenantId: string, id: string, status: TableStatus | null): Promise<FloorTable> {
      await changes.write(tenantId, async (w) => {
        const cur = await loadTable(w.trx, tenantId, id);
        if (cur.status_override !== status) {
          const row: TableRow = { ...cur, status_override: status, override_at: status ? w.now : null, updated_at: w.now };
          await repo.updateTable(w.trx, row);
          await w.record(tableChange(row, 'table.updated', { status_override: row.status_override, override_at: row.override_at }));
        }
        await refresh(w, tenantId, [id]);
      });
      const plan = await service.floorplan(tenantId);
      return plan.zones.flatMap((z) => z.tables).find((t) => t.id === id)!;
    },

    // ── order hooks (registered in the composition root) ──
    /** `creating`: an order's table must be a live table of this restaurant (404 otherwise, like any foreign id). */
    async orderCreating(w: Writer, actor: Actor, row: OrdersTable): Promise<void> {
      if (row.table_id) await loadTable(w.trx, actor.tenantId, row.table_id);
    },

    /**
     * `created`: the order is a round of its table's open bill, or opens it. Inside the order's
     * transaction, under the restaurant's write lock; the unique index on the open bill per table is
     * the database's guarantee on top (two first rounds at once: one bill).
     */
    async orderCreated(w: Writer, actor: Actor, order: Order): Promise<void> {
      if (!order.table_id) return;
      const tenantId = actor.tenantId;
      let bill = await repo.findOpenBill(w.trx, tenantId, order.table_id);
      if (!bill) {
        bill = { id: newId(), tenant_id: tenantId, table_id: order.table_id, status: 'open', opened_at: w.now, closed_at: null, close_reason: null, closed_by: null, merged_into: null, conflict: null, created_at: w.now, updated_at: w.now };
        await repo.insertBill(w.trx, bill);
        await w.record(billChange(bill.id, 'bill.opened', { bill: strip(bill) }));
      }
      const round: RoundRow = { id: floorId('bill-round', order.id), tenant_id: tenantId, bill_id: bill.id, order_id: order.id, table_id: order.table_id, created_at: w.now };
      await repo.insertRound(w.trx, round);
      await w.record(billChange(bill.id, 'bill.round_added', { round: strip(round) }));
      await refresh(w, tenantId, [order.table_id]);
    },

    /** `statusChanged`: a cancelled round may leave the bill paid in full or empty; the table's status may change. */
    async orderStatusChanged(w: Writer, actor: Actor, order: Order): Promise<void> {
      if (!order.table_id) return;
      if (order.status === 'cancelled') await settleBillOf(w, actor, order.id);
      await refresh(w, actor.tenantId, [order.table_id]);
    },

    /**
     * `paid`: an order paid on its own (at the counter) pays its part of the open bill: a payment of
     * the order's total (at most what is open) with an id derived from the order, so both sides of an
     * outage marking it paid record it once.
     */
    async orderPaid(w: Writer, actor: Actor, order: Order): Promise<void> {
      if (!order.table_id) return;
      const tenantId = actor.tenantId;
      const round = await repo.roundOfOrder(w.trx, tenantId, order.id);
      const bill = round ? await repo.findBill(w.trx, tenantId, round.bill_id) : undefined;
      if (bill) {
        const root = await rootOf(w.trx, tenantId, bill);
        if (root.status === 'open') {
          const fam = await familyOf(w.trx, tenantId, root);
          const amount = Math.min(order.total_cents, fam.figures.open_cents);
          const id = floorId('bill-payment-order', order.id);
          if (amount > 0 && !(await repo.findPayment(w.trx, id))) {
            const payment: PaymentRow = { id, tenant_id: tenantId, bill_id: root.id, amount_cents: amount, tip_cents: 0, source: 'order', payment_id: null, order_id: order.id, created_by: actor.userId, created_at: w.now };
            await repo.insertPayment(w.trx, payment);
            await w.record(billChange(root.id, 'bill.payment_recorded', { payment: strip(payment) }));
          }
          await settleBillOf(w, actor, order.id);
        }
      }
      await refresh(w, tenantId, [order.table_id]);
    },

    // ── bills ──
    /**
     * Pay-at-table (issue 12): the table by name (NOT_FOUND when unknown) and its open bill:
     * `{ table: {id, name}, orders, total_cents, paid_cents, open_cents, bill_id }`; a table without
     * an open bill answers zeros and `bill_id: null`. Cancelled orders are left out of `orders`.
     */
    async billForTable(tenantId: string, tableName: string): Promise<TableBill> {
      const t = await repo.findTableByName(db, tenantId, tableName);
      if (!t) throw notFound('Tafel');
      const open = await repo.findOpenBill(db, tenantId, t.id);
      if (!open) return { table: { id: t.id, name: t.name }, orders: [], total_cents: 0, paid_cents: 0, open_cents: 0, bill_id: null };
      const bill = await billDto(tenantId, open);
      return {
        table: { id: t.id, name: t.name },
        orders: bill.orders.filter((o) => o.status !== 'cancelled'),
        total_cents: bill.total_cents,
        paid_cents: bill.paid_cents,
        open_cents: bill.open_cents,
        bill_id: bill.id,
      };
    },

    async getBill(tenantId: string, id: string): Promise<Bill> {
      return billDto(tenantId, await loadBill(db, tenantId, id));
    },

    /** The open bill of a table (staff); NOT_FOUND when the table has none. */
    async tableBill(tenantId: string, tableId: string): Promise<Bill> {
      await loadTable(db, tenantId, tableId);
      const open = await repo.findOpenBill(db, tenantId, tableId);
      if (!open) throw notFound('Open rekening');
      return billDto(tenantId, open);
    },

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
    async recordBillPayment(w: Writer, input: BillPaymentRequest): Promise<BillPaymentResult> {
      const { tenantId } = input;
      const amount = input.amount_cents;
      const tip = input.tip_cents ?? 0;
      if (!Number.isInteger(amount) || amount < 1 || amount > 10_000_000) throw invalidField('amount_cents', 'moet een geheel aantal centen van 1 tot 10.000.000 zijn.');
      if (!Number.isInteger(tip) || tip < 0 || tip > 1_000_000) throw invalidField('tip_cents', 'moet een geheel aantal centen van 0 tot 1.000.000 zijn.');
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
      if (amount > before.figures.open_cents) {
        throw conflict(`Het bedrag (${euro(amount)}) is hoger dan wat nog openstaat (${euro(before.figures.open_cents)}).`);
      }
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
      };
      await repo.insertPayment(w.trx, payment);
      await w.record(billChange(root.id, 'bill.payment_recorded', { payment: strip(payment) }));
      const after = await familyOf(w.trx, tenantId, root);
      const reason = settledReason(after.figures, after.orders);
      let paidOrderIds: string[] = [];
      if (reason === 'paid') {
        const actor: Actor = { tenantId, userId: input.userId ?? null, via: input.via ?? (payment.source === 'staff' ? 'pos' : 'web') };
        paidOrderIds = (await close(w, root, 'paid', input.userId ?? null, { actor, payment: input.order_payment ?? TABLE_PAYMENT })).paidOrderIds;
      }
      await refresh(w, tenantId, [root.table_id]);
      return result(after, payment, reason === 'paid', false, paidOrderIds);
    },

    /**
     * Staff take a payment at the table (cash, card terminal); when it pays the bill in full, the bill
     * closes and its orders are marked paid (`provider: 'tafel'`), all in this one transaction.
     */
    async payBill(actor: Actor, billId: string, input: BillPaymentInput): Promise<{ bill: Bill; payment: BillPayment }> {
      const r = await changes.write(actor.tenantId, (w) =>
        service.recordBillPayment(w, {
          tenantId: actor.tenantId,
          billId,
          amount_cents: input.amount_cents,
          tip_cents: input.tip_cents,
          source: 'staff',
          userId: actor.userId,
          via: actor.via,
          order_payment: TABLE_PAYMENT,
        }),
      );
      return { bill: await service.getBill(actor.tenantId, r.bill_id), payment: r.payment };
    },

    /** Staff close a bill (e.g. the rest is on the house); the table is then free. */
    async closeBill(actor: Actor, id: string): Promise<Bill> {
      await changes.write(actor.tenantId, async (w) => {
        const bill = await loadBill(w.trx, actor.tenantId, id);
        if (bill.status === 'merged') throw conflict('Deze rekening is samengevoegd met een andere rekening van dezelfde tafel; sluit die.');
        if (bill.status !== 'open') throw billClosed();
        await close(w, bill, 'staff', actor.userId);
        await refresh(w, actor.tenantId, [bill.table_id]);
      });
      return service.getBill(actor.tenantId, id);
    },

    /**
     * The floor's minute job (and the safety net after sync): closes open bills that are settled
     * (payments or cancellations that arrived through sync), then announces every table whose
     * status changed since it was last announced here (a booking coming within the hour, a bill
     * closed elsewhere). Writes only for tenants where something changed.
     */
    async refreshStatuses(): Promise<void> {
      // Once per process, on the job's first run after start: the repair of bills this node closed as
      // paid whose orders were left unpaid (repairPaidBills). A failure is thrown (and logged by the
      // scheduler) after the statuses were refreshed, and not tried again until the next start.
      let repairFailed: unknown;
      if (!repairDone) {
        repairDone = true;
        try {
          await service.repairPaidBills();
        } catch (err) {
          repairFailed = err;
        }
      }
      for (const tenantId of await repo.tenantsWithTables(db)) {
        // A restaurant with an appliance: the appliance announces the floor (the cloud's tablets hear it through sync).
        if (changes.origin === 'cloud' && deps.hasAppliance && (await deps.hasAppliance(tenantId))) continue;
        await service.refreshTenant(tenantId);
      }
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows the caught error as it was
      if (repairFailed !== undefined) throw repairFailed;
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
                if (root && root.status === 'closed' && root.close_reason === 'paid') out.push(...(await markOrdersPaid(w, root, { actor, payment: TABLE_PAYMENT })));
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

    async refreshTenant(tenantId: string): Promise<void> {
      const tables = await repo.listTables(db, tenantId);
      if (tables.length === 0) return;
      const { statuses, open } = await computeStatuses(db, tenantId, tables, clock.now());
      const announced = new Map((await repo.announced(db, tenantId)).map((r) => [r.table_id, r.status]));
      const settled = (await families(db, tenantId, open)).some((f) => settledReason(f.figures, f.orders) !== null);
      const changed = tables.some((t) => statuses.get(t.id)!.status !== (announced.get(t.id) ?? 'vrij'));
      if (!settled && !changed) return;
      await changes.write(tenantId, async (w) => {
        for (const f of await families(w.trx, tenantId, await repo.openBills(w.trx, tenantId))) {
          const reason = settledReason(f.figures, f.orders);
          // Settled by payments or cancellations that arrived through sync; closed as paid here, the
          // orders are marked paid here too (in this transaction), by the job.
          if (reason) await close(w, f.root, reason, null, { actor: { tenantId, userId: null, via: 'pos' }, payment: TABLE_PAYMENT });
        }
        await refresh(w, tenantId);
      });
    },

    /** Announces the status of these tables inside a caller's transaction (reservations call it after a booking). */
    refreshIn: (w: Writer, tenantId: string, tableIds: string[]) => refresh(w, tenantId, tableIds),
  };
  return service;
}

export type FloorService = ReturnType<typeof createFloorService>;
