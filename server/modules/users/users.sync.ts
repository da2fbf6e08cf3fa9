import { z } from 'zod';
import type { UsersTable } from '../../db/database.js';
import type { Tx } from '../../db/connection.js';
import { isOwnPinHash } from '../../shared/secrets.js';
import { parsePayload, pick, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type EntityDescriptor } from '../../../sync/types.js';
import { CreateUserBody, Role, UpdateUserBody } from './users.schemas.js';

const COLUMNS = [
  'id', 'tenant_id', 'name', 'role', 'email', 'password_hash', 'pin_hash', 'hourly_wage_cents', 'job', 'created_at', 'updated_at', 'archived_at',
] as const satisfies readonly (keyof UsersTable)[];

const Timestamp = z.iso.datetime({ offset: true });

/**
 * A user as a device pushes it (the row after the change), validated with the API's own field rules
 * (users.schemas.ts). A field left out stays as it is. Hashes: only the PIN format this server makes
 * (`scrypt-pin$` + 32 bytes); a password hash is never taken from a device (see `trustRefusal`).
 */
const PushedUser = z.object({
  id: z.uuid(),
  name: CreateUserBody.shape.name,
  role: Role,
  email: UpdateUserBody.shape.email.transform((e) => (typeof e === 'string' ? e.toLowerCase() : e)),
  password_hash: z.string().max(200).nullable().optional(),
  pin_hash: z.string().refine(isOwnPinHash, { message: 'is geen pincode-hash van deze server.' }).nullable().optional(),
  hourly_wage_cents: UpdateUserBody.shape.hourly_wage_cents,
  job: UpdateUserBody.shape.job,
  created_at: Timestamp,
  updated_at: Timestamp,
  archived_at: Timestamp.nullable().optional(),
});
type PushedUser = z.infer<typeof PushedUser>;

const ADMIN_ONLY_IN_CLOUD =
  'Beheerders en hun inloggegevens (rol, e-mailadres, wachtwoord) worden alleen in de cloud gewijzigd, niet via een apparaat.';

/**
 * What a device's key may not do to users (issue 17, SECURITY.md): create an admin, promote or demote
 * one, change an admin's e-mail address or archive an admin, set or replace any password hash, or give
 * an admin a PIN. Staff (with their PINs) and an admin's name, wage and job still sync.
 */
function trustRefusal(u: PushedUser, current: UsersTable | undefined): string | null {
  const changes = <K extends keyof UsersTable>(k: K, v: UsersTable[K] | undefined) => v !== undefined && v !== (current ? current[k] : null);
  if (u.role === 'admin' && u.pin_hash) return 'Een beheerder heeft geen pincode: beheerders loggen in met e-mail en wachtwoord.';
  if (!current) {
    if (u.role === 'admin') return ADMIN_ONLY_IN_CLOUD;
  } else if (current.role === 'admin' || u.role === 'admin') {
    if (u.role !== current.role || changes('email', u.email) || changes('archived_at', u.archived_at)) return ADMIN_ONLY_IN_CLOUD;
  }
  if (changes('password_hash', u.password_hash)) return current?.role === 'admin' ? ADMIN_ONLY_IN_CLOUD : 'Een wachtwoord wordt alleen in de cloud ingesteld, niet via een apparaat.';
  return null;
}

const NEW_USER = { email: null, password_hash: null, pin_hash: null, hourly_wage_cents: null, job: null, archived_at: null };

/** The change-log shape of a user (users.service.ts `userChange`): the API's fields plus the hashes an appliance needs offline. */
const userPayload = (r: UsersTable) => ({
  id: r.id,
  name: r.name,
  role: r.role,
  email: r.email,
  hourly_wage_cents: r.hourly_wage_cents,
  job: r.job,
  has_pin: r.pin_hash !== null,
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
  tenant_id: r.tenant_id,
  pin_hash: r.pin_hash,
  password_hash: r.password_hash,
});

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
      let p = change.payload as Record<string, unknown>;
      if (!p || typeof p !== 'object' || p.id !== change.entity_id || typeof p.name !== 'string' || (p.role !== 'admin' && p.role !== 'staff')) {
        throw new RejectOp('Ongeldige medewerkergegevens.');
      }
      // From a device (the cloud merging a push): validated like the API, and only what a device's key may change.
      const fromDevice = ctx.side === 'cloud';
      const pushed = fromDevice ? parsePayload(PushedUser, p, 'medewerker') : undefined;
      if (pushed) p = { ...p, ...pushed };
      const row = { ...pick<UsersTable>(p, COLUMNS), id: change.entity_id, tenant_id: change.tenant_id } as UsersTable;
      const current = await trx.selectFrom('users').selectAll().where('id', '=', row.id).executeTakeFirst();
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp('Deze medewerker hoort bij een ander restaurant.');
      if (pushed) {
        const refusal = trustRefusal(pushed, current);
        if (refusal) throw new RejectOp(refusal);
      }

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
      if (pushed) {
        // What the cloud records (and every appliance adopts): the row as it is now, in the API's shape, nothing else the device sent.
        const stored = { ...(current ?? NEW_USER), ...Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined)) } as UsersTable;
        const payload = { ...userPayload(stored) };
        return conflicts.length ? { conflict: conflicts.join(' '), payload } : { payload };
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
