import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * Sync trust boundary (issue 17, SECURITY.md).
 *
 * 1. Op ids are unique per restaurant, not across restaurants: a device that pushes an op id another
 *    restaurant already used must get its own answer and have its op applied. So the cloud's
 *    `sync_ops` (dedupe table) is keyed by (tenant_id, op_id), and `change_log` by (op_id,
 *    tenant_id) (op_id first: lookups by op id alone still use the key). Both tables are local-only,
 *    so no peer notices the change of key. PostgreSQL swaps the primary key in place; SQLite cannot,
 *    so it copies the table once (an appliance's log is copied at the upgrade's first start).
 * 2. A per-device push budget (a token bucket, sync/cloud.ts `DEVICE_BUDGET`): `budget_ops` and
 *    `budget_bytes` are the tokens left at `budget_at` (null: a full bucket).
 * 3. Admins carry no PIN (CONTRACT §3: PIN login is for staff): a PIN an admin still has is dropped.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const CHANGE_LOG_COLUMNS = ['op_id', 'tenant_id', 'seq', 'origin', 'entity', 'entity_id', 'kind', 'payload', 'created_at'];
  const SYNC_OPS_COLUMNS = ['op_id', 'tenant_id', 'device_id', 'device_seq', 'server_seq', 'status', 'result', 'created_at'];

  if (sqlite) {
    await db.schema
      .createTable('change_log_0007')
      .addColumn('op_id', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('entity', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('change_log_pk', ['op_id', 'tenant_id'])
      .execute();
    await copyAndSwap(db, 'change_log', 'change_log_0007', CHANGE_LOG_COLUMNS);
    await db.schema.createIndex('change_log_tenant_seq').on('change_log').columns(['tenant_id', 'seq']).unique().execute();

    await db.schema
      .createTable('sync_ops_0007')
      .addColumn('op_id', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('device_seq', 'bigint', (c) => c.notNull())
      .addColumn('server_seq', 'bigint')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('result', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_ops_pk', ['tenant_id', 'op_id'])
      .execute();
    await copyAndSwap(db, 'sync_ops', 'sync_ops_0007', SYNC_OPS_COLUMNS);
    await db.schema.createIndex('sync_ops_device_seq').on('sync_ops').columns(['device_id', 'device_seq']).execute();
  } else {
    await swapPrimaryKey(db, 'change_log', ['op_id', 'tenant_id']);
    await swapPrimaryKey(db, 'sync_ops', ['tenant_id', 'op_id']);
  }

  await db.schema.alterTable('sync_devices').addColumn('budget_ops', 'double precision').execute();
  await db.schema.alterTable('sync_devices').addColumn('budget_bytes', 'double precision').execute();
  await db.schema.alterTable('sync_devices').addColumn('budget_at', 'text').execute();

  await db.updateTable('users').set({ pin_hash: null }).where('role', '=', 'admin').where('pin_hash', 'is not', null).execute();
}

/** SQLite: fill the new table from the old one, drop the old one and give the new one its name. */
async function copyAndSwap(db: Kysely<any>, table: string, fresh: string, columns: string[]): Promise<void> {
  const cols = sql.join(columns.map((c) => sql.ref(c)));
  await sql`insert into ${sql.table(fresh)} (${cols}) select ${cols} from ${sql.table(table)}`.execute(db);
  await db.schema.dropTable(table).execute();
  await db.schema.alterTable(fresh).renameTo(table).execute();
}

/** PostgreSQL: replace the table's primary key (whatever its constraint is called) by one on `columns`. */
async function swapPrimaryKey(db: Kysely<any>, table: string, columns: string[]): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select c.conname as name from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_namespace n on n.oid = t.relnamespace
    where c.contype = 'p' and t.relname = ${table} and n.nspname = current_schema()`.execute(db);
  for (const r of rows) await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(r.name)}`.execute(db);
  await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_pk`)} primary key (${sql.join(columns.map((c) => sql.ref(c)))})`.execute(db);
}
