import { sql, type Kysely } from 'kysely';

/**
 * Kitchen printers and print jobs (issue 24, CONTRACT §18, docs/kitchen.md). Both tables stay on the
 * node that prints (the appliance, or a stand-alone server): printers are on the restaurant's own
 * network and a job is this node's outbox to them (server/modules/sync-descriptors.ts, local-only).
 * - `printers`: the configuration (`stations` JSON, `receipts` 0/1) and what this node last saw of
 *   the printer (`last_ok_at`, `last_error`, `last_error_at`) for its status.
 * - `print_jobs`: one ticket for one printer. `content` is what the ticket says (JSON), rendered to
 *   ESC/POS when it is sent, so a job moved to a fallback printer of another width still fits.
 *   `dedupe_key` (unique per restaurant) names the cause (the order's first ticket, a fired course,
 *   a void) and the printer: the same cause never makes a second job. `sending_at` marks a send in
 *   flight (see docs/kitchen.md "Exactly once").
 * The change-log consumer 'printing' (synced orders print on arrival) starts at each restaurant's
 * current position, so an upgraded appliance does not print its history.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('printers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull().defaultTo(9100))
    .addColumn('width_mm', 'integer', (c) => c.notNull().defaultTo(80))
    .addColumn('stations', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('receipts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fallback_printer_id', 'text')
    .addColumn('last_ok_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('printers_tenant').on('printers').columns(['tenant_id', 'name']).execute();
  await db.schema
    .createTable('print_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('printer_id', 'text', (c) => c.notNull())
    .addColumn('moved_to', 'text')
    .addColumn('order_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('sending_at', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text')
    .addColumn('requested_by', 'text')
    .addColumn('reprint_of', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('done_at', 'text')
    .execute();
  await db.schema.createIndex('print_jobs_once').on('print_jobs').columns(['tenant_id', 'dedupe_key']).unique().execute();
  await db.schema.createIndex('print_jobs_due').on('print_jobs').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('print_jobs_tenant').on('print_jobs').columns(['tenant_id', 'created_at']).execute();
  await db.schema.createIndex('print_jobs_order').on('print_jobs').columns(['order_id']).execute();
  await sql`insert into change_consumers (consumer, tenant_id, last_seq, node, updated_at)
    select 'printing', tenant_id, last_seq, null, ${new Date().toISOString()} from change_seq`.execute(db);
}
