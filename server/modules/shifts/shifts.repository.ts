import type { Executor } from '../../db/connection.js';
import type { ShiftCorrectionsTable, ShiftsTable } from '../../db/database.js';

export type ShiftRow = ShiftsTable;
export type CorrectionRow = ShiftCorrectionsTable;
export type ShiftWithUser = ShiftRow & { user_name: string; job: string | null; hourly_wage_cents: number | null };

/** The only Kysely of shifts. Reads join the employee's name, job and wage (a read model of users). */
export const shiftsRepository = {
  find: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('shifts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  findWithUser: (db: Executor, tenantId: string, id: string) =>
    db
      .selectFrom('shifts')
      .innerJoin('users', (j) => j.onRef('users.id', '=', 'shifts.user_id').onRef('users.tenant_id', '=', 'shifts.tenant_id'))
      .selectAll('shifts')
      .select(['users.name as user_name', 'users.job', 'users.hourly_wage_cents'])
      .where('shifts.tenant_id', '=', tenantId)
      .where('shifts.id', '=', id)
      .executeTakeFirst() as Promise<ShiftWithUser | undefined>,

  /** Shifts that touch [fromIso, toIso): started before `to` and not ended before `from` (open ones included). */
  between: (db: Executor, tenantId: string, fromIso: string, toIso: string, userId?: string) => {
    let q = db
      .selectFrom('shifts')
      .innerJoin('users', (j) => j.onRef('users.id', '=', 'shifts.user_id').onRef('users.tenant_id', '=', 'shifts.tenant_id'))
      .selectAll('shifts')
      .select(['users.name as user_name', 'users.job', 'users.hourly_wage_cents'])
      .where('shifts.tenant_id', '=', tenantId)
      .where('shifts.start_at', '<', toIso)
      .where((eb) => eb.or([eb('shifts.end_at', 'is', null), eb('shifts.end_at', '>', fromIso)]));
    if (userId) q = q.where('shifts.user_id', '=', userId);
    return q.orderBy('shifts.start_at').orderBy('shifts.id').execute() as Promise<ShiftWithUser[]>;
  },

  /** The user's shifts that may overlap [startIso, endIso or open): a day either side is enough, shifts last at most 24 h. */
  nearby: (db: Executor, tenantId: string, userId: string, fromIso: string) =>
    db
      .selectFrom('shifts')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', fromIso)]))
      .execute(),

  openOf: (db: Executor, tenantId: string, userId: string) =>
    db
      .selectFrom('shifts')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .where('end_at', 'is', null)
      .orderBy('start_at')
      .orderBy('id')
      .execute(),

  correctionsOf: (db: Executor, tenantId: string, shiftId: string) =>
    db
      .selectFrom('shift_corrections')
      .leftJoin('users', (j) => j.onRef('users.id', '=', 'shift_corrections.changed_by').onRef('users.tenant_id', '=', 'shift_corrections.tenant_id'))
      .selectAll('shift_corrections')
      .select('users.name as changed_by_name')
      .where('shift_corrections.tenant_id', '=', tenantId)
      .where('shift_corrections.shift_id', '=', shiftId)
      .orderBy('shift_corrections.created_at')
      .orderBy('shift_corrections.id')
      .execute(),

  insert: (db: Executor, row: ShiftRow) => db.insertInto('shifts').values(row).execute(),
  update: (db: Executor, tenantId: string, id: string, patch: Partial<ShiftRow>) =>
    db.updateTable('shifts').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute(),
  insertCorrection: (db: Executor, row: CorrectionRow) => db.insertInto('shift_corrections').values(row).execute(),

  /** A user of this tenant (archived ones too: history refers to them). */
  findUser: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('users').select(['id', 'name', 'job', 'hourly_wage_cents', 'archived_at']).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  /** Active staff with a job, for sharing a roster day out over jobs. */
  jobsOfStaff: (db: Executor, tenantId: string) =>
    db.selectFrom('users').select(['id', 'job']).where('tenant_id', '=', tenantId).where('archived_at', 'is', null).where('job', 'is not', null).execute(),
};
