import type { Kysely } from 'kysely';

/**
 * Frozen. Snapshot bootstrap (sync/README.md): an appliance bound to an empty database first copies
 * the cloud's current rows page by page, then pulls the changes after the snapshot's seq. The
 * position in that copy survives a restart; null when no snapshot is under way.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sync_state').addColumn('snapshot_cursor', 'text').execute();
}
