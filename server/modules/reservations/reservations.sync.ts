import { z } from 'zod';
import type { Tx } from '../../db/connection.js';
import type { ReservationsTable } from '../../db/database.js';
import { assertTenantRef, parsePayload, pick, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
import { ReservationRow } from './reservations.schemas.js';
import { zonedInstant } from './reservations.rules.js';
import { settingsOf } from '../tenants/tenants.service.js';

/**
 * Reservations across sync (docs/reservations.md, "Capacity across sync"). The cloud is the one
 * authority for bookable capacity: public bookings are taken there, under its write lock. A booking
 * staff made on the appliance while it could not reach the cloud arrives later (merge): if its
 * table is free in the cloud's view it is taken as it is; if the table is taken by then, the cloud
 * moves it to another free table that fits, and if there is none it keeps the booking (the guest
 * was promised a table) on its table with a `conflict` note for staff to resolve. Either way the
 * outcome is a visible conflict (the op's result, the booking's `conflict` field). Status and table
 * changes are last-writer-wins per field in cloud apply order; an appliance adopts the cloud's row.
 */

const HOLDING = ['booked', 'seated'] as const;

const Payload = z.object({ reservation: ReservationRow, fields: z.record(z.string(), z.unknown()).optional() });

async function collides(trx: Tx, row: ReservationsTable, tableId: string): Promise<boolean> {
  const other = await trx
    .selectFrom('reservations')
    .select('id')
    .where('tenant_id', '=', row.tenant_id)
    .where('table_id', '=', tableId)
    .where('id', '!=', row.id)
    .where('status', 'in', HOLDING)
    .where('starts_at', '<', row.ends_at)
    .where('ends_at', '>', row.starts_at)
    .executeTakeFirst();
  return other !== undefined;
}

async function tableName(trx: Tx, id: string): Promise<string> {
  return (await trx.selectFrom('floor_tables').select('name').where('id', '=', id).executeTakeFirst())?.name ?? '?';
}

/** A booking's window is its local date and time in the restaurant's time zone, for at most 10 hours (as the API makes it). */
async function assertWindow(trx: Tx, row: ReservationsTable): Promise<void> {
  const tenant = await trx.selectFrom('tenants').selectAll().where('id', '=', row.tenant_id).executeTakeFirstOrThrow();
  const at = zonedInstant(row.date, row.time, settingsOf(tenant).timezone);
  const minutes = (Date.parse(row.ends_at) - Date.parse(row.starts_at)) / 60_000;
  if (!at || at.toISOString() !== row.starts_at || !(minutes >= 15 && minutes <= 600)) throw new RejectOp('De tijden van deze reservering kloppen niet.');
}

/**
 * The cloud's capacity check of a booking that arrives from an appliance: its table if free, else
 * another free reservable table that fits, else its own table with a conflict note.
 */
async function placeArriving(trx: Tx, row: ReservationsTable): Promise<{ row: ReservationsTable; conflict?: string }> {
  if (!HOLDING.includes(row.status as (typeof HOLDING)[number]) || !row.table_id) return { row };
  if (!(await collides(trx, row, row.table_id))) return { row };
  const was = await tableName(trx, row.table_id);
  const candidates = await trx
    .selectFrom('floor_tables')
    .select(['id', 'name', 'seats'])
    .where('tenant_id', '=', row.tenant_id)
    .where('archived_at', 'is', null)
    .where('reservable', '=', 1)
    .where('seats', '>=', row.party_size)
    .orderBy('seats')
    .orderBy('name')
    .orderBy('id')
    .execute();
  for (const t of candidates) {
    if (t.id === row.table_id) continue;
    if (!(await collides(trx, row, t.id))) {
      const note = `Tafel ${was} was op dat moment al gereserveerd; deze reservering staat nu op tafel ${t.name}.`;
      return { row: { ...row, table_id: t.id, conflict: note }, conflict: note };
    }
  }
  const note = `Dubbel geboekt: tafel ${was} is op ${row.date} om ${row.time} al gereserveerd en er is geen andere tafel vrij. Verplaats of annuleer een van de reserveringen.`;
  return { row: { ...row, conflict: note }, conflict: note };
}

export const reservationsSync: EntityDescriptor[] = [
  {
    entity: 'reservation',
    merge: 'lww-fields',
    tables: ['reservations'],
    async apply(trx, change, ctx) {
      const tenantId = change.tenant_id;
      if (!['reservation.created', 'reservation.updated', 'reservation.snapshot'].includes(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const p = parsePayload(Payload, change.payload, 'een reservering');
      if (p.reservation.id !== change.entity_id) throw new RejectOp('Ongeldige wijziging voor een reservering.');
      const current = await trx.selectFrom('reservations').selectAll().where('id', '=', change.entity_id).executeTakeFirst();
      if (current && current.tenant_id !== tenantId) throw new RejectOp('Deze reservering hoort bij een ander restaurant.');
      const incoming: ReservationsTable = { ...p.reservation, tenant_id: tenantId };
      const strip = (r: ReservationsTable) => {
        const { tenant_id: _t, ...rest } = r;
        return rest;
      };
      // Adopting, the cloud's row is the truth.
      if (ctx.mode === 'adopt') {
        await upsertById(trx, 'reservations', incoming as unknown as { id: string } & Record<string, unknown>);
        return;
      }
      if (change.kind === 'reservation.snapshot') throw new RejectOp('Een momentopname van een reservering komt alleen uit de cloud.');
      if (change.kind === 'reservation.created') {
        if (current) return { payload: { reservation: strip(current) } };
        await assertTenantRef(trx, 'floor_tables', incoming.table_id, tenantId, 'De tafel van deze reservering', ctx.batch);
        await assertTenantRef(trx, 'users', incoming.created_by, tenantId, 'De medewerker van deze reservering', ctx.batch);
        await assertWindow(trx, incoming);
        if (incoming.status !== 'booked') throw new RejectOp('Een nieuwe reservering moet geboekt zijn.');
        const placed = await placeArriving(trx, incoming);
        await trx.insertInto('reservations').values(placed.row).execute();
        return { payload: { reservation: strip(placed.row) }, ...(placed.conflict ? { conflict: placed.conflict } : {}) };
      }
      // reservation.updated: the fields the writer changed, last writer wins per field.
      if (!current) throw new RejectOp('Reservering niet gevonden.');
      // What staff may change (PATCH /reservations/:id), and the conflict note sync itself sets or clears.
      const fields = pick<Record<string, unknown>>(p.fields ?? {}, ['status', 'table_id', 'conflict'] as never);
      parsePayload(ReservationRow.partial(), fields, 'een reservering');
      let next: ReservationsTable = { ...current, ...(fields as Partial<ReservationsTable>), updated_at: incoming.updated_at > current.updated_at ? incoming.updated_at : current.updated_at };
      let conflict: string | undefined;
      if (typeof fields.table_id === 'string' && fields.table_id !== current.table_id) {
        await assertTenantRef(trx, 'floor_tables', fields.table_id, tenantId, 'De tafel van deze reservering', ctx.batch);
        if (HOLDING.includes(next.status as (typeof HOLDING)[number]) && (await collides(trx, next, fields.table_id))) {
          conflict = `Dubbel geboekt: tafel ${await tableName(trx, fields.table_id)} is op ${next.date} om ${next.time} al gereserveerd. Verplaats of annuleer een van de reserveringen.`;
          next = { ...next, conflict };
        }
      }
      await trx.updateTable('reservations').set(next).where('id', '=', next.id).execute();
      return { payload: { reservation: strip(next), fields: p.fields }, ...(conflict ? { conflict } : {}) };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('reservations').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map(({ tenant_id: _t, ...reservation }) => ({ entity: 'reservation', entity_id: reservation.id, kind: 'reservation.snapshot', payload: { reservation }, created_at: reservation.updated_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
