import type { Tx } from '../../db/connection.js';
import type { ShiftCorrectionsTable, ShiftsTable } from '../../db/database.js';
import { assertTenantRef, insertIfAbsent, parsePayload, pick, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
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

async function overlapsAnother(trx: Tx, row: ShiftsTable): Promise<boolean> {
  const others = await trx
    .selectFrom('shifts')
    .select(['id', 'start_at', 'end_at'])
    .where('tenant_id', '=', row.tenant_id)
    .where('user_id', '=', row.user_id)
    .where('id', '!=', row.id)
    .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', new Date(Date.parse(row.start_at) - 48 * 3_600_000).toISOString())]))
    .execute();
  return others.some((o) => overlaps(interval(row), interval(o)));
}

async function countCorrections(trx: Tx, shiftId: string): Promise<number> {
  const r = await trx.selectFrom('shift_corrections').select((eb) => eb.fn.countAll<number>().as('n')).where('shift_id', '=', shiftId).executeTakeFirstOrThrow();
  return Number(r.n);
}

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

      const current = await trx.selectFrom('shifts').selectAll().where('id', '=', row.id).executeTakeFirst();
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Deze dienst hoort bij een ander restaurant.');

      if (ctx.mode === 'adopt' || !current) {
        // The cloud's state (adopt), or a shift this side has not seen yet: take it as it is.
        const clash = ctx.mode === 'merge' && (await overlapsAnother(trx, row));
        await upsertById(trx, 'shifts', row as ShiftsTable & Record<string, unknown>);
        for (const c of corrections) await insertIfAbsent(trx, 'shift_corrections', c as ShiftCorrectionsTable & Record<string, unknown>);
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
        for (const c of corrections) await insertIfAbsent(trx, 'shift_corrections', c as ShiftCorrectionsTable & Record<string, unknown>);
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
        next = { ...next, corrections: await countCorrections(trx, row.id) };
      }
      // clocked_in / created of a shift already here: the same shift again (a resend), nothing to do.
      if (next !== current) await upsertById(trx, 'shifts', next as ShiftsTable & Record<string, unknown>);
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
