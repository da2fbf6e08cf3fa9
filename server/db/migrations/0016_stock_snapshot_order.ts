import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * The cloud copies a tenant's stock ledger to a new appliance in replay order (booked_at, id:
 * stock.sync.ts `snapshot`), a page after the last row copied. PostgreSQL (where the cloud runs)
 * gets the index that makes each page a range read instead of a sort of the whole ledger; an
 * appliance never serves snapshots, so SQLite does not pay for it on every booking.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.createIndex('stock_movements_booked').on('stock_movements').columns(['tenant_id', 'booked_at', 'id']).execute();
  }
}
