import type { UsersTable } from '../../db/database.js';
import type { Tx } from '../../db/connection.js';
import { pick, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';

const COLUMNS = [
  'id', 'tenant_id', 'name', 'role', 'email', 'password_hash', 'pin_hash', 'hourly_wage_cents', 'job', 'created_at', 'updated_at', 'archived_at',
] as const satisfies readonly (keyof UsersTable)[];

async function holderOf(trx: Tx, tenantId: string, column: 'pin_hash' | 'email', value: string, exceptId: string) {
  return trx
    .selectFrom('users')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where(column, '=', value)
    .where('id', '!=', exceptId)
    .executeTakeFirst();
}

/**
 * Users (staff and admins), with their PIN and password hashes so staff can log in offline.
 * The payload is the whole row after the change: last writer wins on the row, in cloud apply order.
 *
 * A PIN (or e-mail) is unique per restaurant. Two sites can hand out the same PIN while offline;
 * the user the cloud saw first keeps it. In the cloud the later user's PIN is cleared and the op is
 * answered as a conflict (an admin sets a new PIN); on the appliance, adopting the cloud's user
 * clears the PIN of the local user that will lose it, so both sides end the same.
 */
export const usersSync: EntityDescriptor[] = [
  {
    entity: 'user',
    merge: 'lww-fields',
    tables: ['users'],
    async apply(trx, change, ctx) {
      if (!['user.created', 'user.updated', 'user.archived'].includes(change.kind)) throw new RejectOp(`Onbekende wijziging '${change.kind}'.`);
      const p = change.payload as Record<string, unknown>;
      if (!p || p.id !== change.entity_id || typeof p.name !== 'string' || (p.role !== 'admin' && p.role !== 'staff')) {
        throw new RejectOp('Ongeldige medewerkergegevens.');
      }
      const row = { ...pick<UsersTable>(p, COLUMNS), id: change.entity_id, tenant_id: change.tenant_id } as UsersTable;
      const current = await trx.selectFrom('users').selectAll().where('id', '=', row.id).executeTakeFirst();
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Deze medewerker hoort bij een ander restaurant.');

      const conflicts: string[] = [];
      for (const column of ['pin_hash', 'email'] as const) {
        const value = row[column];
        if (!value) continue;
        const other = await holderOf(trx, change.tenant_id, column, value, row.id);
        if (!other) continue;
        if (ctx.mode === 'adopt') {
          // The cloud's state wins: the local user holding the value loses it (the cloud will do the same to it).
          await trx.updateTable('users').set({ [column]: null }).where('id', '=', other.id).execute();
          await trx.deleteFrom('sessions').where('user_id', '=', other.id).execute();
        } else {
          row[column] = null;
          conflicts.push(
            column === 'pin_hash'
              ? `De pincode van ${row.name} was al in gebruik door ${other.name}; stel een nieuwe pincode in.`
              : `Het e-mailadres van ${row.name} was al in gebruik door ${other.name}.`,
          );
        }
      }
      await upsertById(trx, 'users', row as UsersTable & Record<string, unknown>);
      if (current && (current.pin_hash !== row.pin_hash || current.password_hash !== row.password_hash || current.role !== row.role || row.archived_at)) {
        await trx.deleteFrom('sessions').where('tenant_id', '=', change.tenant_id).where('user_id', '=', row.id).execute();
      }
      if (conflicts.length === 0) return;
      return { conflict: conflicts.join(' '), payload: { ...p, pin_hash: row.pin_hash, email: row.email, has_pin: row.pin_hash !== null } };
    },
    async snapshot(db, tenantId, after, limit) {
      let q = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = await q.orderBy('id').limit(limit).execute();
      const changes = rows.map((r) => ({ entity: 'user', entity_id: r.id, kind: 'user.updated', payload: pick<UsersTable>(r as unknown as Record<string, unknown>, COLUMNS), created_at: r.updated_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  },
];
