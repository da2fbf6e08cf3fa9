import type { ChangeInput, ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import { conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { e164OrThrow } from '../../shared/phone.js';
import { addDays, isDate, wallClock } from '../../shared/zoned-time.js';
import type { FloorService, ReservationsLookup } from '../floor/floor.service.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import type { Settings } from '../tenants/tenants.schemas.js';
import { reservationsRepository as repo, type ReservationRow } from './reservations.repository.js';
import { bookingInstant, hoursOf, intervalsOf, overlaps, slotsOf, type OpeningRules } from './reservations.rules.js';
import type {
  Availability,
  PublicBookingInput,
  PublicReservation,
  Reservation,
  ReservationStatus,
  StaffBookingInput,
  UpdateReservationInput,
} from './reservations.schemas.js';

/** How far ahead a booking may be made. */
export const MAX_DAYS_AHEAD = 365;
/** Staff may enter a walk-in that began up to this long ago. */
export const WALK_IN_GRACE_MIN = 15;

export interface StaffActor {
  tenantId: string;
  userId: string | null;
}

const strip = (r: ReservationRow) => {
  const { tenant_id: _t, ...rest } = r;
  return rest;
};
export const reservationChange = (row: ReservationRow, kind: 'reservation.created' | 'reservation.updated', fields?: Partial<ReservationRow>): ChangeInput => ({
  entity: 'reservation',
  entityId: row.id,
  kind,
  payload: { reservation: strip(row), ...(fields ? { fields } : {}) },
});

export const toReservationDto = (r: ReservationRow, tableName: string | null): Reservation => ({
  id: r.id,
  date: r.date,
  time: r.time,
  starts_at: r.starts_at,
  ends_at: r.ends_at,
  party_size: r.party_size,
  name: r.name,
  phone: r.phone,
  email: r.email,
  notes: r.notes,
  table_id: r.table_id,
  table_name: tableName,
  status: r.status,
  source: r.source,
  conflict: r.conflict,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const toPublicDto = (r: ReservationRow): PublicReservation => ({ id: r.id, date: r.date, time: r.time, party_size: r.party_size, name: r.name, status: r.status, created_at: r.created_at });

const rulesOf = (s: Settings): OpeningRules => ({
  timezone: s.timezone,
  opening_hours: s.opening_hours as OpeningRules['opening_hours'],
  opening_exceptions: s.opening_exceptions,
  slot_minutes: s.slot_minutes,
  seating_minutes: s.seating_minutes,
});

/** The statuses as staff call them, for messages. */
const STATUS_NL: Record<ReservationStatus, string> = { booked: 'geboekt', seated: 'aan tafel', cancelled: 'geannuleerd', no_show: 'niet gekomen' };

/** Moves a booking may make (CONTRACT §16): booked → seated | cancelled | no_show; a late no-show can still be seated. */
export function allowedMove(from: ReservationStatus, to: ReservationStatus): boolean {
  if (from === to) return true;
  if (from === 'booked') return true;
  return from === 'no_show' && to === 'seated';
}

export function createReservationsService(deps: { db: Db; changes: ChangeLog; clock: Clock; tenants: TenantsService; floor: FloorService }) {
  const { db, changes, clock, tenants, floor } = deps;

  async function tenantBySlug(slug: string): Promise<string> {
    const t = await tenants.bySlug(slug);
    if (!t) throw notFound('Restaurant');
    return t.id;
  }

  /** A date to book or to show availability for: not in the past, not too far ahead (in the restaurant's calendar). */
  function checkDate(date: string, s: Settings, now: Date): void {
    if (!isDate(date)) throw invalidField('date', 'moet een bestaande datum zijn.');
    const today = wallClock(now, s.timezone).date;
    if (date < today) throw invalidField('date', 'ligt in het verleden.');
    if (date > addDays(today, MAX_DAYS_AHEAD)) throw invalidField('date', `mag hoogstens ${MAX_DAYS_AHEAD} dagen vooruit liggen.`);
  }

  /** A moment staff book (or move a booking to): any time within the opening hours, a walk-in up to 15 minutes ago. */
  function staffWindow(date: string, time: string, s: Settings, now: Date): { start: Date; end: Date } {
    const at = bookingInstant(date, time, s.timezone);
    if (!at) throw invalidField('time', 'bestaat niet op deze dag (de klok gaat dan een uur vooruit).');
    if (hoursOf(date, rulesOf(s)).length === 0) throw invalidField('date', 'is een dag waarop we gesloten zijn.');
    if (!intervalsOf(date, rulesOf(s)).some((i) => at >= i.from && at < i.to)) throw invalidField('time', 'valt buiten de openingstijden.');
    if (at.getTime() < now.getTime() - WALK_IN_GRACE_MIN * 60_000) throw invalidField('time', 'ligt in het verleden.');
    return { start: at, end: new Date(at.getTime() + s.seating_minutes * 60_000) };
  }

  /** Clears the conflict note of bookings on this table in this window that no longer collide with another. */
  async function clearResolved(w: Writer, tenantId: string, tableId: string | null, from: string, to: string): Promise<void> {
    if (!tableId) return;
    const holding = (await repo.holdingBetween(w.trx, tenantId, from, to)).filter((r) => r.table_id === tableId);
    for (const r of holding) {
      if (!r.conflict) continue;
      const still = holding.some((o) => o.id !== r.id && overlaps(o.starts_at, o.ends_at, r.starts_at, r.ends_at));
      if (still) continue;
      const next: ReservationRow = { ...r, conflict: null, updated_at: w.now };
      await repo.update(w.trx, next);
      await w.record(reservationChange(next, 'reservation.updated', { conflict: null }));
    }
  }

  async function book(
    tenantId: string,
    input: PublicBookingInput | StaffBookingInput,
    source: 'web' | 'staff',
    userId: string | null,
  ): Promise<ReservationRow> {
    const s = await tenants.cachedSettings(tenantId);
    const rules = rulesOf(s);
    const now = clock.now();
    if (input.party_size > s.max_party_size) throw invalidField('party_size', `moet tussen 1 en ${s.max_party_size} personen zijn.`);
    checkDate(input.date, s, now);
    const phone = input.phone ? e164OrThrow(input.phone, 'phone') : null;
    if (hoursOf(input.date, rules).length === 0) throw invalidField('date', 'is een dag waarop we gesloten zijn.');
    let start: Date;
    let end: Date;
    if (source === 'web') {
      const slot = slotsOf(input.date, rules).find((x) => x.time === input.time);
      if (!slot) throw invalidField('time', 'is geen tijdstip waarop je kunt reserveren; kies een tijd uit de beschikbaarheid.');
      ({ start, end } = slot);
      if (start.getTime() <= now.getTime()) throw invalidField('time', 'ligt in het verleden.');
    } else {
      ({ start, end } = staffWindow(input.date, input.time, s, now));
    }
    const startsAt = start.toISOString();
    const endsAt = end.toISOString();
    const tableId = 'table_id' in input ? input.table_id : undefined;

    // Under the restaurant's write lock (one writer on SQLite, the tenant row lock on PostgreSQL):
    // concurrent bookings for the last tables are decided one after the other, never both.
    return changes.write(tenantId, async (w) => {
      const taken = new Set((await repo.holdingBetween(w.trx, tenantId, startsAt, endsAt)).map((r) => r.table_id));
      // Guests at a table now will still be there for a booking that starts within one seating time.
      const seatedNow = start.getTime() < now.getTime() + s.seating_minutes * 60_000 ? await floor.occupiedTables(w.trx, tenantId) : new Set<string>();
      let table: { id: string; name: string; seats: number };
      if (tableId) {
        const t = await floor.findTable(w.trx, tenantId, tableId);
        if (!t) throw notFound('Tafel');
        if (t.seats < input.party_size) throw invalidField('table_id', `heeft maar ${t.seats} plaatsen.`);
        if (taken.has(t.id)) throw conflict(`Tafel ${t.name} is op dat moment al gereserveerd.`);
        table = t;
      } else {
        const fitting = (await floor.bookableTables(w.trx, tenantId))
          .filter((t) => t.seats >= input.party_size)
          .sort((a, b) => a.seats - b.seats || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
        const free = fitting.find((t) => !taken.has(t.id) && !seatedNow.has(t.id));
        if (!free) {
          throw conflict(
            fitting.length > 0
              ? 'Dit tijdstip is vol; kies een ander tijdstip.'
              : `Voor ${input.party_size} personen hebben we geen passende tafel; neem contact met ons op.`,
          );
        }
        table = free;
      }
      const row: ReservationRow = {
        id: newId(),
        tenant_id: tenantId,
        date: input.date,
        time: input.time,
        starts_at: startsAt,
        ends_at: endsAt,
        party_size: input.party_size,
        name: input.name,
        phone,
        email: input.email ?? null,
        notes: input.notes ?? null,
        table_id: table.id,
        status: 'booked',
        source,
        conflict: null,
        created_by: userId,
        created_at: w.now,
        updated_at: w.now,
      };
      await repo.insert(w.trx, row);
      await w.record(reservationChange(row, 'reservation.created'));
      await floor.refreshIn(w, tenantId, [table.id]);
      return row;
    });
  }

  const lookup: ReservationsLookup = {
    async forStatus(exec, tenantId, from, to, now) {
      const [starting, seated] = await Promise.all([repo.startingBetween(exec, tenantId, from, to), repo.seatedAt(exec, tenantId, now, to)]);
      return {
        booked: starting.filter((r) => r.status === 'booked').map((r) => ({ id: r.id, table_id: r.table_id!, time: r.time, name: r.name, party_size: r.party_size, starts_at: r.starts_at })),
        seatedTables: seated.map((r) => r.table_id!),
      };
    },
    hasFutureBookings: (exec, tenantId, tableId, now) => repo.hasFuture(exec, tenantId, tableId, now),
  };

  return {
    /** For the floor's live status (wired in the composition root). */
    lookup,

    /**
     * `GET /public/reservations/:slug?date=`: every slot of the date with whether it can still be
     * booked and the largest party that fits (the biggest free table, at most `max_party_size`).
     */
    async availability(slug: string, date: string): Promise<Availability> {
      const tenantId = await tenantBySlug(slug);
      const s = await tenants.cachedSettings(tenantId);
      const now = clock.now();
      checkDate(date, s, now);
      const slots = slotsOf(date, rulesOf(s));
      if (slots.length === 0) return { date, slots: [] };
      const [tables, holding, seatedNow] = await Promise.all([
        floor.bookableTables(db, tenantId),
        repo.holdingBetween(db, tenantId, slots[0]!.start.toISOString(), slots.reduce((m, x) => (x.end > m ? x.end : m), slots[0]!.end).toISOString()),
        floor.occupiedTables(db, tenantId),
      ]);
      const soon = now.getTime() + s.seating_minutes * 60_000;
      return {
        date,
        slots: slots.map((slot) => {
          const from = slot.start.toISOString();
          const to = slot.end.toISOString();
          const taken = new Set(holding.filter((r) => overlaps(r.starts_at, r.ends_at, from, to)).map((r) => r.table_id));
          if (slot.start.getTime() < soon) for (const id of seatedNow) taken.add(id);
          const biggest = slot.start.getTime() <= now.getTime() ? 0 : Math.max(0, ...tables.filter((t) => !taken.has(t.id)).map((t) => t.seats));
          const max = Math.min(biggest, s.max_party_size);
          return { time: slot.time, available: max >= 1, max_party_size: max };
        }),
      };
    },

    /** `POST /public/reservations/:slug`: a guest books; a full slot is CONFLICT; emits `reservation.created`. */
    async bookPublic(slug: string, input: PublicBookingInput): Promise<PublicReservation> {
      const tenantId = await tenantBySlug(slug);
      return toPublicDto(await book(tenantId, input, 'web', null));
    },

    /** `POST /reservations`: staff book for a caller or a walk-in (any time within opening hours; a table may be chosen). */
    async bookStaff(actor: StaffActor, input: StaffBookingInput): Promise<Reservation> {
      const row = await book(actor.tenantId, input, 'staff', actor.userId);
      return toReservationDto(row, (await floor.tableNames(actor.tenantId)).get(row.table_id!) ?? null);
    },

    /** The bookings of a date (restaurant calendar), by time: staff's list and `GET /external/reservations` (issue 16). */
    async listByDate(tenantId: string, date?: string): Promise<Reservation[]> {
      const day = date ?? wallClock(clock.now(), (await tenants.cachedSettings(tenantId)).timezone).date;
      if (!isDate(day)) throw invalidField('date', 'moet een bestaande datum zijn.');
      const [rows, names] = await Promise.all([repo.byDate(db, tenantId, day), floor.tableNames(tenantId)]);
      return rows.map((r) => toReservationDto(r, r.table_id ? (names.get(r.table_id) ?? null) : null));
    },

    async get(tenantId: string, id: string): Promise<Reservation> {
      const row = await repo.find(db, tenantId, id);
      if (!row) throw notFound('Reservering');
      return toReservationDto(row, row.table_id ? ((await floor.tableNames(tenantId)).get(row.table_id) ?? null) : null);
    },

    /** `PATCH /reservations/:id`: seated, cancelled or no-show, another table or moment, the guest's details; moving or ending a colliding booking resolves its conflict. */
    async update(actor: StaffActor, id: string, input: UpdateReservationInput): Promise<Reservation> {
      // Read before the write, never inside it: on a settings-cache miss `cachedSettings` reads through
      // `db`, and on SQLite (one connection) a read outside the write's transaction waits for that
      // transaction to end, which waits for the read: the PATCH hung for good, holding the
      // restaurant's write lock (issue 28 point 12; test reservations.routes.test.ts "settings").
      const s = await tenants.cachedSettings(actor.tenantId);
      const row = await changes.write(actor.tenantId, async (w) => {
        const cur = await repo.find(w.trx, actor.tenantId, id);
        if (!cur) throw notFound('Reservering');
        const fields: Partial<ReservationRow> = {};
        if (input.status && input.status !== cur.status) {
          if (!allowedMove(cur.status, input.status)) throw conflict(`Deze statuswijziging is niet toegestaan (van '${STATUS_NL[cur.status]}' naar '${STATUS_NL[input.status]}').`);
          fields.status = input.status;
        }
        const status = fields.status ?? cur.status;
        // The guest's details (a phone booking's name, number, party size, a note).
        if (input.name !== undefined && input.name !== cur.name) fields.name = input.name;
        if (input.phone !== undefined) {
          const phone = input.phone === null || input.phone === '' ? null : e164OrThrow(input.phone, 'phone');
          if (phone !== cur.phone) fields.phone = phone;
        }
        if (input.email !== undefined && input.email !== cur.email) fields.email = input.email;
        if (input.notes !== undefined && (input.notes || null) !== cur.notes) fields.notes = input.notes || null;
        const party = input.party_size ?? cur.party_size;
        if (party !== cur.party_size) {
          if (party > s.max_party_size) throw invalidField('party_size', `moet tussen 1 en ${s.max_party_size} personen zijn.`);
          fields.party_size = party;
        }
        // Another moment: the same rules as booking it (opening hours, not in the past).
        const date = input.date ?? cur.date;
        const time = input.time ?? cur.time;
        let window = { starts_at: cur.starts_at, ends_at: cur.ends_at };
        if (date !== cur.date || time !== cur.time) {
          if (status !== 'booked') throw conflict('Alleen een geboekte reservering kan naar een ander tijdstip.');
          const { start, end } = staffWindow(date, time, s, clock.now());
          window = { starts_at: start.toISOString(), ends_at: end.toISOString() };
          Object.assign(fields, { date, time, ...window });
        }
        const tableId = input.table_id ?? cur.table_id;
        const moved = tableId !== cur.table_id || window.starts_at !== cur.starts_at || fields.party_size !== undefined;
        if (tableId && moved && status !== 'cancelled' && status !== 'no_show') {
          const t = await floor.findTable(w.trx, actor.tenantId, tableId);
          if (!t) throw notFound('Tafel');
          if (t.seats < party) throw invalidField(input.table_id ? 'table_id' : 'party_size', input.table_id ? `heeft maar ${t.seats} plaatsen.` : `past niet aan tafel ${t.name} (${t.seats} plaatsen); kies een andere tafel.`);
          const taken = (await repo.holdingBetween(w.trx, actor.tenantId, window.starts_at, window.ends_at)).some((r) => r.id !== cur.id && r.table_id === t.id);
          if (taken) throw conflict(`Tafel ${t.name} is op dat moment al gereserveerd.`);
          if (t.id !== cur.table_id) fields.table_id = t.id;
        } else if (input.table_id && input.table_id !== cur.table_id) {
          throw conflict('Een geannuleerde reservering krijgt geen tafel meer.');
        }
        if (Object.keys(fields).length === 0) return cur;
        if (cur.conflict && (fields.table_id || fields.starts_at || status === 'cancelled' || status === 'no_show')) fields.conflict = null;
        const next: ReservationRow = { ...cur, ...fields, updated_at: w.now };
        await repo.update(w.trx, next);
        await w.record(reservationChange(next, 'reservation.updated', fields));
        // The booking that collided with this one may be fine now.
        if (fields.table_id || fields.starts_at || status === 'cancelled' || status === 'no_show') await clearResolved(w, actor.tenantId, cur.table_id, cur.starts_at, cur.ends_at);
        await floor.refreshIn(w, actor.tenantId, [cur.table_id, next.table_id].filter((x): x is string => x !== null));
        return next;
      });
      return toReservationDto(row, row.table_id ? ((await floor.tableNames(actor.tenantId)).get(row.table_id) ?? null) : null);
    },
  };
}

export type ReservationsService = ReturnType<typeof createReservationsService>;
