import type { Kysely } from 'kysely';

/**
 * Bare echoes (sync/README.md "Echoes"): `change_log.as_sent` is 1 when the cloud recorded a pushed op
 * exactly as the appliance sent it (equal as JSON values), so a pull of that appliance may send the
 * op back without its payload. 0 for everything else: rows from before this migration, anything not
 * recorded by a push, the appliance's own log (where it is never read), and a payload rewritten in
 * place later (a loyalty erasure's redaction). A 0 only means "send the payload". Additive: a
 * defaulted column (PostgreSQL 11+ adds it without rewriting the table).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('change_log').addColumn('as_sent', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
