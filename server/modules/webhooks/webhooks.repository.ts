import { sql } from 'kysely';
import type { Dialect, Executor } from '../../db/connection.js';
import type { WebhookDeliveriesTable, WebhookSubscriptionsTable } from '../../db/database.js';
import type { DeliveryStatus } from './webhooks.schemas.js';

export type SubscriptionRow = WebhookSubscriptionsTable;
export type DeliveryRow = WebhookDeliveriesTable;

/** The delivery queue's predicate, written as a literal like the partial index `webhook_deliveries_due` (so the planner can use it). */
const PENDING = sql<boolean>`status = 'pending'`;

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
  enqueue: async (db: Executor, rows: DeliveryRow[]) => {
    let inserted = 0;
    for (let i = 0; i < rows.length; i += 50) {
      const res = await db
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 50))
        .onConflict((oc) => oc.columns(['webhook_id', 'event_key']).doNothing())
        .executeTakeFirst();
      inserted += Number(res.numInsertedOrUpdatedRows ?? 0);
    }
    return inserted;
  },

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
   * Claims up to `limit` due deliveries for this worker: marks them with its `token` until
   * `leaseUntil`, in one statement. On PostgreSQL the candidates are locked with
   * `FOR UPDATE SKIP LOCKED`, so two nodes claiming at the same moment get disjoint rows; SQLite has
   * one writer. A claim whose lease ran out (a node that died while sending) is due again.
   */
  claimDue: (db: Executor, dialect: Dialect, now: string, leaseUntil: string, token: string, limit: number) => {
    const candidates = db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where(PENDING)
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(limit);
    return db
      .updateTable('webhook_deliveries')
      .set({ lock_token: token, locked_until: leaseUntil })
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

  /** The earliest moment a pending delivery is due (claimed ones: when their lease ends), or null. */
  nextDue: async (db: Executor) => {
    const row = await db
      .selectFrom('webhook_deliveries')
      .select(sql<string | null>`min(case when locked_until is not null and locked_until > next_attempt_at then locked_until else next_attempt_at end)`.as('at'))
      .where(PENDING)
      .executeTakeFirst();
    return (row?.at as string | null | undefined) ?? null;
  },

  updateDelivery: (db: Executor, id: string, patch: Partial<DeliveryRow>) => db.updateTable('webhook_deliveries').set(patch).where('id', '=', id).execute(),

  /**
   * Whether this appliance's database is bound to a cloud: the sync engine writes its one
   * `sync_state` row when it binds an empty database to a cloud device (sync/README.md), and that
   * binding is for life. Read-only, and the only reason this module looks at a sync table.
   */
  boundToCloud: async (db: Executor) => (await db.selectFrom('sync_state').select('id').limit(1).executeTakeFirst()) !== undefined,
};
