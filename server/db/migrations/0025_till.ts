import { sql, type Kysely } from 'kysely';

/**
 * The till (issue 25, CONTRACT §19, docs/till.md): payment methods, paying by item, discounts, VAT
 * per line and receipt numbers. Additive only.
 *
 * - `bill_payments` gains `method` (contant, pin, creditcard, cadeaubon, overig, online; earlier rows:
 *   `online` for pay-at-table, `overig` for the rest), `received_cents` (cash handed over, null
 *   otherwise), `change_cents` (given back) and `items` (JSON `[{order_id, item_id, quantity,
 *   amount_cents}]`: the lines this payment paid when the bill was split by dish; `[]` otherwise).
 * - `order_payments`: payments at the till on an order without a table (POST /orders/:id/payments),
 *   a ledger (own id per payment, union across sync), the same money columns as `bill_payments`.
 * - `order_discounts`: discounts on an order or one of its lines (kind percent, amount, comp,
 *   points), a ledger; `amount_cents` is what the discount took off when it was given; points:
 *   `points`, `customer_id` and the loyalty redemption's `loyalty_transaction_id`.
 * - `orders.discount_cents`: the sum of the order's discounts (kept with each discount, as
 *   `total_cents`, which is after discounts from now on); `orders.customer_id`: the loyalty customer
 *   attached at the till (null: none, or only a phone).
 * - `categories.vat_rate`: the rate of its products that have none (CONTRACT §6; null: the setting).
 * - `order_items.vat_rate`: the VAT rate (percent) the line was sold at: the product's, else its
 *   category's, else 9 for the lines sold before this migration (the setting `default_vat_rate`
 *   applies to new lines).
 * - `receipts`: one per bill or order paid in full, numbered gapless per restaurant and series
 *   (`series` is the year, e.g. 2026, `seq` 1, 2, ...; `number` 2026-000123), unique per series.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('bill_payments').addColumn('method', 'text', (c) => c.notNull().defaultTo('overig')).execute();
  await db.schema.alterTable('bill_payments').addColumn('received_cents', 'integer').execute();
  await db.schema.alterTable('bill_payments').addColumn('change_cents', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('bill_payments').addColumn('items', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.updateTable('bill_payments').set({ method: 'online' }).where('source', '=', 'pay_at_table').execute();
  await db.schema.createIndex('bill_payments_tenant_time').on('bill_payments').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('order_payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('tip_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('received_cents', 'integer')
    .addColumn('change_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('items', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_payments_order').on('order_payments').columns(['order_id']).execute();
  await db.schema.createIndex('order_payments_tenant_time').on('order_payments').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('order_discounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'integer')
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('points', 'integer')
    .addColumn('customer_id', 'text')
    .addColumn('loyalty_transaction_id', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_discounts_order').on('order_discounts').columns(['order_id']).execute();
  await db.schema.createIndex('order_discounts_tenant_time').on('order_discounts').columns(['tenant_id', 'created_at']).execute();

  await db.schema.alterTable('orders').addColumn('discount_cents', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('orders').addColumn('customer_id', 'text').execute();

  await db.schema.alterTable('categories').addColumn('vat_rate', 'integer').execute();
  await db.schema.alterTable('order_items').addColumn('vat_rate', 'integer', (c) => c.notNull().defaultTo(9)).execute();
  // The rate the line's dish has now is the best guess for what it was sold at (products and categories kept their rates).
  await sql`update order_items set vat_rate = coalesce(
      (select p.vat_rate from products p where p.id = order_items.product_id),
      (select c.vat_rate from products p join categories c on c.id = p.category_id where p.id = order_items.product_id),
      9)`.execute(db);

  await db.schema
    .createTable('receipts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('series', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('bill_id', 'text')
    .addColumn('order_id', 'text')
    .addColumn('total_cents', 'integer', (c) => c.notNull())
    .addColumn('paid_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('receipts_gapless').on('receipts').columns(['tenant_id', 'series', 'seq']).unique().execute();
  await db.schema.createIndex('receipts_bill').on('receipts').columns(['tenant_id', 'bill_id']).execute();
  await db.schema.createIndex('receipts_order').on('receipts').columns(['tenant_id', 'order_id']).execute();
}
