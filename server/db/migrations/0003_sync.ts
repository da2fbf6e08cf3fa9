import type { Kysely } from 'kysely';

/**
 * Sync bookkeeping (sync/README.md). All four tables are local-only (never replicated):
 * - cloud: `sync_devices` (registered appliances, SYNC_KEY stored as sha256) and `sync_ops` (one row
 *   per op a device pushed: the dedupe table and the place its outcome lives);
 * - appliance: `sync_state` (one row: tenant, device, pull cursor, acknowledged push position,
 *   the worker lease, last success/error) and `sync_op_results` (what the cloud did with ops it did
 *   not simply apply: rejected / conflict).
 * Types agree on both engines: text ids and ISO timestamps, bigint positions, JSON as text.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sync_devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('last_device_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('app_version', 'text')
    .addColumn('schema_version', 'integer')
    .addColumn('protocol_version', 'integer')
    .execute();
  await db.schema.createIndex('sync_devices_tenant').on('sync_devices').columns(['tenant_id']).execute();

  await db.schema
    .createTable('sync_ops')
    .addColumn('op_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('device_seq', 'bigint', (c) => c.notNull())
    .addColumn('server_seq', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sync_ops_device_seq').on('sync_ops').columns(['device_id', 'device_seq']).execute();

  await db.schema
    .createTable('sync_state')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('pull_cursor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('acked_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_holder', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'text')
    .addColumn('stopped_reason', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sync_op_results')
    .addColumn('op_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('server_seq', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
