import type { Kysely } from 'kysely';

/** Frozen. Menu (categories, products) and orders with their items, status history and number counters. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('categories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('categories_tenant').on('categories').columns(['tenant_id', 'position']).execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('category_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addColumn('cost_cents', 'integer')
    .addColumn('vat_rate', 'integer')
    .addColumn('unit', 'text')
    .addColumn('min_level', 'double precision')
    .addColumn('available', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('products_tenant').on('products').columns(['tenant_id', 'name']).execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('table_id', 'text')
    .addColumn('customer_name', 'text')
    .addColumn('customer_phone', 'text')
    .addColumn('notes', 'text')
    .addColumn('total_cents', 'integer', (c) => c.notNull())
    .addColumn('payment_status', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The database, not a check-then-insert, decides that one key makes one order.
  await db.schema.createIndex('orders_idempotency').on('orders').columns(['tenant_id', 'idempotency_key']).unique().execute();
  await db.schema.createIndex('orders_number').on('orders').columns(['tenant_id', 'business_day', 'number']).unique().execute();
  await db.schema.createIndex('orders_status').on('orders').columns(['tenant_id', 'status', 'created_at']).execute();
  await db.schema.createIndex('orders_created').on('orders').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('order_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_price_cents', 'integer', (c) => c.notNull())
    .addColumn('total_cents', 'integer', (c) => c.notNull())
    .addColumn('notes', 'text')
    .execute();
  await db.schema.createIndex('order_items_order').on('order_items').columns(['order_id', 'position']).execute();

  await db.schema
    .createTable('order_status_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_status_history_order').on('order_status_history').columns(['order_id', 'created_at']).execute();

  await db.schema
    .createTable('order_counters')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('last', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_counters_pk', ['tenant_id', 'prefix', 'business_day'])
    .execute();
}
