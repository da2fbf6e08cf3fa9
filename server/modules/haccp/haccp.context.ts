import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import type { Clock } from '../../shared/clock.js';
import type { Weekday } from '../../shared/zoned-time.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import type { UsersService } from '../users/users.service.js';
import { actionDto, GENESIS, hashRecord, incidentRecordDto, recordDto, type ActionRow, type IncidentRow, type LogRow, type RecordRow, type RecordType, type RunRow } from './haccp.chain.js';
import { haccpRepository as repo, type ChecklistRow, type UnitRow } from './haccp.repository.js';
import type { Checklist, Incident, Unit } from './haccp.schemas.js';

/**
 * What every part of the food-safety service shares (haccp.service.ts composes the parts): its
 * dependencies, the row → DTO mappers, the change-log entries of configuration, and `append`, the
 * one way a record joins this node's hash chain.
 */

export interface HaccpDeps {
  db: Db;
  changes: ChangeLog;
  clock: Clock;
  tenants: TenantsService;
  users: UsersService;
  /**
   * Cloud only: whether a restaurant has an appliance. The overdue job then leaves it to the
   * appliance (the restaurant's own node; docs/haccp.md), so one node records each overdue incident.
   */
  hasAppliance?: (tenantId: string) => Promise<boolean>;
}

export interface HaccpActor {
  tenantId: string;
  userId: string | null;
}

export const toUnitDto = (r: UnitRow): Unit => ({
  id: r.id,
  name: r.name,
  unit_type: r.unit_type as Unit['unit_type'],
  target_max: Number(r.target_max),
  target_min: r.target_min === null ? null : Number(r.target_min),
  readings_per_day: Number(r.readings_per_day),
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});

export const toChecklistDto = (r: ChecklistRow): Checklist => ({
  id: r.id,
  name: r.name,
  frequency: r.frequency,
  deadline: r.deadline,
  weekday: (r.weekday as Weekday | null) ?? null,
  items: JSON.parse(r.items) as Checklist['items'],
  created_at: r.created_at,
  updated_at: r.updated_at,
  archived_at: r.archived_at,
});

export const toIncidentDto = (r: IncidentRow, actions: ActionRow[]): Incident => ({
  ...incidentRecordDto(r),
  open: actions.length === 0,
  actions: actions.map(actionDto),
});

// Change-log payloads: units and checklists carry the whole row (and `fields` on an update: what the
// writer changed, merged last-writer-wins per field); records carry the record with its hashes.
export const unitChange = (row: UnitRow, kind: string, fields?: Record<string, unknown>) => ({
  entity: 'haccp_unit',
  entityId: row.id,
  kind,
  payload: { unit: toUnitDto(row), ...(fields ? { fields } : {}) },
});
export const checklistChange = (row: ChecklistRow, kind: string, fields?: Record<string, unknown>) => ({
  entity: 'haccp_checklist',
  entityId: row.id,
  kind,
  payload: { checklist: toChecklistDto(row), ...(fields ? { fields } : {}) },
});

/** Appends a record to this node's chain: position and prev_hash from the chain's head, then its hash. */
export async function append<R extends RecordRow>(
  ctx: Pick<HaccpDeps, 'changes'>,
  w: Writer,
  tenantId: string,
  type: RecordType,
  build: (link: { origin: string; chain_seq: number; prev_hash: string; hash: string }) => R,
): Promise<R> {
  const origin = ctx.changes.origin;
  const head = await repo.chainHead(w.trx, tenantId, origin);
  const row = build({ origin, chain_seq: (head?.chain_seq ?? 0) + 1, prev_hash: head?.hash ?? GENESIS, hash: '' });
  row.hash = hashRecord(type, tenantId, recordDto(type, row));
  switch (type) {
    case 'temperature_log':
      await repo.insertLog(w.trx, row as LogRow);
      break;
    case 'checklist_run':
      await repo.insertRun(w.trx, row as RunRow);
      break;
    case 'incident':
      await repo.insertIncident(w.trx, row as IncidentRow);
      break;
    case 'corrective_action':
      await repo.insertAction(w.trx, row as ActionRow);
      break;
  }
  return row;
}
