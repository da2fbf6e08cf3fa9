import type { Kysely } from 'kysely';

/**
 * Payments and public ordering (issue 12, docs/payments.md).
 * - `payments`: one row per payment started with a provider (a public order's checkout or a
 *   pay-at-table payment). Its status is changed only by the provider's own answer, with a
 *   conditional update (`where status <> 'paid'`), so a payment becomes paid once.
 * - `payment_refunds`: refunds of a payment (a ledger: rows are added, their status moves forward).
 * - `public_orders`: what a guest's order carries beyond the order itself (type, e-mail, table, and
 *   whether the restaurant's appliance was silent when the cloud accepted it).
 * - `payment_simulator`: the built-in simulator's own records: it plays the provider, so its
 *   state is the "provider's side" and never replicates (local-only).
 * Text ids and ISO timestamps on both engines, amounts in integer cents.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_payment_id', 'text')
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('table_name', 'text')
    .addColumn('bill_id', 'text')
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('tip_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('checkout_url', 'text')
    .addColumn('note', 'text')
    .addColumn('paid_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // NULLs are distinct on both engines: many rows may still wait for their provider id.
  await db.schema.createIndex('payments_provider_id').on('payments').columns(['provider', 'provider_payment_id']).unique().execute();
  await db.schema.createIndex('payments_order').on('payments').columns(['tenant_id', 'order_id']).execute();
  await db.schema.createIndex('payments_bill').on('payments').columns(['tenant_id', 'bill_id']).execute();
  await db.schema.createIndex('payments_created').on('payments').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('payment_refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('provider_refund_id', 'text')
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_refunds_payment').on('payment_refunds').columns(['payment_id', 'created_at']).execute();

  await db.schema
    .createTable('public_orders')
    .addColumn('id', 'text', (c) => c.primaryKey()) // the order's id: one row per public order
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('customer_email', 'text')
    .addColumn('table_name', 'text')
    .addColumn('delivery_address', 'text')
    .addColumn('payment_required', 'integer', (c) => c.notNull())
    .addColumn('appliance_silent_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('public_orders_created').on('public_orders').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('payment_simulator')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('redirect_url', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text', (c) => c.notNull())
    .addColumn('refunded_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_simulator').execute();
  await db.schema.dropTable('public_orders').execute();
  await db.schema.dropTable('payment_refunds').execute();
  await db.schema.dropTable('payments').execute();
}
