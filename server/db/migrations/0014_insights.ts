import { sql, type Kysely } from 'kysely';

/**
 * Insights (issue 13, docs/insights.md): worked shifts with their corrections, and food waste.
 * - `shifts`: one row per worked shift (clocked in by staff or entered by an admin). A shift is born
 *   once (its id made where it happened) and only moves from open to closed; corrections change its
 *   times but each one is kept in `shift_corrections` with what it was before, who and when.
 * - `shift_corrections`: a ledger (rows only added), replicated with the shift.
 * - `waste_entries`: a ledger of thrown-away goods with the cost at the time and the stock movement
 *   that removed them; the photo file lives under DATA_DIR/uploads/waste on the node that took it.
 * Also an index for the analytics and forecast queries: completed orders of a tenant by business day.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shifts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('start_at', 'text', (c) => c.notNull())
    .addColumn('end_at', 'text')
    .addColumn('break_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_by', 'text')
    .addColumn('closed_by', 'text')
    .addColumn('corrections', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shifts_user_start').on('shifts').columns(['tenant_id', 'user_id', 'start_at']).execute();
  await db.schema.createIndex('shifts_start').on('shifts').columns(['tenant_id', 'start_at']).execute();

  await db.schema
    .createTable('shift_corrections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('shift_id', 'text', (c) => c.notNull().references('shifts.id'))
    .addColumn('changed_by', 'text')
    .addColumn('reason', 'text')
    .addColumn('before', 'text', (c) => c.notNull())
    .addColumn('after', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shift_corrections_shift').on('shift_corrections').columns(['shift_id', 'created_at']).execute();

  await db.schema
    .createTable('waste_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('location_id', 'text')
    .addColumn('quantity', 'double precision', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('unit_cost_cents', 'integer', (c) => c.notNull())
    .addColumn('cost_cents', 'integer', (c) => c.notNull())
    .addColumn('photo_file', 'text')
    .addColumn('photo_type', 'text')
    .addColumn('photo_bytes', 'integer')
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('waste_entries_day').on('waste_entries').columns(['tenant_id', 'business_day']).execute();

  await db.schema
    .createIndex('orders_completed_day')
    .on('orders')
    .columns(['tenant_id', 'business_day'])
    .where(sql.ref('status'), '=', 'completed')
    .execute();
}
