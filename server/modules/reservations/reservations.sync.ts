import { sql } from 'kysely';
import { z } from 'zod';
import { ROWS_PER_INSERT, type Tx } from '../../db/connection.js';
import type { ReservationsTable, TenantsTable } from '../../db/database.js';
import { assertTenantRef, parsePayload, pick, upsertManyById } from '../../../sync/apply-helpers.js';
import { chunks, defineBatchStore, knownRefs, selectUnion } from '../../../sync/batch-store.js';
import { RejectOp, snapshotNext, type ApplyBatch, type BatchState, type EntityDescriptor } from '../../../sync/types.js';
import { ReservationRow } from './reservations.schemas.js';
import { bookingInstant } from './reservations.rules.js';
import { settingsOf } from '../tenants/tenants.service.js';

/**
 * Reservations across sync (docs/reservations.md, "Capacity across sync"). The cloud is the one
 * authority for bookable capacity: public bookings are taken there, under its write lock. A booking
 * staff made on the appliance while it could not reach the cloud arrives later (merge): if its
 * table is free in the cloud's view it is taken as it is; if the table is taken by then, the cloud
 * moves it to another free table that fits, and if there is none it keeps the booking (the guest
 * was promised a table) on its table with a `conflict` note for staff to resolve. Either way the
 * outcome is a visible conflict (the op's result, the booking's `conflict` field). Status, table,
 * the guest's details and the moment (date, time, start and end together) are last-writer-wins per
 * field in cloud apply order; a table or moment that collides there carries a conflict note; an
 * appliance adopts the cloud's row.
 */

const HOLDING = ['booked', 'seated'] as const;

const Payload = z.object({ reservation: ReservationRow, fields: z.record(z.string(), z.unknown()).optional() });

/** Where `apply` reads and writes reservations: at once (no batch), or through the batch's `ReservationsBatch`. */
interface ReservationStore {
  current(id: string): Promise<ReservationsTable | undefined>;
  /** Another booked or seated reservation on `tableId` overlapping `row`'s window. */
  collides(row: ReservationsTable, tableId: string): Promise<boolean>;
  /** `collides` is about to be asked for many tables in `row`'s window (the search for another table). */
  forWindow(row: ReservationsTable): Promise<void>;
  timezone(tenantId: string): Promise<string>;
  assertRef(table: 'floor_tables' | 'users', id: string | null, tenantId: string, what: string): Promise<void>;
  /** Insert (`exists` false), or overwrite the given columns of the row with this id. */
  write(row: ReservationsTable, exists: boolean): Promise<void>;
}

const overlapping = (trx: Tx, tenantId: string, from: string, to: string) =>
  trx.selectFrom('reservations').selectAll().where('tenant_id', '=', tenantId).where('status', 'in', HOLDING).where('starts_at', '<', to).where('ends_at', '>', from);

const directStore = (trx: Tx, batch: ApplyBatch | undefined): ReservationStore => ({
  current: (id) => trx.selectFrom('reservations').selectAll().where('id', '=', id).executeTakeFirst(),
  async collides(row, tableId) {
    const other = await overlapping(trx, row.tenant_id, row.starts_at, row.ends_at).clearSelect().select('id').where('table_id', '=', tableId).where('id', '!=', row.id).executeTakeFirst();
    return other !== undefined;
  },
  forWindow: async () => {},
  timezone: async (tenantId) => settingsOf(await trx.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirstOrThrow()).timezone,
  assertRef: (table, id, tenantId, what) => assertTenantRef(trx, table, id, tenantId, what, batch),
  write: async (row, exists) => void (exists ? await trx.updateTable('reservations').set(row).where('id', '=', row.id).execute() : await trx.insertInto('reservations').values(row).execute()),
});

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * A batch's reservations (ApplyContext.batch: the cloud's push chunk, an appliance's pull page). At
 * first use one statement reads the batch's reservations and the booked or seated ones that could
 * collide with them (on their tables, in their windows), and one more the restaurant's time zone and
 * the tables and staff they name. From then on the batch reads reservations here (the database at
 * its start with its own writes on top: two bookings of one chunk for one table collide as they
 * would one by one) and writes each changed reservation once, at the flush (a multi-row upsert).
 */
class ReservationsBatch implements BatchState, ReservationStore {
  /** id → the reservation as it is now (database at the start, then as written); null: not there. */
  private readonly rows = new Map<string, ReservationsTable | null>();
  /** Windows whose booked and seated reservations (on these tables, or all: null) are all in `rows`. */
  private readonly windows: Array<{ tables: Set<string> | null; from: string; to: string }> = [];
  private readonly dirty = new Map<string, ReservationsTable>();
  private zone: string | undefined;

  constructor(
    private readonly trx: Tx,
    private readonly tenantId: string,
    private readonly batch: ApplyBatch,
  ) {}

  async prefetch(): Promise<void> {
    const ids = new Set<string>();
    const tables = new Set<string>();
    const users = new Set<string>();
    let from: string | undefined;
    let to: string | undefined;
    // The time zone may change in the batch (a settings change before a booking): then read it per booking.
    let settingsChange = false;
    for (const c of this.batch.changes) {
      if (c.tenant_id !== this.tenantId) continue;
      if (c.entity === 'tenant') settingsChange = true;
      if (c.entity !== 'reservation' || !c.payload || typeof c.payload !== 'object') continue;
      const p = c.payload as { reservation?: Record<string, unknown>; fields?: Record<string, unknown> };
      ids.add(c.entity_id);
      const r = p.reservation && typeof p.reservation === 'object' ? p.reservation : {};
      const table = c.kind === 'reservation.created' ? str(r.table_id) : str(p.fields?.table_id);
      if (c.kind === 'reservation.created' && str(r.created_by)) users.add(r.created_by as string);
      const [starts, ends] = [str(r.starts_at), str(r.ends_at)];
      if (!table || !starts || !ends) continue;
      tables.add(table);
      if (from === undefined || starts < from) from = starts;
      if (to === undefined || ends > to) to = ends;
    }
    if (ids.size === 0) return;
    // The time zone, the tables and the staff: one statement.
    const found = await selectUnion<{ v: string }>(this.trx, [
      ...(settingsChange ? [] : [{ table: 'tenants' as const, ids: [this.tenantId], columns: sql`settings as v` }]),
      { table: 'floor_tables', ids: tables, columns: sql`tenant_id as v` },
      { table: 'users', ids: users, columns: sql`tenant_id as v` },
    ]);
    for (const r of found) {
      if (r.t === 'tenants') this.zone = settingsOf({ name: '', settings: r.v } as TenantsTable).timezone;
      else if (r.v === this.tenantId) knownRefs(this.batch, r.t)!.add(r.id);
    }
    // The reservations, and what may collide with them.
    const list = [...ids];
    const window = from !== undefined && to !== undefined && tables.size <= ROWS_PER_INSERT ? { tables, from, to } : undefined;
    for (const [i, slice] of chunks(list).entries()) {
      const near = window && i === 0;
      let q = this.trx.selectFrom('reservations').selectAll();
      q = near
        ? q.where((eb) =>
            eb.or([
              eb('id', 'in', slice),
              eb.and([eb('tenant_id', '=', this.tenantId), eb('table_id', 'in', [...window.tables]), eb('status', 'in', HOLDING), eb('starts_at', '<', window.to), eb('ends_at', '>', window.from)]),
            ]),
          )
        : q.where('id', 'in', slice);
      const rows = await q.execute();
      for (const id of slice) this.rows.set(id, null);
      for (const r of rows) this.rows.set(r.id, r);
      if (near) this.windows.push(window);
    }
  }

  async current(id: string): Promise<ReservationsTable | undefined> {
    if (!this.rows.has(id)) this.rows.set(id, (await this.trx.selectFrom('reservations').selectAll().where('id', '=', id).executeTakeFirst()) ?? null);
    return this.rows.get(id) ?? undefined;
  }

  private covered(tableId: string | null, from: string, to: string): boolean {
    return this.windows.some((w) => (w.tables === null || (tableId !== null && w.tables.has(tableId))) && w.from <= from && to <= w.to);
  }

  /** Reads the booked and seated reservations in a window (of one table, or all) that the batch does not hold yet. */
  private async load(tableId: string | null, from: string, to: string): Promise<void> {
    let q = overlapping(this.trx, this.tenantId, from, to);
    if (tableId !== null) q = q.where('table_id', '=', tableId);
    for (const r of await q.execute()) if (!this.rows.has(r.id)) this.rows.set(r.id, r);
    this.windows.push({ tables: tableId === null ? null : new Set([tableId]), from, to });
  }

  async collides(row: ReservationsTable, tableId: string): Promise<boolean> {
    if (!this.covered(tableId, row.starts_at, row.ends_at)) await this.load(tableId, row.starts_at, row.ends_at);
    for (const o of this.rows.values()) {
      if (!o || o.id === row.id || o.tenant_id !== row.tenant_id || o.table_id !== tableId) continue;
      if (HOLDING.includes(o.status as (typeof HOLDING)[number]) && o.starts_at < row.ends_at && o.ends_at > row.starts_at) return true;
    }
    return false;
  }

  async forWindow(row: ReservationsTable): Promise<void> {
    if (!this.covered(null, row.starts_at, row.ends_at)) await this.load(null, row.starts_at, row.ends_at);
  }

  async timezone(tenantId: string): Promise<string> {
    return this.zone !== undefined && tenantId === this.tenantId ? this.zone : directStore(this.trx, this.batch).timezone(tenantId);
  }

  async assertRef(table: 'floor_tables' | 'users', id: string | null, tenantId: string, what: string): Promise<void> {
    await assertTenantRef(this.trx, table, id, tenantId, what, this.batch);
  }

  async write(row: ReservationsTable): Promise<void> {
    // Whether it exists or not: the flush's upsert inserts or overwrites.
    const next = { ...(this.rows.get(row.id) ?? {}), ...row } as ReservationsTable;
    this.rows.set(row.id, next);
    this.dirty.set(row.id, next);
  }

  async flush(trx: Tx): Promise<void> {
    await upsertManyById(trx, 'reservations', this.dirty.values() as Iterable<ReservationsTable & Record<string, unknown>>);
    this.dirty.clear();
  }
}

const reservationStore = defineBatchStore<ReservationStore, ReservationsBatch>({
  key: 'reservations',
  direct: (trx, ctx) => directStore(trx, ctx.batch),
  create: (s) => new ReservationsBatch(s.trx, s.tenantId, s.batch),
  prefetch: (b) => b.prefetch(),
});

async function tableName(trx: Tx, id: string): Promise<string> {
  return (await trx.selectFrom('floor_tables').select('name').where('id', '=', id).executeTakeFirst())?.name ?? '?';
}

/** A booking's window is its local date and time in the restaurant's time zone, for at most 10 hours (as the API makes it). */
async function assertWindow(store: ReservationStore, row: ReservationsTable): Promise<void> {
  const at = bookingInstant(row.date, row.time, await store.timezone(row.tenant_id));
  const minutes = (Date.parse(row.ends_at) - Date.parse(row.starts_at)) / 60_000;
  if (!at || at.toISOString() !== row.starts_at || !(minutes >= 15 && minutes <= 600)) throw new RejectOp('De tijden van deze reservering kloppen niet.');
}

/**
 * The cloud's capacity check of a booking that arrives from an appliance: its table if free, else
 * another free reservable table that fits, else its own table with a conflict note.
 */
async function placeArriving(trx: Tx, store: ReservationStore, row: ReservationsTable): Promise<{ row: ReservationsTable; conflict?: string }> {
  if (!HOLDING.includes(row.status as (typeof HOLDING)[number]) || !row.table_id) return { row };
  if (!(await store.collides(row, row.table_id))) return { row };
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
  await store.forWindow(row);
  for (const t of candidates) {
    if (t.id === row.table_id) continue;
    if (!(await store.collides(row, t.id))) {
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
      const store = await reservationStore.of(trx, ctx, change.tenant_id);
      const current = await store.current(change.entity_id);
      if (current && current.tenant_id !== tenantId) throw new RejectOp('Deze reservering hoort bij een ander restaurant.');
      const incoming: ReservationsTable = { ...p.reservation, tenant_id: tenantId };
      const strip = (r: ReservationsTable) => {
        const { tenant_id: _t, ...rest } = r;
        return rest;
      };
      // Adopting, the cloud's row is the truth.
      if (ctx.mode === 'adopt') {
        await store.write(incoming, current !== undefined);
        return;
      }
      if (change.kind === 'reservation.snapshot') throw new RejectOp('Een momentopname van een reservering komt alleen uit de cloud.');
      if (change.kind === 'reservation.created') {
        if (current) return { payload: { reservation: strip(current) } };
        await store.assertRef('floor_tables', incoming.table_id, tenantId, 'De tafel van deze reservering');
        await store.assertRef('users', incoming.created_by, tenantId, 'De medewerker van deze reservering');
        await assertWindow(store, incoming);
        if (incoming.status !== 'booked') throw new RejectOp('Een nieuwe reservering moet geboekt zijn.');
        const placed = await placeArriving(trx, store, incoming);
        await store.write(placed.row, false);
        return { payload: { reservation: strip(placed.row) }, ...(placed.conflict ? { conflict: placed.conflict } : {}) };
      }
      // reservation.updated: the fields the writer changed, last writer wins per field.
      if (!current) throw new RejectOp('Reservering niet gevonden.');
      // What staff may change (PATCH /reservations/:id), and the conflict note sync itself sets or clears.
      // Staff may also change the guest's details and the moment (issue 26): the four window fields travel together.
      const fields = pick<Record<string, unknown>>(p.fields ?? {}, ['status', 'table_id', 'conflict', 'name', 'phone', 'email', 'notes', 'party_size', 'date', 'time', 'starts_at', 'ends_at'] as never);
      parsePayload(ReservationRow.partial(), fields, 'een reservering');
      const windowFields = ['date', 'time', 'starts_at', 'ends_at'].filter((k) => k in fields);
      if (windowFields.length !== 0 && windowFields.length !== 4) throw new RejectOp('Een ander tijdstip van een reservering heeft datum, tijd, begin en einde samen.');
      let next: ReservationsTable = { ...current, ...(fields as Partial<ReservationsTable>), updated_at: incoming.updated_at > current.updated_at ? incoming.updated_at : current.updated_at };
      if (windowFields.length) await assertWindow(store, next);
      let conflict: string | undefined;
      const tableChanged = typeof fields.table_id === 'string' && fields.table_id !== current.table_id;
      if (tableChanged) await store.assertRef('floor_tables', fields.table_id as string, tenantId, 'De tafel van deze reservering');
      const windowChanged = next.starts_at !== current.starts_at || next.ends_at !== current.ends_at;
      if ((tableChanged || windowChanged) && next.table_id && HOLDING.includes(next.status as (typeof HOLDING)[number]) && (await store.collides(next, next.table_id))) {
        conflict = `Dubbel geboekt: tafel ${await tableName(trx, next.table_id)} is op ${next.date} om ${next.time} al gereserveerd. Verplaats of annuleer een van de reserveringen.`;
        next = { ...next, conflict };
      }
      await store.write(next, true);
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
