import { sql, type Kysely } from 'kysely';

/**
 * Food safety (HACCP, issue 10, docs/haccp.md).
 *
 * Configuration (last-writer-wins per field on sync, archived instead of deleted):
 * - `haccp_units`: koelcel, vriezer, ... with their target temperature and readings per day;
 *   `name_key` is the normalised name a temperature log is matched on.
 * - `haccp_checklists`: daily (deadline in the tenant's time zone) or weekly, items as JSON.
 *
 * Records (append-only ledgers, a union on sync): temperature logs, checklist runs, incidents and
 * corrective actions. Each is a link of its origin's hash chain (`origin` = 'cloud' or the
 * appliance's device id, `chain_seq` 1, 2, 3 ... per origin across the four tables, `prev_hash`,
 * `hash` = sha256(prev_hash + RFC 8785 canonical JSON of the record)).
 *
 * The partial index on change_log lists a tenant's HACCP changes without scanning its orders: the
 * export checks every record against the change log it was written with (docs/haccp.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('haccp_units')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('unit_type', 'text', (c) => c.notNull())
    .addColumn('target_max', 'double precision', (c) => c.notNull())
    .addColumn('target_min', 'double precision')
    .addColumn('readings_per_day', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('haccp_units_name').on('haccp_units').columns(['tenant_id', 'name_key']).execute();

  await db.schema
    .createTable('haccp_checklists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('frequency', 'text', (c) => c.notNull())
    .addColumn('deadline', 'text', (c) => c.notNull())
    .addColumn('weekday', 'text')
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .execute();
  await db.schema.createIndex('haccp_checklists_tenant').on('haccp_checklists').columns(['tenant_id', 'name']).execute();

  /** The columns every chained record has. */
  const chained = (name: string) =>
    db.schema
      .createTable(name)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('chain_seq', 'bigint', (c) => c.notNull())
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull());

  await chained('haccp_temperature_logs')
    .addColumn('unit_id', 'text', (c) => c.notNull())
    .addColumn('unit_name', 'text', (c) => c.notNull())
    .addColumn('unit_type', 'text', (c) => c.notNull())
    .addColumn('temperature', 'double precision', (c) => c.notNull())
    .addColumn('target_max', 'double precision', (c) => c.notNull())
    .addColumn('target_min', 'double precision')
    .addColumn('margin', 'double precision', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await chained('haccp_checklist_runs')
    .addColumn('checklist_id', 'text', (c) => c.notNull())
    .addColumn('checklist_name', 'text', (c) => c.notNull())
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('completed_items', 'text', (c) => c.notNull())
    .addColumn('missing_items', 'text', (c) => c.notNull())
    .addColumn('complete', 'integer', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await chained('haccp_incidents')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('unit_id', 'text')
    .addColumn('checklist_id', 'text')
    .addColumn('log_id', 'text')
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await chained('haccp_actions')
    .addColumn('incident_id', 'text', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  for (const t of ['haccp_temperature_logs', 'haccp_checklist_runs', 'haccp_incidents', 'haccp_actions']) {
    await db.schema.createIndex(`${t}_chain`).on(t).columns(['tenant_id', 'origin', 'chain_seq']).unique().execute();
  }
  await db.schema.createIndex('haccp_temperature_logs_day').on('haccp_temperature_logs').columns(['tenant_id', 'business_day', 'unit_id']).execute();
  await db.schema.createIndex('haccp_checklist_runs_day').on('haccp_checklist_runs').columns(['tenant_id', 'business_day', 'checklist_id']).execute();
  await db.schema.createIndex('haccp_incidents_day').on('haccp_incidents').columns(['tenant_id', 'business_day']).execute();
  await db.schema.createIndex('haccp_actions_incident').on('haccp_actions').columns(['incident_id']).execute();

  await db.schema
    .createIndex('change_log_haccp')
    .on('change_log')
    .columns(['tenant_id', 'seq'])
    .where(sql.ref('entity'), 'in', ['haccp_temperature_log', 'haccp_checklist_run', 'haccp_incident', 'haccp_action'])
    .execute();
}
