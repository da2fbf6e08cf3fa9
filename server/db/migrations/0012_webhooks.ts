import { sql, type Kysely } from 'kysely';

/**
 * Partner API keys and outgoing webhooks (issue 16, CONTRACT §12, docs/partners.md).
 *
 * - `api_keys` (replicated, lww-fields; revocation is sticky): the key itself is never stored, only
 *   its sha256 (`key_hash`, unique across all tenants: a bearer key names its restaurant) and the
 *   first characters for recognising it in a list (`key_prefix`). `scopes` is a JSON list.
 * - `api_key_usage` (local-only): when this node last saw a key (`last_used_at`), written at most
 *   once a minute per key; per node, so it never floods the change log.
 * - `webhook_subscriptions` (replicated, lww-fields; deletion is sticky): URL, the JSON list of
 *   events, and the signing secret (kept in clear: the sender needs it to sign).
 * - `webhook_deliveries` (local-only: the sender's persisted queue): one row per (subscription,
 *   event), unique on `(webhook_id, event_key)`, holding the exact body bytes that are signed and
 *   sent on every attempt; `id` is the `X-Service-Delivery` header. A claim (`lock_token`,
 *   `locked_until`) keeps two nodes from sending the same row at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_tenant').on('api_keys').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('api_key_usage')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_subscriptions_tenant').on('webhook_subscriptions').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lock_token', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One delivery per (subscription, event), also when the event reached this node twice (sync).
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['webhook_id', 'event_key']).unique().execute();
  await db.schema.createIndex('webhook_deliveries_list').on('webhook_deliveries').columns(['webhook_id', 'created_at', 'id']).execute();
  // The worker's claim reads only the queue, never the delivered history.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}
