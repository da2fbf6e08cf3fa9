import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Uploads in the cloud (issue 28 point 16): a waste photo lived on the disk of the node that took
 * it, so another node answered 404. The cloud keeps the bytes here instead (bytea on PostgreSQL,
 * where the cloud runs; blob on SQLite, where an appliance keeps using its disk and this stays
 * empty). One row per upload, keyed by the record it belongs to (a waste entry's id).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema
    .createTable('upload_blobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('bytes', bytes, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
