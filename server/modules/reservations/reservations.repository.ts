import type { Executor } from '../../db/connection.js';
import type { ReservationsTable } from '../../db/database.js';

export type ReservationRow = ReservationsTable;

/** Bookings that hold their table: booked or seated (cancelled and no-show free it). */
const HOLDING = ['booked', 'seated'] as const;

export const reservationsRepository = {
  find: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('reservations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  byDate: (db: Executor, tenantId: string, date: string) =>
    db.selectFrom('reservations').selectAll().where('tenant_id', '=', tenantId).where('date', '=', date).orderBy('time').orderBy('name').orderBy('id').execute(),

  /** Bookings holding a table at some moment of [from, to). */
  holdingBetween: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('reservations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', 'in', HOLDING)
      .where('starts_at', '<', to)
      .where('ends_at', '>', from)
      .execute(),

  /** Booked or seated reservations with a table that start in [from, to] (the floor's live status). */
  startingBetween: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('reservations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', 'in', HOLDING)
      .where('table_id', 'is not', null)
      .where('starts_at', '>=', from)
      .where('starts_at', '<=', to)
      .execute(),

  /** Seated reservations still within their seating at `at` (guests seated up to `earliest` before their time count too). */
  seatedAt: (db: Executor, tenantId: string, at: string, earliest: string) =>
    db
      .selectFrom('reservations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'seated')
      .where('table_id', 'is not', null)
      .where('starts_at', '<=', earliest)
      .where('ends_at', '>', at)
      .execute(),

  hasFuture: async (db: Executor, tenantId: string, tableId: string, now: string) =>
    (await db
      .selectFrom('reservations')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('table_id', '=', tableId)
      .where('status', '=', 'booked')
      .where('starts_at', '>=', now)
      .limit(1)
      .executeTakeFirst()) !== undefined,

  insert: (db: Executor, row: ReservationRow) => db.insertInto('reservations').values(row).execute(),
  update: (db: Executor, row: ReservationRow) => db.updateTable('reservations').set(row).where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute(),
};
