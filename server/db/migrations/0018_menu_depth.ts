import type { Kysely } from 'kysely';

/**
 * Menu depth (issue 23, CONTRACT §17, docs/menu.md): the menu's half: modifier groups and
 * their options, allergens and dietary marks, default courses.
 *
 * - `modifier_groups`: a group of options ("Saus (kies 1)", "Extra's") with `min_select` and
 *   `max_select`; `options` is JSON `[{id, name, price_delta_cents, ingredient_product_id,
 *   ingredient_quantity_milli, available}]` (an option lives and replicates with its group, as a
 *   recipe's lines live in the recipe).
 * - `products.modifier_group_ids`: JSON list of group ids in the order the product asks them;
 *   `products.allergens` and `.dietary`: JSON lists of codes (the 14 EU allergens; vegetarian,
 *   vegan); `products.course`, `categories.course`: the default course of a line (null: 1).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('modifier_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('min_select', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_select', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('options', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('modifier_groups_tenant').on('modifier_groups').columns(['tenant_id', 'name']).execute();

  await db.schema.alterTable('products').addColumn('modifier_group_ids', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('products').addColumn('allergens', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('products').addColumn('dietary', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('products').addColumn('course', 'integer').execute();
  await db.schema.alterTable('categories').addColumn('course', 'integer').execute();

}
