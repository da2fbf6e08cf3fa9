import { SqliteAdapter, type Kysely } from 'kysely';

/**
 * The appliance's pull skips the cloud's echo of its own op when the cloud kept exactly what was
 * sent (sync/README.md "Echoes"). For that it must know which of its own ops the cloud has echoed:
 * - `sync_state.echoed_seq`: the local seq of the last own op whose echo was pulled (echoes arrive
 *   in this device's op order). Null on a database that synced before this version: such a device
 *   adopts every echo until the first one sets it. A newly bound device starts at 0.
 * - On SQLite (where appliances run) an index to find a device's not-yet-echoed ops of one entity,
 *   re-applied after the cloud's state of that entity is adopted. The cloud (PostgreSQL) never
 *   looks up its log by entity, so it does not pay for the index on every write.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sync_state').addColumn('echoed_seq', 'bigint').execute();
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await db.schema.createIndex('change_log_entity').on('change_log').columns(['tenant_id', 'entity_id', 'seq']).execute();
  }
}
