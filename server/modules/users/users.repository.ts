import type { Executor } from '../../db/connection.js';
import type { UsersTable } from '../../db/database.js';

export type UserRow = UsersTable;

export const usersRepository = {
  list: (db: Executor, tenantId: string, includeArchived = false) => {
    let q = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('name').execute();
  },
  findById: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  findByPinHash: (db: Executor, tenantId: string, pinHash: string) =>
    db
      .selectFrom('users')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('pin_hash', '=', pinHash)
      .where('archived_at', 'is', null)
      .executeTakeFirst(),
  findByEmail: (db: Executor, tenantId: string, email: string) =>
    db
      .selectFrom('users')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('email', '=', email)
      .where('archived_at', 'is', null)
      .executeTakeFirst(),
  countAdmins: async (db: Executor, tenantId: string) => {
    const r = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('role', '=', 'admin')
      .where('archived_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  },
  insert: (db: Executor, row: UserRow) => db.insertInto('users').values(row).execute(),
  update: (db: Executor, tenantId: string, id: string, patch: Partial<UserRow>) =>
    db.updateTable('users').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute(),
  /** Ends every open session of the user (a changed PIN, password or role; archived). */
  endSessions: (db: Executor, tenantId: string, userId: string) => db.deleteFrom('sessions').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute(),
};
