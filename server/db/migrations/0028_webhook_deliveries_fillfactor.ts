import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Room for the webhook queue's claims on PostgreSQL (bench/README.md "Session 18, pgpush"). Every
 * delivery row is written three times: queued, claimed (`lock_token`, `locked_until`), finished. A
 * claim changes no indexed column, so PostgreSQL can keep its new row version on the same page (a
 * HOT update: no new entry in any of the table's four indexes) if that page has room; with the
 * default fillfactor (100) the queue's pages are full as they are written, so almost every claim
 * wrote a row version on another page and an entry in every index. At 50 each page keeps half of
 * itself for later versions of its own rows. Only pages written from now on; SQLite (the appliance)
 * has no such setting and needs none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table webhook_deliveries set (fillfactor = 50)`.execute(db);
  }
}
