import { sql, type Kysely } from 'kysely';

/**
 * Stock (issue 8, docs/stock.md): locations, recipes, the stock ledger and its maintained levels,
 * and the ingredient flag on products.
 *
 * - `products.on_menu` (0/1, default 1): 0 = a stock item that is never sold (beef, buns). It stays
 *   out of the staff menu and the public menu and cannot be ordered; stock, recipes and the purchase
 *   list use it like any product.
 * - `locations`: where stock lies (cold store, freezer, bar ...); exactly one live default per
 *   tenant (a partial unique index guards it; archived locations are never the default).
 * - `recipes`: one row per sold product (`id` = the product's id, so two sides that each write the
 *   recipe of a product offline end with one row: last writer wins); `ingredients` is JSON
 *   `[{product_id, quantity_milli}]`.
 * - `stock_movements`: the ledger, rows only added. Quantities are integer thousandths of the
 *   product's unit (`*_milli`: grams of a kg, ml of a litre), so sums are exact and every node
 *   replaying the same rows gets the same level. `quantity_milli` is the signed change of the level
 *   (for an ADJUSTMENT the difference to the count, which is in `counted_milli`); `booked_at`
 *   orders the replay (see docs/stock.md).
 * - `stock_levels`: the level per product and location, maintained in the same transaction as each
 *   movement; derived data, never replicated, rebuilt from the ledger by `cli stock verify`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').addColumn('on_menu', 'integer', (c) => c.notNull().defaultTo(1)).execute();

  await db.schema
    .createTable('locations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('locations_tenant').on('locations').columns(['tenant_id', 'name']).execute();
  await db.schema.createIndex('locations_one_default').on('locations').column('tenant_id').unique().where(sql.ref('is_default'), '=', 1).execute();

  await db.schema
    .createTable('recipes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('ingredients', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recipes_tenant').on('recipes').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('stock_movements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('quantity_milli', 'bigint', (c) => c.notNull())
    .addColumn('counted_milli', 'bigint')
    .addColumn('level_after_milli', 'bigint', (c) => c.notNull())
    .addColumn('transfer_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('note', 'text')
    .addColumn('user_id', 'text')
    .addColumn('booked_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // The replay of one product at one location, in booking order.
  await db.schema.createIndex('stock_movements_pair').on('stock_movements').columns(['tenant_id', 'product_id', 'location_id', 'booked_at', 'id']).execute();
  // History (newest first) and consumption over a period.
  await db.schema.createIndex('stock_movements_created').on('stock_movements').columns(['tenant_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('stock_levels')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('quantity_milli', 'bigint', (c) => c.notNull())
    .addColumn('last_booked_at', 'text')
    .addColumn('last_id', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('stock_levels_pk', ['tenant_id', 'product_id', 'location_id'])
    .execute();
}
