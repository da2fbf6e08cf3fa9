import type { Executor } from '../../db/connection.js';
import type { ApiKeysTable } from '../../db/database.js';

export type ApiKeyRow = ApiKeysTable;

export const apiKeysRepository = {
  /** This appliance's database is bound to a cloud (it has synced with one): partner credentials are managed there. */
  boundToCloud: async (db: Executor) => (await db.selectFrom('sync_state').select('id').limit(1).executeTakeFirst()) !== undefined,

  find: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),

  findById: (db: Executor, id: string) => db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst(),

  findByHash: (db: Executor, keyHash: string) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst(),

  /** Newest first, with this node's last use. */
  list: (db: Executor, tenantId: string) =>
    db
      .selectFrom('api_keys')
      .leftJoin('api_key_usage', 'api_key_usage.key_id', 'api_keys.id')
      .selectAll('api_keys')
      .select('api_key_usage.last_used_at')
      .where('api_keys.tenant_id', '=', tenantId)
      .orderBy('api_keys.created_at', 'desc')
      .orderBy('api_keys.id', 'desc')
      .execute(),

  lastUsed: async (db: Executor, id: string) =>
    (await db.selectFrom('api_key_usage').select('last_used_at').where('key_id', '=', id).executeTakeFirst())?.last_used_at ?? null,

  insert: (db: Executor, row: ApiKeyRow) => db.insertInto('api_keys').values(row).execute(),

  update: (db: Executor, id: string, patch: Partial<ApiKeyRow>) => db.updateTable('api_keys').set(patch).where('id', '=', id).execute(),

  /** This node's bookkeeping (not a domain change: never in the change log). */
  touch: (db: Executor, id: string, tenantId: string, at: string) =>
    db
      .insertInto('api_key_usage')
      .values({ key_id: id, tenant_id: tenantId, last_used_at: at })
      .onConflict((oc) => oc.column('key_id').doUpdateSet({ last_used_at: at }))
      .execute(),
};
