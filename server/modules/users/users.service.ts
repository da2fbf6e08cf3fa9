import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import { isUniqueViolation, violatedConstraint } from '../../db/errors.js';
import { conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { hashPassword, hashPin } from '../../shared/secrets.js';
import { usersRepository, type UserRow } from './users.repository.js';
import { CreateUserBody, type CreateUserInput, type UpdateUserInput, type User } from './users.schemas.js';

export const toUserDto = (r: UserRow): User => ({
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
});

/** What the change log carries for a user: the DTO plus the hashes an offline appliance needs to log staff in. */
const userChange = (row: UserRow, kind: string) => ({
  entity: 'user',
  entityId: row.id,
  kind,
  payload: { ...toUserDto(row), tenant_id: row.tenant_id, pin_hash: row.pin_hash, password_hash: row.password_hash },
});

export type PreparedUser = Omit<UserRow, 'id' | 'created_at' | 'updated_at' | 'archived_at'>;

/** The columns an update may change (besides the password hash, which is never compared). */
const USER_FIELDS = ['name', 'role', 'email', 'hourly_wage_cents', 'job', 'pin_hash'] as const satisfies ReadonlyArray<keyof UserRow>;

const pinTaken = () => conflict('Deze pincode is al in gebruik door een andere medewerker.');
/** CONTRACT §3: admins log in with e-mail and password; a PIN is for staff only. */
const adminPin = () => invalidField('pin', 'hoort niet bij een beheerder: beheerders loggen in met e-mail en wachtwoord.');
const emailTaken = () => conflict('Dit e-mailadres is al in gebruik.');

function uniqueToConflict(err: unknown): never {
  if (isUniqueViolation(err)) {
    throw violatedConstraint(err).includes('email') ? emailTaken() : pinTaken();
  }
  throw err;
}

export interface UsersDeps {
  db: Db;
  changes: ChangeLog;
  /** A restaurant's id and PIN salt (the tenants module's `tenantKeys`: that service is built on this one). */
  tenants: { byId(id: string): Promise<{ id: string; pin_salt: string } | undefined> };
}

export function createUsersService(deps: UsersDeps) {
  const { db, changes, tenants } = deps;

  async function pinHashFor(tenantId: string, pin: string): Promise<string> {
    const tenant = await tenants.byId(tenantId);
    if (!tenant) throw notFound('Restaurant');
    return hashPin(pin, tenant.pin_salt);
  }

  /** Validates and hashes outside any transaction: a KDF must not hold the database's single writer. */
  async function prepare(tenantId: string, pinSalt: string, raw: CreateUserInput): Promise<PreparedUser> {
    const input = CreateUserBody.parse(raw);
    if (input.role === 'staff' && !input.pin) throw invalidField('pin', 'is verplicht voor een medewerker.');
    if (input.role === 'admin' && input.pin) throw adminPin();
    if (input.role === 'admin' && (!input.email || !input.password)) {
      throw invalidField(input.email ? 'password' : 'email', 'is verplicht voor een beheerder.');
    }
    return {
      tenant_id: tenantId,
      name: input.name,
      role: input.role,
      email: input.email?.toLowerCase() ?? null,
      password_hash: input.password ? await hashPassword(input.password) : null,
      pin_hash: input.pin ? await hashPin(input.pin, pinSalt) : null,
      hourly_wage_cents: input.hourly_wage_cents ?? null,
      job: input.job ?? null,
    };
  }

  /** Inserts a prepared user inside a caller's write (tenant creation uses this for its first admin). */
  async function insertInTx(w: Writer, prepared: PreparedUser): Promise<User> {
    const { tenant_id: tenantId } = prepared;
    if (prepared.pin_hash && (await usersRepository.findByPinHash(w.trx, tenantId, prepared.pin_hash))) throw pinTaken();
    if (prepared.email && (await usersRepository.findByEmail(w.trx, tenantId, prepared.email))) throw emailTaken();
    const row: UserRow = { ...prepared, id: newId(), created_at: w.now, updated_at: w.now, archived_at: null };
    try {
      await usersRepository.insert(w.trx, row);
    } catch (err) {
      uniqueToConflict(err);
    }
    await w.record(userChange(row, 'user.created'));
    return toUserDto(row);
  }

  return {
    prepare,
    insertInTx,

    /**
     * What the auth module reads to log someone in (the rows carry the hashes: never sent to a
     * client). The auth module goes through these, never through this module's repository.
     */
    credentials: {
      byPinHash: (tenantId: string, pinHash: string) => usersRepository.findByPinHash(db, tenantId, pinHash),
      byEmail: (tenantId: string, email: string) => usersRepository.findByEmail(db, tenantId, email),
    },

    async list(tenantId: string): Promise<User[]> {
      return (await usersRepository.list(db, tenantId)).map(toUserDto);
    },

    async create(tenantId: string, input: CreateUserInput): Promise<User> {
      const tenant = await tenants.byId(tenantId);
      if (!tenant) throw notFound('Restaurant');
      const prepared = await prepare(tenantId, tenant.pin_salt, input);
      return changes.write(tenantId, (w) => insertInTx(w, prepared));
    },

    async update(tenantId: string, id: string, input: UpdateUserInput): Promise<User> {
      // Hash outside the transaction: a KDF must not hold the database's single writer.
      const pinHash = input.pin ? await pinHashFor(tenantId, input.pin) : input.pin === null ? null : undefined;
      const passwordHash = input.password ? await hashPassword(input.password) : undefined;
      return changes.write(tenantId, async (w) => {
        const current = await usersRepository.findById(w.trx, tenantId, id);
        if (!current || current.archived_at) throw notFound('Medewerker');
        const next: UserRow = {
          ...current,
          name: input.name ?? current.name,
          role: input.role ?? current.role,
          email: input.email === undefined ? current.email : input.email?.toLowerCase() ?? null,
          hourly_wage_cents: input.hourly_wage_cents === undefined ? current.hourly_wage_cents : input.hourly_wage_cents,
          job: input.job === undefined ? current.job : input.job,
          // An admin carries no PIN: promoting someone drops theirs.
          pin_hash: (input.role ?? current.role) === 'admin' ? null : pinHash === undefined ? current.pin_hash : pinHash,
          password_hash: passwordHash ?? current.password_hash,
          updated_at: w.now,
        };
        if (next.role === 'admin' && input.pin) throw adminPin();
        // Nothing to change (an empty patch, or the values it already has): no write, no change-log entry.
        if (!passwordHash && USER_FIELDS.every((k) => next[k] === current[k])) return toUserDto(current);
        if (next.role === 'staff' && !next.pin_hash) throw invalidField('pin', 'is verplicht voor een medewerker.');
        if (next.role === 'admin' && (!next.email || !next.password_hash)) {
          throw invalidField(next.email ? 'password' : 'email', 'is verplicht voor een beheerder.');
        }
        if (current.role === 'admin' && next.role !== 'admin' && (await usersRepository.countAdmins(w.trx, tenantId)) <= 1) {
          throw conflict('Er moet minstens één beheerder overblijven.');
        }
        if (next.pin_hash && next.pin_hash !== current.pin_hash) {
          const other = await usersRepository.findByPinHash(w.trx, tenantId, next.pin_hash);
          if (other && other.id !== id) throw pinTaken();
        }
        if (next.email && next.email !== current.email) {
          const other = await usersRepository.findByEmail(w.trx, tenantId, next.email);
          if (other && other.id !== id) throw emailTaken();
        }
        try {
          await usersRepository.update(w.trx, tenantId, id, next);
        } catch (err) {
          uniqueToConflict(err);
        }
        // A changed PIN, password or role ends the user's open sessions.
        if (next.pin_hash !== current.pin_hash || passwordHash || next.role !== current.role) {
          await usersRepository.endSessions(w.trx, tenantId, id);
        }
        await w.record(userChange(next, 'user.updated'));
        return toUserDto(next);
      });
    },

    /**
     * Users are referenced by history (orders, shifts, logs): deleting archives, ends sessions and
     * frees the PIN and the e-mail address for someone else (a re-hired manager would otherwise get
     * "already in use" for an address no visible user has). Earlier change-log entries keep the old values.
     */
    async archive(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const current = await usersRepository.findById(w.trx, tenantId, id);
        if (!current || current.archived_at) throw notFound('Medewerker');
        if (current.role === 'admin' && (await usersRepository.countAdmins(w.trx, tenantId)) <= 1) {
          throw conflict('Er moet minstens één beheerder overblijven.');
        }
        const freed = { archived_at: w.now, updated_at: w.now, pin_hash: null, email: null };
        await usersRepository.update(w.trx, tenantId, id, freed);
        await usersRepository.endSessions(w.trx, tenantId, id);
        await w.record(userChange({ ...current, ...freed }, 'user.archived'));
      });
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
