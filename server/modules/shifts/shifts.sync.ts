import { ROWS_PER_INSERT, type Tx } from '../../db/connection.js';
import type { ShiftCorrectionsTable, ShiftsTable } from '../../db/database.js';
import { assertTenantRef, insertIfAbsent, insertManyIfAbsent, parsePayload, pick, upsertById, upsertManyById } from '../../../sync/apply-helpers.js';
import { chunks, defineBatchStore, preloadTenantRefs } from '../../../sync/batch-store.js';
import { RejectOp, snapshotNext, type ApplyBatch, type BatchState, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
import { ShiftCorrectionRowSchema, ShiftRowSchema } from './shifts.schemas.js';
import { overlaps, timeProblems } from './shifts.rules.js';

const SHIFT_COLUMNS = [
  'id', 'user_id', 'start_at', 'end_at', 'break_minutes', 'source', 'note', 'created_by', 'closed_by', 'corrections', 'created_at', 'updated_at',
] as const satisfies readonly (keyof ShiftsTable)[];
const CORRECTION_COLUMNS = ['id', 'shift_id', 'changed_by', 'reason', 'before', 'after', 'created_at'] as const satisfies readonly (keyof ShiftCorrectionsTable)[];
const KINDS = ['shift.clocked_in', 'shift.created', 'shift.clocked_out', 'shift.corrected', 'shift.snapshot'];

interface Payload {
  shift: unknown;
  correction?: unknown;
  corrections?: unknown[];
  fields?: Record<string, unknown>;
}

const interval = (r: Pick<ShiftsTable, 'start_at' | 'end_at'>) => ({ start: Date.parse(r.start_at), end: r.end_at === null ? null : Date.parse(r.end_at) });
/** The other shifts that can overlap a shift are those not ended 48 hours or more before its start (a shift lasts at most 24). */
const nearbySince = (startAt: string) => new Date(Date.parse(startAt) - 48 * 3_600_000).toISOString();

async function overlapsAnother(trx: Tx, row: ShiftsTable): Promise<boolean> {
  const others = await trx
    .selectFrom('shifts')
    .select(['id', 'start_at', 'end_at'])
    .where('tenant_id', '=', row.tenant_id)
    .where('user_id', '=', row.user_id)
    .where('id', '!=', row.id)
    .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', nearbySince(row.start_at))]))
    .execute();
  return others.some((o) => overlaps(interval(row), interval(o)));
}

async function countCorrections(trx: Tx, shiftId: string): Promise<number> {
  const r = await trx.selectFrom('shift_corrections').select((eb) => eb.fn.countAll<number>().as('n')).where('shift_id', '=', shiftId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Where `apply` reads and writes shifts: at once (no batch), or through the batch's `ShiftsBatch`. */
interface ShiftStore {
  current(id: string): Promise<ShiftsTable | undefined>;
  overlapsAnother(row: ShiftsTable): Promise<boolean>;
  /** Insert or overwrite the given columns (upsertById). */
  upsert(row: ShiftsTable): Promise<void>;
  /** Ledger rows, insert-if-absent by id. */
  addCorrection(row: ShiftCorrectionsTable): Promise<void>;
  countCorrections(shiftId: string): Promise<number>;
}

const directStore = (trx: Tx): ShiftStore => ({
  current: (id) => trx.selectFrom('shifts').selectAll().where('id', '=', id).executeTakeFirst(),
  overlapsAnother: (row) => overlapsAnother(trx, row),
  upsert: (row) => upsertById(trx, 'shifts', row as ShiftsTable & Record<string, unknown>),
  addCorrection: async (row) => void (await insertIfAbsent(trx, 'shift_corrections', row as ShiftCorrectionsTable & Record<string, unknown>)),
  countCorrections: (shiftId) => countCorrections(trx, shiftId),
});

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * A batch's shifts (ApplyContext.batch: the cloud's push chunk, an appliance's pull page). At first
 * use one statement reads the batch's shifts and, for the employees of its shifts, every shift that
 * can overlap one of them; another the staff they name. From then on the batch reads shifts from
 * here (the database at its start with its own writes on top: a clock-in and its clock-out in one
 * chunk), and writes each changed shift once at the flush (one multi-row upsert), then the new
 * corrections. The corrections a shift has are read once, when a correction first needs the count.
 */
class ShiftsBatch implements BatchState, ShiftStore {
  /** id → the shift as it is now (database at the start, then as written); null: not there. */
  private readonly rows = new Map<string, ShiftsTable | null>();
  /** Employee → the `end_at` bound since which their shifts are all in `rows` (with a null end too). */
  private readonly nearby = new Map<string, string>();
  private readonly dirty = new Map<string, ShiftsTable>();
  /** Corrections to insert (if absent) at the flush, by id. */
  private readonly pending = new Map<string, ShiftCorrectionsTable>();
  /** Correction id → its shift, for the corrections in the database (as far as read). */
  private readonly stored = new Map<string, string>();
  /** Shifts whose stored corrections are all in `stored`; correction ids looked up. */
  private readonly countedShifts = new Set<string>();
  private readonly lookedCorrections = new Set<string>();

  constructor(
    private readonly trx: Tx,
    private readonly tenantId: string,
    private readonly changes: ReadonlyArray<SyncChange>,
  ) {}

  /** The batch's shift payloads of this tenant. */
  private *payloads(): Generator<{ change: SyncChange; shift: Record<string, unknown>; corrections: Array<Record<string, unknown>> }> {
    for (const c of this.changes) {
      if (c.entity !== 'shift' || c.tenant_id !== this.tenantId || !c.payload || typeof c.payload !== 'object') continue;
      const p = c.payload as { shift?: unknown; correction?: unknown; corrections?: unknown };
      if (!p.shift || typeof p.shift !== 'object') continue;
      const corrections = [p.correction, ...(Array.isArray(p.corrections) ? p.corrections : [])].filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
      yield { change: c, shift: p.shift as Record<string, unknown>, corrections };
    }
  }

  async prefetch(batch: ApplyBatch): Promise<void> {
    const ids = new Set<string>();
    const users = new Set<string>();
    let earliest: number | undefined;
    for (const { change, shift, corrections } of this.payloads()) {
      ids.add(change.entity_id);
      for (const u of [shift.user_id, shift.created_by, shift.closed_by, ...corrections.map((c) => c.changed_by)]) if (str(u)) users.add(u as string);
      const start = Date.parse(str(shift.start_at) ?? '');
      if (str(shift.user_id) && Number.isFinite(start)) earliest = Math.min(earliest ?? start, start);
    }
    await preloadTenantRefs(this.trx, this.tenantId, batch, { users });
    const list = [...ids];
    if (list.length === 0) return;
    const employees = [...new Set([...this.payloads()].map((x) => str(x.shift.user_id)).filter((u): u is string => !!u))];
    const since = earliest === undefined ? undefined : nearbySince(new Date(earliest).toISOString());
    const withNearby = since !== undefined && employees.length > 0 && employees.length <= ROWS_PER_INSERT;
    for (const [i, slice] of chunks(list).entries()) {
      const nearby = withNearby && i === 0; // every shift of these employees that can overlap one of the batch's
      const rows = await this.trx
        .selectFrom('shifts')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb('id', 'in', slice),
            ...(nearby ? [eb.and([eb('tenant_id', '=', this.tenantId), eb('user_id', 'in', employees), eb.or([eb('end_at', 'is', null), eb('end_at', '>', since!)])])] : []),
          ]),
        )
        .execute();
      for (const id of slice) this.rows.set(id, null);
      for (const r of rows) this.rows.set(r.id, r);
      if (nearby) for (const u of employees) this.nearby.set(u, since!);
    }
  }

  async current(id: string): Promise<ShiftsTable | undefined> {
    if (!this.rows.has(id)) this.rows.set(id, (await this.trx.selectFrom('shifts').selectAll().where('id', '=', id).executeTakeFirst()) ?? null);
    return this.rows.get(id) ?? undefined;
  }

  async overlapsAnother(row: ShiftsTable): Promise<boolean> {
    const since = nearbySince(row.start_at);
    const known = this.nearby.get(row.user_id);
    if (known === undefined || known > since) {
      // Not read at the start: this employee's nearby shifts now (the batch's own versions stay).
      const rows = await this.trx
        .selectFrom('shifts')
        .selectAll()
        .where('tenant_id', '=', row.tenant_id)
        .where('user_id', '=', row.user_id)
        .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', since)]))
        .execute();
      for (const r of rows) if (!this.rows.has(r.id)) this.rows.set(r.id, r);
      this.nearby.set(row.user_id, since);
    }
    for (const o of this.rows.values()) {
      if (!o || o.id === row.id || o.tenant_id !== row.tenant_id || o.user_id !== row.user_id) continue;
      if (o.end_at !== null && !(o.end_at > since)) continue;
      if (overlaps(interval(row), interval(o))) return true;
    }
    return false;
  }

  async upsert(row: ShiftsTable): Promise<void> {
    const next = { ...(this.rows.get(row.id) ?? {}), ...row } as ShiftsTable;
    this.rows.set(row.id, next);
    this.dirty.set(row.id, next);
  }

  async addCorrection(row: ShiftCorrectionsTable): Promise<void> {
    if (!this.pending.has(row.id)) this.pending.set(row.id, row);
  }

  async countCorrections(shiftId: string): Promise<number> {
    const unknownIds = [...this.pending.keys()].filter((id) => !this.lookedCorrections.has(id));
    if (!this.countedShifts.has(shiftId) || unknownIds.length) {
      // Once per batch (more only for a change the batch did not list): the stored corrections of
      // every shift the batch corrects, and which of its corrections are stored already.
      const shifts = new Set([shiftId]);
      const ids = new Set(unknownIds);
      if (this.countedShifts.size === 0) {
        for (const { change, corrections } of this.payloads()) {
          if (change.kind === 'shift.corrected' || change.kind === 'shift.snapshot') shifts.add(change.entity_id);
          for (const c of corrections) if (str(c.id)) ids.add(c.id as string);
        }
      }
      const rows = await this.trx
        .selectFrom('shift_corrections')
        .select(['id', 'shift_id'])
        .where((eb) => eb.or([eb('shift_id', 'in', [...shifts]), ...(ids.size ? [eb('id', 'in', [...ids])] : [])]))
        .execute();
      for (const r of rows) this.stored.set(r.id, r.shift_id);
      for (const s of shifts) this.countedShifts.add(s);
      for (const id of ids) this.lookedCorrections.add(id);
    }
    // What `count(*) where shift_id` would say after the pending inserts: stored ones, and pending ones not stored yet.
    let n = 0;
    for (const sid of this.stored.values()) if (sid === shiftId) n++;
    for (const c of this.pending.values()) if (c.shift_id === shiftId && !this.stored.has(c.id)) n++;
    return n;
  }

  async flush(trx: Tx): Promise<void> {
    // Shifts first (a correction refers to its shift).
    await upsertManyById(trx, 'shifts', this.dirty.values() as Iterable<ShiftsTable & Record<string, unknown>>);
    await insertManyIfAbsent(trx, 'shift_corrections', [...this.pending.values()] as Array<ShiftCorrectionsTable & Record<string, unknown>>);
    this.dirty.clear();
    this.pending.clear();
  }
}

const shiftStore = defineBatchStore<ShiftStore, ShiftsBatch>({
  key: 'shifts',
  direct: (trx) => directStore(trx),
  create: (s) => new ShiftsBatch(s.trx, s.tenantId, s.changes),
  prefetch: (b, s) => b.prefetch(s.batch),
});

const OVERLAP = 'Deze dienst overlapt met een andere dienst van dezelfde medewerker (op twee apparaten vastgelegd); beide blijven bewaard en de loonexport telt de overlap één keer.';

/**
 * Shifts (docs/insights.md "Shifts across sync"). A shift is born once, with the id made where it
 * was clocked in or entered, so a clock-in made on the appliance during an outage is one row after
 * any number of resends (a union keyed by id). Its status only moves from open to closed: the first
 * clock-out the cloud accepts wins; a different later one is a recorded conflict. Corrections are a
 * ledger (each kept, by id) and their changed fields apply last-writer-wins in cloud apply order; a
 * combination of corrections from two sides that would make the shift invalid keeps the cloud's
 * times (the correction is still kept, and answered as a conflict). Two overlapping shifts of one
 * employee (clocked in on the tablet and online during an outage) are both kept, flagged, answered
 * as a conflict, and counted once by the payroll export.
 */
export const shiftsSync: EntityDescriptor[] = [
  {
    entity: 'shift',
    merge: 'monotonic-status',
    tables: ['shifts', 'shift_corrections'],
    async apply(trx, change, ctx) {
      if (!KINDS.includes(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const p = (change.payload ?? {}) as Payload;
      const parsed = parsePayload(ShiftRowSchema, p.shift, 'een dienst');
      if (parsed.id !== change.entity_id) throw new RejectOp('Ongeldige dienst.');
      if (parsed.end_at !== null && timeProblems(parsed.start_at, parsed.end_at, parsed.break_minutes).length) throw new RejectOp('Ongeldige tijden in een dienst.');
      const store = await shiftStore.of(trx, ctx, change.tenant_id);
      await assertTenantRef(trx, 'users', parsed.user_id, change.tenant_id, 'De medewerker', ctx.batch);
      await assertTenantRef(trx, 'users', parsed.created_by, change.tenant_id, 'Wie de dienst vastlegde', ctx.batch);
      await assertTenantRef(trx, 'users', parsed.closed_by, change.tenant_id, 'Wie de dienst afsloot', ctx.batch);
      const corrections: ShiftCorrectionsTable[] = [];
      for (const c of [...(p.correction !== undefined ? [p.correction] : []), ...(Array.isArray(p.corrections) ? p.corrections : [])]) {
        const r = parsePayload(ShiftCorrectionRowSchema, c, 'een correctie van een dienst');
        if (r.shift_id !== parsed.id) throw new RejectOp('Ongeldige correctie van een dienst.');
        await assertTenantRef(trx, 'users', r.changed_by, change.tenant_id, 'Wie de dienst corrigeerde', ctx.batch);
        corrections.push({ ...pick<ShiftCorrectionsTable>(r as Record<string, unknown>, CORRECTION_COLUMNS), tenant_id: change.tenant_id } as ShiftCorrectionsTable);
      }
      const utc = (t: string) => new Date(t).toISOString(); // one representation of time everywhere (and comparable as text)
      const row = {
        ...pick<ShiftsTable>(parsed as Record<string, unknown>, SHIFT_COLUMNS),
        start_at: utc(parsed.start_at),
        end_at: parsed.end_at === null ? null : utc(parsed.end_at),
        created_at: utc(parsed.created_at),
        updated_at: utc(parsed.updated_at),
        tenant_id: change.tenant_id,
      } as ShiftsTable;

      const current = await store.current(row.id);
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Deze dienst hoort bij een ander restaurant.');

      if (ctx.mode === 'adopt' || !current) {
        // The cloud's state (adopt), or a shift this side has not seen yet: take it as it is.
        const clash = ctx.mode === 'merge' && (await store.overlapsAnother(row));
        await store.upsert(row);
        for (const c of corrections) await store.addCorrection(c);
        if (clash) return { conflict: OVERLAP };
        return;
      }

      let next: ShiftsTable = current;
      let conflictReason: string | undefined;
      if (change.kind === 'shift.clocked_out') {
        if (current.end_at === null && row.end_at !== null) {
          next = { ...current, end_at: row.end_at, break_minutes: row.break_minutes, closed_by: row.closed_by, updated_at: row.updated_at };
          if (timeProblems(next.start_at, next.end_at, next.break_minutes).length) {
            next = current;
            conflictReason = 'Deze uitklok past niet bij de gecorrigeerde begintijd van de dienst; een beheerder kan de dienst corrigeren.';
          }
        } else if (current.end_at !== row.end_at) {
          conflictReason = 'Deze dienst was al uitgeklokt; de eerste uitklok telt.';
        }
      } else if (change.kind === 'shift.corrected' || change.kind === 'shift.snapshot') {
        for (const c of corrections) await store.addCorrection(c);
        const fields = pick<ShiftsTable>(p.fields ?? {}, ['start_at', 'end_at', 'break_minutes']);
        if (fields.start_at !== undefined) fields.start_at = parsePayload(ShiftRowSchema.shape.start_at, fields.start_at, 'een correctie van een dienst');
        if (fields.end_at !== undefined) fields.end_at = parsePayload(ShiftRowSchema.shape.end_at, fields.end_at, 'een correctie van een dienst');
        if (fields.break_minutes !== undefined) fields.break_minutes = parsePayload(ShiftRowSchema.shape.break_minutes, fields.break_minutes, 'een correctie van een dienst');
        if (typeof fields.start_at === 'string') fields.start_at = utc(fields.start_at);
        if (typeof fields.end_at === 'string') fields.end_at = utc(fields.end_at);
        const candidate: ShiftsTable = {
          ...current,
          ...fields,
          closed_by: current.end_at === null && (fields.end_at ?? null) !== null ? row.closed_by : current.closed_by,
          updated_at: row.updated_at > current.updated_at ? row.updated_at : current.updated_at,
        };
        if (timeProblems(candidate.start_at, candidate.end_at, candidate.break_minutes).length) {
          conflictReason = 'Deze correctie botste met een correctie op een ander apparaat; de dienst houdt de tijden van de cloud (de correctie is bewaard).';
        } else {
          next = candidate;
        }
        next = { ...next, corrections: await store.countCorrections(row.id) };
      }
      // clocked_in / created of a shift already here: the same shift again (a resend), nothing to do.
      if (next !== current) await store.upsert(next);
      const state = pick<ShiftsTable>(next as unknown as Record<string, unknown>, SHIFT_COLUMNS);
      return { payload: { ...p, shift: state }, ...(conflictReason ? { conflict: conflictReason } : {}) };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('shifts').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const corrections = rows.length
        ? await db.selectFrom('shift_corrections').selectAll().where('shift_id', 'in', rows.map((r) => r.id)).orderBy('created_at').orderBy('id').execute()
        : [];
      const changes = rows.map((r) => ({
        entity: 'shift',
        entity_id: r.id,
        kind: 'shift.snapshot',
        payload: {
          shift: pick<ShiftsTable>(r as unknown as Record<string, unknown>, SHIFT_COLUMNS),
          corrections: corrections.filter((c) => c.shift_id === r.id).map((c) => pick<ShiftCorrectionsTable>(c as unknown as Record<string, unknown>, CORRECTION_COLUMNS)),
        },
        created_at: r.updated_at,
      }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
