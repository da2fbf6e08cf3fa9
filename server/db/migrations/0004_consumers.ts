import type { Kysely } from 'kysely';

/**
 * Change-log consumers (server/db/consumers.ts): one cursor row per (consumer, tenant). A cloud
 * node claims a tenant's next batch by locking this row (FOR UPDATE SKIP LOCKED), handles it and
 * advances `last_seq` in the same transaction. Local-only: positions in this node's change log.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('change_consumers')
    .addColumn('consumer', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('last_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('node', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('change_consumers_pk', ['consumer', 'tenant_id'])
    .execute();
}
