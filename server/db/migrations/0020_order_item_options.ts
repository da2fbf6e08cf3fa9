import type { Kysely } from 'kysely';

/**
 * Order items carry what was chosen (issue 23, CONTRACT §17, docs/menu.md): `modifiers` (JSON
 * `[{option_id, group_id, group_name, name, price_delta_cents, quantity}]` as sold: a later menu change
 * never rewrites a sold item), `allergens` (JSON, the dish's and its options' as sold), `seat`
 * (1..50 or null) and `course` (1..5).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_items').addColumn('modifiers', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('order_items').addColumn('allergens', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('order_items').addColumn('seat', 'integer').execute();
  await db.schema.alterTable('order_items').addColumn('course', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}
