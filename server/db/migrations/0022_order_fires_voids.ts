import type { Kysely } from 'kysely';

/**
 * Courses and voids (issue 23, CONTRACT §17, docs/menu.md):
 * - `order_items.fired_at`: when the line went to the kitchen (course 1: with the order; a later
 *   course: when fired); null on a later course = held.
 * - `order_course_fires`: a later course sent to the kitchen (who, when); one row per order and
 *   course (a unique index: a course fired on both sides of an outage fires once).
 * - `order_item_voids`: units taken off a line (who, when, why), each with its own id (a void made
 *   offline counts once); `order_items.voided_quantity` is their sum, kept with each void.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_items').addColumn('voided_quantity', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('order_items').addColumn('fired_at', 'text').execute();
  await db.schema
    .createTable('order_course_fires')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('course', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_course_fires_once').on('order_course_fires').columns(['order_id', 'course']).unique().execute();
  await db.schema
    .createTable('order_item_voids')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_item_voids_order').on('order_item_voids').columns(['order_id', 'created_at']).execute();
  await db.schema.createIndex('order_item_voids_tenant').on('order_item_voids').columns(['tenant_id', 'created_at']).execute();
}
