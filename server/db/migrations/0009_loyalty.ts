import { sql, type Kysely } from 'kysely';

/**
 * Loyalty (issue 9, docs/loyalty.md): customers by phone number, a points ledger, the escrow the
 * cloud leases to appliances, and the privacy log. Additive only.
 *
 * - `loyalty_customers` (replicated, last writer wins per field + tombstone): `phone` is E.164 and
 *   deliberately NOT unique: two sides of an outage may both create the same phone; the cloud merges
 *   them (`merged_into` → the surviving customer). An erased customer keeps its row with `phone`,
 *   `name` and `email` null and `erased_at` set (the tombstone), so its points history stays.
 * - `loyalty_transactions` (replicated ledger, escrow): signed `points` (earn +, redeem −, adjust ±).
 *   `pool` says whose rights a decrement spent: 'pool' (the cloud's, or a stand-alone appliance's)
 *   or 'lease' (the appliance `device_id`'s lease). An earn's id is derived from its order, and the
 *   partial unique index keeps one earn per order even if an id were ever made differently.
 * - `loyalty_leases` (replicated ledger, escrow): `points` > 0 a grant by the cloud to `device_id`,
 *   < 0 a return by that device.
 * - `loyalty_privacy_log` (replicated ledger): who exported or erased which customer, when.
 * - `loyalty_accounts` (local-only, derived): per surviving customer and holder ('pool' or a device
 *   id) the points that holder may spend, maintained in the same transaction as every ledger row,
 *   rebuildable from the ledger; redemptions check and spend it in one conditional UPDATE.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('loyalty_customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('phone', 'text')
    .addColumn('name', 'text')
    .addColumn('email', 'text')
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('merged_into', 'text')
    .addColumn('merged_at', 'text')
    .addColumn('erased_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('loyalty_customers_phone').on('loyalty_customers').columns(['tenant_id', 'phone']).execute();
  await db.schema.createIndex('loyalty_customers_merged').on('loyalty_customers').columns(['merged_into']).execute();

  await db.schema
    .createTable('loyalty_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('points', 'integer', (c) => c.notNull())
    .addColumn('pool', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text')
    .addColumn('order_id', 'text')
    .addColumn('note', 'text')
    .addColumn('user_id', 'text')
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('loyalty_transactions_customer').on('loyalty_transactions').columns(['customer_id', 'created_at']).execute();
  await db.schema.createIndex('loyalty_transactions_tenant').on('loyalty_transactions').columns(['tenant_id', 'created_at']).execute();
  await db.schema
    .createIndex('loyalty_transactions_earn_once')
    .on('loyalty_transactions')
    .columns(['tenant_id', 'order_id'])
    .unique()
    .where(sql.ref('type'), '=', 'earn')
    .execute();

  await db.schema
    .createTable('loyalty_leases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('points', 'integer', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('loyalty_leases_customer').on('loyalty_leases').columns(['customer_id', 'device_id']).execute();
  await db.schema.createIndex('loyalty_leases_tenant').on('loyalty_leases').columns(['tenant_id']).execute();

  await db.schema
    .createTable('loyalty_privacy_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('loyalty_privacy_log_tenant').on('loyalty_privacy_log').columns(['tenant_id', 'customer_id']).execute();

  await db.schema
    .createTable('loyalty_accounts')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('points', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('loyalty_accounts_pk', ['customer_id', 'holder'])
    .execute();
  await db.schema.createIndex('loyalty_accounts_tenant').on('loyalty_accounts').columns(['tenant_id', 'holder']).execute();
}
