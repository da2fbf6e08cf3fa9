import type { Kysely } from 'kysely';

/**
 * Kitchen stations (issue 24, CONTRACT §18): `categories.station` and `products.station`, a short
 * name such as `keuken` or `bar`. A product's own station wins, then its category's, else `keuken`.
 * Nullable, so a node one release behind still syncs its menu rows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('categories').addColumn('station', 'text').execute();
  await db.schema.alterTable('products').addColumn('station', 'text').execute();
}
