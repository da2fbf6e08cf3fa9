import type { Db, Executor } from '../../db/connection.js';
import type { LoginFailuresTable, SessionsTable } from '../../db/database.js';

/** Sessions and login failures: the only Kysely of the auth module (the service holds the rules). */
export const authRepository = {
  // ---- login failures (the lock-out counter, docs in auth.service.ts `beginAttempt`)
  insertAttempt: (db: Executor, row: LoginFailuresTable) => db.insertInto('login_failures').values(row).execute(),
  /** The other attempts of tenant+IP after `since`, oldest first. */
  attemptsSince: (db: Executor, tenantId: string, ip: string, since: string, exceptId: string) =>
    db
      .selectFrom('login_failures')
      .select('created_at')
      .where('tenant_id', '=', tenantId)
      .where('ip', '=', ip)
      .where('created_at', '>', since)
      .where('id', '!=', exceptId)
      .orderBy('created_at')
      .execute(),
  /** The other attempts of the whole tenant (every address) after `since`: how many, and the newest. */
  tenantAttemptsSince: async (db: Executor, tenantId: string, since: string, exceptId: string) => {
    const row = await db
      .selectFrom('login_failures')
      .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.max('created_at').as('newest')])
      .where('tenant_id', '=', tenantId)
      .where('created_at', '>', since)
      .where('id', '!=', exceptId)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), newest: (row.newest as string | null) ?? null };
  },
  deleteAttempt: (db: Executor, id: string) => db.deleteFrom('login_failures').where('id', '=', id).execute(),
  deleteAttemptsBefore: (db: Executor, before: string) => db.deleteFrom('login_failures').where('created_at', '<', before).execute(),

  // ---- sessions
  /**
   * A new session, and the login's own attempt row removed (it was no failure), in one transaction.
   * The address's earlier failures stay: a success in between does not clear them (issue 28 point 1).
   */
  startSession: (db: Db, row: SessionsTable & { ip: string }, attemptId: string) =>
    db.transaction().execute(async (trx) => {
      await trx.insertInto('sessions').values(row).execute();
      await authRepository.deleteAttempt(trx, attemptId);
    }),
  /** A session with its user and tenant (the user's tenant must be the session's). */
  findSession: (db: Executor, tokenHash: string) =>
    db
      .selectFrom('sessions as s')
      .innerJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').onRef('u.tenant_id', '=', 's.tenant_id'))
      .innerJoin('tenants as t', 't.id', 's.tenant_id')
      .select(['s.token_hash', 's.tenant_id', 's.user_id', 's.role', 's.created_at', 's.last_seen_at', 'u.name as user_name', 'u.email as user_email', 'u.archived_at as user_archived_at', 't.slug', 't.name as tenant_name'])
      .where('s.token_hash', '=', tokenHash)
      .executeTakeFirst(),
  touchSession: (db: Executor, tokenHash: string, lastSeenAt: string) => db.updateTable('sessions').set({ last_seen_at: lastSeenAt }).where('token_hash', '=', tokenHash).execute(),
  deleteSession: (db: Executor, tokenHash: string) => db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute(),
  /** Sessions idle since before `idleCut` or created before `absoluteCut`; answers how many went. */
  deleteExpiredSessions: async (db: Executor, idleCut: string, absoluteCut: string) => {
    const r = await db.deleteFrom('sessions').where((eb) => eb.or([eb('last_seen_at', '<', idleCut), eb('created_at', '<', absoluteCut)])).executeTakeFirst();
    return Number(r.numDeletedRows);
  },
};
