import { sql, type Kysely } from 'kysely';

/**
 * Floor plan and reservations (issue 11, docs/floor.md, docs/reservations.md).
 *
 * - `floor_zones`, `floor_tables`: configuration (last-writer-wins per field across sync), archived
 *   rather than deleted. `status_override` is the manual status staff set (null: derived).
 * - `bills`: one open bill per table. The partial unique index `bills_open_per_table` makes the
 *   database the arbiter: two first rounds at once can never open two bills for one table.
 *   `bill_rounds` (which order belongs to which bill, id derived from the order id) and
 *   `bill_payments` (a ledger; id derived from the provider's payment id when there is one) are only
 *   ever added to.
 * - `floor_table_status`: the status last announced per table on THIS node (local-only), so a change
 *   of the derived status is announced once (change log → socket).
 * - `reservations`: one table per booking; `starts_at`/`ends_at` are UTC instants computed from the
 *   local date and time in the restaurant's time zone.
 * Integers for seats, positions and cents; text for ids and ISO timestamps (both engines alike).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('floor_zones')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('floor_zones_tenant').on('floor_zones').columns(['tenant_id', 'position']).execute();

  await db.schema
    .createTable('floor_tables')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('zone_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('seats', 'integer', (c) => c.notNull())
    .addColumn('x', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('y', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('shape', 'text', (c) => c.notNull().defaultTo('rect'))
    .addColumn('reservable', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('status_override', 'text')
    .addColumn('override_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('floor_tables_tenant').on('floor_tables').columns(['tenant_id', 'zone_id']).execute();

  await db.schema
    .createTable('floor_table_status')
    .addColumn('table_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('floor_table_status_tenant').on('floor_table_status').columns(['tenant_id']).execute();

  await db.schema
    .createTable('bills')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('table_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .addColumn('close_reason', 'text')
    .addColumn('closed_by', 'text')
    .addColumn('merged_into', 'text')
    .addColumn('conflict', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The database decides "one open bill per table", not a check-then-insert.
  await db.schema
    .createIndex('bills_open_per_table')
    .on('bills')
    .columns(['tenant_id', 'table_id'])
    .unique()
    .where(sql.ref('status'), '=', 'open')
    .execute();
  await db.schema.createIndex('bills_table').on('bills').columns(['tenant_id', 'table_id', 'opened_at']).execute();
  await db.schema.createIndex('bills_merged_into').on('bills').columns(['merged_into']).execute();

  await db.schema
    .createTable('bill_rounds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('bill_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull().unique())
    .addColumn('table_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bill_rounds_bill').on('bill_rounds').columns(['bill_id']).execute();

  await db.schema
    .createTable('bill_payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('bill_id', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('tip_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text')
    .addColumn('order_id', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bill_payments_bill').on('bill_payments').columns(['bill_id']).execute();

  await db.schema
    .createTable('reservations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('time', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addColumn('party_size', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('email', 'text')
    .addColumn('notes', 'text')
    .addColumn('table_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('conflict', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reservations_date').on('reservations').columns(['tenant_id', 'date', 'time']).execute();
  await db.schema.createIndex('reservations_window').on('reservations').columns(['tenant_id', 'starts_at']).execute();
}
