import { sql } from 'kysely';
import { insertRows } from '../../db/bulk.js';
import type { Dialect, Executor } from '../../db/connection.js';
import type { WebhookDeliveriesTable, WebhookSubscriptionsTable } from '../../db/database.js';
import type { DeliveryStatus } from './webhooks.schemas.js';

export type SubscriptionRow = WebhookSubscriptionsTable;
export type DeliveryRow = WebhookDeliveriesTable;

/**
 * The database's own time as ISO-8601 text (the format of every timestamp column), optionally
 * `plusMs` later. Claims are timed by the database, not by a node's clock: two nodes whose clocks
 * disagree still agree on when a claim runs out.
 */
export function dbNow(dialect: Dialect, plusMs = 0) {
  if (dialect === 'postgres') {
    return sql<string>`to_char((clock_timestamp() + make_interval(secs => ${plusMs / 1000})) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }
  return sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`+${plusMs / 1000} seconds`})`;
}

/** The delivery queue's predicate, written as a literal like the partial index `webhook_deliveries_due` (so the planner can use it). */
const PENDING = sql<boolean>`status = 'pending'`;

/** A delivery's place in the queue (`webhook_deliveries_due`: next_attempt_at, then id). */
export interface QueueKey {
  at: string;
  id: string;
}

export const webhooksRepository = {
  // --- subscriptions -------------------------------------------------------------------------

  /** A live (not deleted) subscription of the tenant. */
  find: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('webhook_subscriptions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst(),

  list: (db: Executor, tenantId: string) =>
    db.selectFrom('webhook_subscriptions').selectAll().where('tenant_id', '=', tenantId).where('deleted_at', 'is', null).orderBy('created_at').orderBy('id').execute(),

  countLive: async (db: Executor, tenantId: string) =>
    Number(
      (
        await db
          .selectFrom('webhook_subscriptions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('deleted_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).n,
    ),

  insert: (db: Executor, row: SubscriptionRow) => db.insertInto('webhook_subscriptions').values(row).execute(),

  update: (db: Executor, id: string, patch: Partial<SubscriptionRow>) => db.updateTable('webhook_subscriptions').set(patch).where('id', '=', id).execute(),

  /** Subscriptions by id, deleted ones included (the worker must know a deletion to stop). */
  byIds: (db: Executor, ids: string[]) => (ids.length ? db.selectFrom('webhook_subscriptions').selectAll().where('id', 'in', ids).execute() : Promise.resolve([])),

  // --- deliveries ----------------------------------------------------------------------------

  /** One row per (webhook, event key); a row that is already there stays as it is. Returns how many were new. */
  enqueue: (db: Executor, rows: DeliveryRow[]) => insertRows(db, 'webhook_deliveries', rows as unknown as Array<Record<string, unknown>>, { columns: ['webhook_id', 'event_key'], action: 'nothing' }),

  findDelivery: (db: Executor, tenantId: string, webhookId: string, id: string) =>
    db.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', tenantId).where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst(),

  listDeliveries: (db: Executor, tenantId: string, webhookId: string, status: DeliveryStatus | undefined, limit: number, offset: number) => {
    let q = db.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', tenantId).where('webhook_id', '=', webhookId);
    if (status) q = q.where('status', '=', status);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
  },

  countDeliveries: async (db: Executor, tenantId: string, webhookId: string, status: DeliveryStatus | undefined) => {
    let q = db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).where('webhook_id', '=', webhookId);
    if (status) q = q.where('status', '=', status);
    return Number((await q.executeTakeFirstOrThrow()).n);
  },

  /**
   * Claims up to `limit` due deliveries (due by the worker's clock, `now`) for this worker: marks
   * them with its `token` for `leaseMs` of the database's time, in one statement. On PostgreSQL the candidates are locked with
   * `FOR UPDATE SKIP LOCKED`, so two nodes claiming at the same moment get disjoint rows; SQLite has
   * one writer. A claim whose lease ran out (a node that died while sending) is due again.
   */
  claimDue: (db: Executor, dialect: Dialect, now: string, leaseMs: number, token: string, limit: number, after: QueueKey | null = null) => {
    let candidates = db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where(PENDING)
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', dbNow(dialect))]))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(limit);
    // From a key on: the queue index's range starts there, past the entries of rows already sent.
    if (after) candidates = candidates.where((eb) => eb(eb.refTuple('next_attempt_at', 'id'), '>', eb.tuple(after.at, after.id)));
    return db
      .updateTable('webhook_deliveries')
      .set({ lock_token: token, locked_until: dbNow(dialect, leaseMs) })
      .where('id', 'in', dialect === 'postgres' ? candidates.forUpdate().skipLocked() : candidates)
      .returningAll()
      .execute();
  },

  /** Records an attempt's outcome, only while this worker still holds the claim; false when it no longer does. */
  finish: async (db: Executor, id: string, token: string, patch: Partial<DeliveryRow>) => {
    const res = await db
      .updateTable('webhook_deliveries')
      .set({ ...patch, lock_token: null, locked_until: null })
      .where('id', '=', id)
      .where('lock_token', '=', token)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  },

  /**
   * Records several accepted attempts at once (one statement instead of one per delivery), for the
   * rows this worker still holds. Returns how many were recorded.
   */
  finishDelivered: async (db: Executor, ids: string[], token: string, at: string, statusCode: number) => {
    if (ids.length === 0) return 0;
    const res = await db
      .updateTable('webhook_deliveries')
      .set({
        status: 'delivered',
        attempts: sql<number>`attempts + 1`,
        delivered_at: at,
        last_attempt_at: at,
        last_status_code: statusCode,
        last_error: null,
        next_attempt_at: null,
        updated_at: at,
        lock_token: null,
        locked_until: null,
      })
      .where('id', 'in', ids)
      .where('lock_token', '=', token)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  },

  /** The earliest moment a pending delivery is due (claimed ones: when their lease ends), or null. */
  nextDue: async (db: Executor) => {
    const row = await db
      .selectFrom('webhook_deliveries')
      .select(sql<string | null>`min(case when locked_until is not null and locked_until > next_attempt_at then locked_until else next_attempt_at end)`.as('at'))
      .where(PENDING)
      .executeTakeFirst();
    return (row?.at as string | null | undefined) ?? null;
  },

  /**
   * Deletes finished deliveries (delivered or failed) last touched before `before`, at most `limit`
   * per statement, until none is left; pending ones are never touched. Returns how many went.
   */
  pruneFinished: async (db: Executor, before: string, limit = 5000) => {
    let total = 0;
    for (;;) {
      const ids = db.selectFrom('webhook_deliveries').select('id').where('status', 'in', ['delivered', 'failed']).where('updated_at', '<', before).limit(limit);
      const res = await db.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst();
      const n = Number(res.numDeletedRows);
      total += n;
      if (n < limit) return total;
    }
  },

  updateDelivery: (db: Executor, id: string, patch: Partial<DeliveryRow>) => db.updateTable('webhook_deliveries').set(patch).where('id', '=', id).execute(),

  /**
   * Whether this appliance's database is bound to a cloud: the sync engine writes its one
   * `sync_state` row when it binds an empty database to a cloud device (sync/README.md), and that
   * binding is for life. Read-only, and the only reason this module looks at a sync table.
   */
  boundToCloud: async (db: Executor) => (await db.selectFrom('sync_state').select('id').limit(1).executeTakeFirst()) !== undefined,
};
