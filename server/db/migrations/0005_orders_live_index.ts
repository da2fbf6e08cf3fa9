import { sql, type Kysely } from 'kysely';

/**
 * Frozen. The kitchen's live list (active orders of a tenant, oldest first) must not scan a year of
 * finished orders: a partial index holds only the active ones. The predicate is written exactly as
 * the live query's (orders.repository `list` with ACTIVE_STATUSES), so both engines can use it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('orders_active')
    .on('orders')
    .columns(['tenant_id', 'created_at', 'id'])
    .where(sql.ref('status'), 'in', ['new', 'accepted', 'preparing', 'ready', 'delivering'])
    .execute();
}
