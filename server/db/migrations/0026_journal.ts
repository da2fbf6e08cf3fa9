import { sql, type Kysely } from 'kysely';

/**
 * The journal and the day close (issue 25, CONTRACT §19, docs/till.md). Additive only.
 *
 * - `journal_entries`: every payment, discount, void, refund and day close, appended to the hash
 *   chain of the node that made it (`origin`: 'cloud' or the appliance's device id; `chain_seq` 1, 2,
 *   3 ... per origin; `hash` = sha256(prev_hash + RFC 8785 canonical JSON of the entry), as the HACCP
 *   records of 0010). A ledger: never updated, a union on sync. `business_day` is the restaurant's
 *   business day of `at` (the setting `business_day_starts_at` in its time zone) when it was written.
 * - `day_closes`: the Z reports, numbered gapless per restaurant, one per business day, immutable;
 *   `report` is the close's figures (JSON), `covered` the journal position of every origin the close
 *   counted up to (JSON `{origin: chain_seq}`): a sale of a closed day that arrives later lies beyond
 *   it and is reported in the next close as late. `hash` chains the closes (`previous_hash`).
 *
 * The partial index on change_log lists a restaurant's journal changes without scanning its orders:
 * verification checks every entry against the change log it was written with (as HACCP does).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('journal_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('chain_seq', 'bigint', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('bill_id', 'text')
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('tip_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('method', 'text')
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('detail', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('journal_entries_chain').on('journal_entries').columns(['tenant_id', 'origin', 'chain_seq']).unique().execute();
  await db.schema.createIndex('journal_entries_day').on('journal_entries').columns(['tenant_id', 'business_day']).execute();
  await db.schema.createIndex('journal_entries_at').on('journal_entries').columns(['tenant_id', 'at']).execute();

  await db.schema
    .createTable('day_closes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('business_date', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text', (c) => c.notNull())
    .addColumn('closed_by', 'text')
    .addColumn('forced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cash_counted_cents', 'integer', (c) => c.notNull())
    .addColumn('report', 'text', (c) => c.notNull())
    .addColumn('covered', 'text', (c) => c.notNull())
    .addColumn('previous_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('day_closes_number').on('day_closes').columns(['tenant_id', 'number']).unique().execute();
  await db.schema.createIndex('day_closes_date').on('day_closes').columns(['tenant_id', 'business_date']).unique().execute();

  await db.schema
    .createIndex('change_log_journal')
    .on('change_log')
    .columns(['tenant_id', 'seq'])
    .where(sql.ref('entity'), '=', 'journal_entry')
    .execute();
}
