import type { ChangeInput, ChangeLog, Writer } from '../../db/change-log.js';
import type { Db, Executor } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import type { JournalAppender } from '../journal/journal.service.js';
import type { OrdersService } from '../orders/orders.service.js';
import { floorRepository as repo, type BillRow, type TableRow, type ZoneRow } from './floor.repository.js';
import type { Table, Zone } from './floor.schemas.js';

/**
 * What every part of the floor service shares (floor.service.ts composes the parts): its
 * dependencies, the reservations lookup handed in after construction, the row → DTO mappers, the
 * change-log entries and the loaders that answer NOT_FOUND.
 */

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

export interface FloorDeps {
  db: Db;
  changes: ChangeLog;
  clock: Clock;
  orders: OrdersService;
  /** Cloud only: whether the restaurant has an appliance, which then runs the status job itself (its announcements sync up). */
  hasAppliance?: (tenantId: string) => Promise<boolean>;
  /** The till's journal (CONTRACT §19): every bill payment is appended to it in its own transaction. */
  journal?: JournalAppender;
}

/** The deps and the reservations lookup (null until the composition root hands it in). One per service. */
export interface FloorContext extends FloorDeps {
  reservations: ReservationsLookup | null;
  /** Run inside the transaction that closes a bill as paid on this node (the till gives it its receipt number). */
  billPaid: Array<(w: Writer, bill: BillRow, totalCents: number) => Promise<void>>;
}

export const toZoneDto = (r: ZoneRow): Zone => ({ id: r.id, name: r.name, position: r.position, created_at: r.created_at, updated_at: r.updated_at, archived_at: r.archived_at });
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
  public_code: r.public_code,
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});

export const strip = <T extends { tenant_id: string }>(row: T): Omit<T, 'tenant_id'> => {
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
export const billChange = (billId: string, kind: string, payload: Record<string, unknown>): ChangeInput => ({ entity: 'bill', entityId: billId, kind, payload });

/** A live table of this restaurant, or NOT_FOUND. */
export async function loadTable(exec: Executor, tenantId: string, id: string): Promise<TableRow> {
  const t = await repo.findTable(exec, tenantId, id);
  if (!t || t.archived_at) throw notFound('Tafel');
  return t;
}

/** A live zone of this restaurant, or NOT_FOUND. */
export async function loadZone(exec: Executor, tenantId: string, id: string): Promise<ZoneRow> {
  const z = await repo.findZone(exec, tenantId, id);
  if (!z || z.archived_at) throw notFound('Zone');
  return z;
}
