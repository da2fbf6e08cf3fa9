import { sql } from 'kysely';
import type { Executor } from '../../db/connection.js';
import type { HaccpChecklistsTable, HaccpUnitsTable } from '../../db/database.js';
import { RECORD_ENTITY, RECORD_TABLE, RECORD_TYPES, type ActionRow, type IncidentRow, type LogRow, type RecordType, type RunRow } from './haccp.chain.js';

export type UnitRow = HaccpUnitsTable;
export type ChecklistRow = HaccpChecklistsTable;

/** The four record tables under one name each, for the queries that treat them alike. */
type RecordTable = (typeof RECORD_TABLE)[RecordType];

export const haccpRepository = {
  // ---- units
  findUnit: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('haccp_units').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  unitById: (db: Executor, id: string) => db.selectFrom('haccp_units').selectAll().where('id', '=', id).executeTakeFirst(),
  /** The active unit with this normalised name (the oldest, should sync have brought two). */
  findActiveUnitByKey: (db: Executor, tenantId: string, key: string) =>
    db
      .selectFrom('haccp_units')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('name_key', '=', key)
      .where('archived_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst(),
  listUnits: (db: Executor, tenantId: string, includeArchived: boolean) => {
    let q = db.selectFrom('haccp_units').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('name').orderBy('id').execute();
  },
  insertUnit: (db: Executor, row: UnitRow) => db.insertInto('haccp_units').values(row).execute(),
  updateUnit: (db: Executor, row: UnitRow) => db.updateTable('haccp_units').set(row).where('id', '=', row.id).where('tenant_id', '=', row.tenant_id).execute(),

  // ---- checklists
  findChecklist: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('haccp_checklists').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  listChecklists: (db: Executor, tenantId: string, includeArchived: boolean) => {
    let q = db.selectFrom('haccp_checklists').selectAll().where('tenant_id', '=', tenantId);
    if (!includeArchived) q = q.where('archived_at', 'is', null);
    return q.orderBy('name').orderBy('id').execute();
  },
  insertChecklist: (db: Executor, row: ChecklistRow) => db.insertInto('haccp_checklists').values(row).execute(),
  updateChecklist: (db: Executor, row: ChecklistRow) =>
    db.updateTable('haccp_checklists').set(row).where('id', '=', row.id).where('tenant_id', '=', row.tenant_id).execute(),

  // ---- chained records
  /** The newest record of an origin's chain (position and hash), over the four record tables. */
  chainHead: async (db: Executor, tenantId: string, origin: string): Promise<{ chain_seq: number; hash: string } | undefined> => {
    let best: { chain_seq: number; hash: string } | undefined;
    for (const type of RECORD_TYPES) {
      const row = await db
        .selectFrom(RECORD_TABLE[type] as 'haccp_actions')
        .select(['chain_seq', 'hash'])
        .where('tenant_id', '=', tenantId)
        .where('origin', '=', origin)
        .orderBy('chain_seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (row && (!best || Number(row.chain_seq) > best.chain_seq)) best = { chain_seq: Number(row.chain_seq), hash: row.hash };
    }
    return best;
  },
  insertLog: (db: Executor, row: LogRow) => db.insertInto('haccp_temperature_logs').values(row).execute(),
  insertRun: (db: Executor, row: RunRow) => db.insertInto('haccp_checklist_runs').values(row).execute(),
  insertIncident: (db: Executor, row: IncidentRow) => db.insertInto('haccp_incidents').values(row).execute(),
  insertAction: (db: Executor, row: ActionRow) => db.insertInto('haccp_actions').values(row).execute(),

  findIncident: (db: Executor, tenantId: string, id: string) =>
    db.selectFrom('haccp_incidents').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst(),
  incidentIdsExisting: async (db: Executor, ids: string[]): Promise<Set<string>> =>
    ids.length === 0 ? new Set() : new Set((await db.selectFrom('haccp_incidents').select('id').where('id', 'in', ids).execute()).map((r) => r.id)),

  /** Incidents, newest first; `open`: without any corrective action. */
  listIncidents: (db: Executor, tenantId: string, status: 'open' | 'closed' | undefined, limit: number, offset: number) => {
    let q = db.selectFrom('haccp_incidents as i').selectAll('i').where('i.tenant_id', '=', tenantId);
    if (status === 'open') q = q.where(({ not, exists, selectFrom }) => not(exists(selectFrom('haccp_actions as a').select('a.id').whereRef('a.incident_id', '=', 'i.id'))));
    if (status === 'closed') q = q.where(({ exists, selectFrom }) => exists(selectFrom('haccp_actions as a').select('a.id').whereRef('a.incident_id', '=', 'i.id')));
    return q.orderBy('i.created_at', 'desc').orderBy('i.id', 'desc').limit(limit).offset(offset).execute();
  },
  countIncidents: async (db: Executor, tenantId: string, status: 'open' | 'closed' | undefined) => {
    let q = db.selectFrom('haccp_incidents as i').select((eb) => eb.fn.countAll<number>().as('n')).where('i.tenant_id', '=', tenantId);
    if (status === 'open') q = q.where(({ not, exists, selectFrom }) => not(exists(selectFrom('haccp_actions as a').select('a.id').whereRef('a.incident_id', '=', 'i.id'))));
    if (status === 'closed') q = q.where(({ exists, selectFrom }) => exists(selectFrom('haccp_actions as a').select('a.id').whereRef('a.incident_id', '=', 'i.id')));
    return Number((await q.executeTakeFirstOrThrow()).n);
  },
  incidentsBetween: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('haccp_incidents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  actionsOf: (db: Executor, incidentIds: string[]) =>
    incidentIds.length === 0
      ? Promise.resolve([] as ActionRow[])
      : db.selectFrom('haccp_actions').selectAll().where('incident_id', 'in', incidentIds).orderBy('created_at').orderBy('id').execute(),

  logsBetween: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('haccp_temperature_logs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  runsBetween: (db: Executor, tenantId: string, from: string, to: string) =>
    db
      .selectFrom('haccp_checklist_runs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),

  /** How many readings a unit got on a day. */
  countLogs: async (db: Executor, tenantId: string, unitId: string, day: string) =>
    Number(
      (
        await db
          .selectFrom('haccp_temperature_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('business_day', '=', day)
          .where('unit_id', '=', unitId)
          .executeTakeFirstOrThrow()
      ).n,
    ),
  /** Whether a checklist has a run made by `before` whose day lies in [from, to]. */
  hasRunBy: async (db: Executor, tenantId: string, checklistId: string, from: string, to: string, before: string) =>
    (await db
      .selectFrom('haccp_checklist_runs')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('business_day', '>=', from)
      .where('business_day', '<=', to)
      .where('checklist_id', '=', checklistId)
      .where('created_at', '<=', before)
      .limit(1)
      .executeTakeFirst()) !== undefined,

  /** Every record of every chain of a tenant, for verification. */
  allRecords: async (db: Executor, tenantId: string) => ({
    temperature_log: await db.selectFrom('haccp_temperature_logs').selectAll().where('tenant_id', '=', tenantId).execute(),
    checklist_run: await db.selectFrom('haccp_checklist_runs').selectAll().where('tenant_id', '=', tenantId).execute(),
    incident: await db.selectFrom('haccp_incidents').selectAll().where('tenant_id', '=', tenantId).execute(),
    corrective_action: await db.selectFrom('haccp_actions').selectAll().where('tenant_id', '=', tenantId).execute(),
  }),

  /**
   * The tenant's HACCP record changes in this node's change log (entity, origin and payload). The
   * entity list is written as literals, exactly as the partial index `change_log_haccp` (0010).
   */
  loggedRecords: (db: Executor, tenantId: string) =>
    db
      .selectFrom('change_log')
      .select(['entity', 'entity_id', 'payload'])
      .where('tenant_id', '=', tenantId)
      .where(sql<boolean>`entity in ('haccp_temperature_log', 'haccp_checklist_run', 'haccp_incident', 'haccp_action')`)
      .orderBy('seq')
      .execute(),

  /** Tenants with any unit or checklist: the only ones the overdue job has to look at. */
  scheduledTenants: async (db: Executor): Promise<string[]> => {
    const a = await db.selectFrom('haccp_units').select('tenant_id').where('archived_at', 'is', null).distinct().execute();
    const b = await db.selectFrom('haccp_checklists').select('tenant_id').where('archived_at', 'is', null).distinct().execute();
    return [...new Set([...a, ...b].map((r) => r.tenant_id))].sort();
  },

  /** Whether a record with this chain position exists in the table (sync: never two records at one position). */
  positionTaken: async (db: Executor, table: RecordTable, tenantId: string, origin: string, chainSeq: number, id: string) =>
    (await db
      .selectFrom(table as 'haccp_actions')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('origin', '=', origin)
      .where('chain_seq', '=', chainSeq)
      .where('id', '!=', id)
      .executeTakeFirst()) !== undefined,
};

export const ENTITY_TO_TYPE: Record<string, RecordType> = Object.fromEntries(RECORD_TYPES.map((t) => [RECORD_ENTITY[t].entity, t]));
