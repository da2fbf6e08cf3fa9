import type { z } from 'zod';
import type { Db, Tx } from '../../db/connection.js';
import { assertTenantRef, parsePayload, upsertById } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type ApplyContext, type EntityDescriptor, type SyncChange, type TableName } from '../../../sync/types.js';
import { actionDto, incidentRecordDto, logDto, RECORD_ENTITY, RECORD_TABLE, runDto, type RecordRow, type RecordType } from './haccp.chain.js';
import { haccpRepository } from './haccp.repository.js';
import { nameKey } from './haccp.rules.js';
import { Action, ChecklistRecord, ChecklistRun, IncidentRecord, TemperatureLog, UnitRecord } from './haccp.schemas.js';
import { toChecklistDto, toIncidentDto, toUnitDto } from './haccp.service.js';

/**
 * How food safety syncs (docs/haccp.md "Sync"):
 *
 * - Units and checklists are configuration: last-writer-wins per field in cloud apply order (an
 *   update carries `fields`), archive is sticky. A unit created on both sides under one new name has
 *   one id (derived from the name): the registration the cloud saw first stays, the other is a
 *   visible conflict when its settings differ.
 * - Logs, runs, incidents and corrective actions are ledgers: inserted as written (every column,
 *   with its origin, chain position and hashes), never updated, a union keyed by id; so each side
 *   ends with every origin's whole chain and verifies it alike. A pushed record is validated like an
 *   API request; it must belong to the chain of the node that pushed it, its references must be rows
 *   of the same restaurant, and its chain position must be free.
 */

type Config = { table: 'haccp_units' | 'haccp_checklists'; key: 'unit' | 'checklist'; schema: z.ZodType<Record<string, unknown> & { id: string; created_at: string; updated_at: string; archived_at: string | null }>; what: string };

function toConfigRow(cfg: Config, rec: Record<string, unknown>, tenantId: string): Record<string, unknown> & { id: string } {
  if (cfg.table === 'haccp_units') return { ...(rec as { id: string }), tenant_id: tenantId, name_key: nameKey(rec.name as string) };
  return { ...(rec as { id: string }), tenant_id: tenantId, items: JSON.stringify(rec.items) };
}
function toConfigDto(cfg: Config, row: Record<string, unknown>): unknown {
  return cfg.table === 'haccp_units' ? toUnitDto(row as never) : toChecklistDto(row as never);
}

function configDescriptor(entity: string, cfg: Config): EntityDescriptor {
  return {
    entity,
    merge: 'lww-fields',
    tables: [cfg.table],
    async apply(trx: Tx, change: SyncChange, ctx: ApplyContext) {
      const p = (change.payload ?? {}) as Record<string, unknown> & { fields?: Record<string, unknown> };
      const rec = parsePayload(cfg.schema, p[cfg.key], cfg.what);
      if (rec.id !== change.entity_id) throw new RejectOp(`Ongeldige wijziging voor ${cfg.what}.`);
      const current = (await trx.selectFrom(cfg.table as 'haccp_units').selectAll().where('id', '=', rec.id).executeTakeFirst()) as Record<string, unknown> | undefined;
      if (current && current.tenant_id !== change.tenant_id) throw new RejectOp(`Dit ${cfg.what} hoort bij een ander restaurant.`);
      const snapshot = toConfigRow(cfg, rec, change.tenant_id);
      let next: Record<string, unknown>;
      let conflict: string | undefined;
      if (!current || ctx.mode === 'adopt') {
        next = snapshot;
      } else if (change.kind.endsWith('_created')) {
        // The same unit registered on both sides (one id, derived from its name): the first the cloud saw stays.
        next = current;
        const differs = ['unit_type', 'target_max', 'target_min', 'readings_per_day', 'name', 'items', 'frequency', 'deadline'].some(
          (k) => k in snapshot && String(snapshot[k]) !== String(current[k]),
        );
        if (differs) conflict = `'${String(current.name)}' is ook elders geregistreerd met andere instellingen; de eerste registratie geldt.`;
      } else {
        const keys = Object.keys(p.fields ?? {}).filter((k) => k in snapshot && k !== 'id' && k !== 'tenant_id' && k !== 'created_at');
        if (keys.includes('name')) keys.push('name_key');
        next = { ...current, ...Object.fromEntries(keys.map((k) => [k, snapshot[k]])), updated_at: snapshot.updated_at };
      }
      if (ctx.mode === 'merge' && current?.archived_at && !next.archived_at) next = { ...next, archived_at: current.archived_at };
      await upsertById(trx, cfg.table, next as { id: string } & Record<string, unknown>);
      return { payload: { [cfg.key]: toConfigDto(cfg, next), ...(p.fields ? { fields: p.fields } : {}) }, ...(conflict ? { conflict } : {}) };
    },
    async snapshot(db: Db, tenantId: string, after: string | null, limit: number) {
      let q = db.selectFrom(cfg.table as 'haccp_units').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = (await q.orderBy('id').limit(limit).execute()) as unknown as Array<Record<string, unknown> & { id: string; updated_at: string }>;
      const changes = rows.map((r) => ({ entity, entity_id: r.id, kind: `haccp.${cfg.key}_updated`, payload: { [cfg.key]: toConfigDto(cfg, r) }, created_at: r.updated_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  };
}

interface LedgerSpec {
  type: RecordType;
  kind: string;
  schema: z.ZodType<{ id: string; origin: string; chain_seq: number; created_at: string }>;
  what: string;
  /** The row as stored, from the validated record. */
  toRow(rec: never, tenantId: string): RecordRow;
  /** The change payload for a stored row (snapshot). */
  toPayload(row: never): Record<string, unknown>;
  /** References to check: table, id, Dutch name. */
  refs(rec: never): Array<[TableName, string | null, string]>;
}

function ledgerDescriptor(spec: LedgerSpec): EntityDescriptor {
  const table = RECORD_TABLE[spec.type];
  const { entity, key } = RECORD_ENTITY[spec.type];
  return {
    entity,
    merge: 'ledger',
    tables: [table],
    async apply(trx: Tx, change: SyncChange, ctx: ApplyContext) {
      const p = (change.payload ?? {}) as Record<string, unknown>;
      const rec = parsePayload(spec.schema, p[key], spec.what);
      if (rec.id !== change.entity_id) throw new RejectOp(`Ongeldige wijziging voor ${spec.what}.`);
      // A node adds only to its own chain: a pushed record claiming another origin's chain is refused.
      // (Adopting the cloud's state, a snapshot row carries no origin of its own: the record says it.)
      if (ctx.mode === 'merge' && rec.origin !== change.origin) throw new RejectOp(`Deze ${spec.what} hoort bij de keten van een ander apparaat.`);
      const existing = await trx.selectFrom(table as 'haccp_actions').select(['id', 'tenant_id']).where('id', '=', rec.id).executeTakeFirst();
      if (existing) {
        if (existing.tenant_id !== change.tenant_id) throw new RejectOp(`Deze ${spec.what} hoort bij een ander restaurant.`);
        return; // already here: a union keyed by id
      }
      if (await haccpRepository.positionTaken(trx, table, change.tenant_id, rec.origin, rec.chain_seq, rec.id)) {
        throw new RejectOp(`Op deze plaats in de keten (nr. ${rec.chain_seq}) staat al een andere ${spec.what}.`);
      }
      for (const [refTable, id, what] of spec.refs(rec as never)) await assertTenantRef(trx, refTable, id, change.tenant_id, what, ctx.batch);
      await trx.insertInto(table as 'haccp_actions').values(spec.toRow(rec as never, change.tenant_id) as never).execute();
    },
    async snapshot(db: Db, tenantId: string, after: string | null, limit: number) {
      let q = db.selectFrom(table as 'haccp_actions').selectAll().where('tenant_id', '=', tenantId);
      if (after !== null) q = q.where('id', '>', after);
      const rows = (await q.orderBy('id').limit(limit).execute()) as unknown as Array<RecordRow & { created_at: string }>;
      const changes = rows.map((r) => ({ entity, entity_id: r.id, kind: spec.kind, payload: spec.toPayload(r as never), created_at: r.created_at }));
      return { changes, next: snapshotNext(changes, limit) };
    },
  };
}

const chainCols = (r: { origin: string; chain_seq: number; prev_hash: string; hash: string }) => ({ origin: r.origin, chain_seq: r.chain_seq, prev_hash: r.prev_hash, hash: r.hash });

export const haccpSync: EntityDescriptor[] = [
  configDescriptor('haccp_unit', { table: 'haccp_units', key: 'unit', schema: UnitRecord as never, what: 'meetpunt' }),
  configDescriptor('haccp_checklist', { table: 'haccp_checklists', key: 'checklist', schema: ChecklistRecord as never, what: 'controlelijst' }),
  ledgerDescriptor({
    type: 'temperature_log',
    kind: 'haccp.temperature_logged',
    schema: TemperatureLog,
    what: 'temperatuurregistratie',
    toRow: (r: TemperatureLog, tenantId) => ({ ...r, tenant_id: tenantId, ...chainCols(r) }),
    toPayload: (row: Parameters<typeof logDto>[0]) => ({ log: logDto(row) }),
    refs: (r: TemperatureLog) => [
      ['haccp_units', r.unit_id, 'Het meetpunt'],
      ['users', r.user_id, 'De medewerker'],
    ],
  }),
  ledgerDescriptor({
    type: 'checklist_run',
    kind: 'haccp.checklist_run',
    schema: ChecklistRun,
    what: 'uitgevoerde controlelijst',
    toRow: (r: ChecklistRun, tenantId) => ({
      ...r,
      tenant_id: tenantId,
      items: JSON.stringify(r.items),
      completed_items: JSON.stringify(r.completed_items),
      missing_items: JSON.stringify(r.missing_items),
      complete: r.complete ? 1 : 0,
    }),
    toPayload: (row: Parameters<typeof runDto>[0]) => ({ run: runDto(row) }),
    refs: (r: ChecklistRun) => [
      ['haccp_checklists', r.checklist_id, 'De controlelijst'],
      ['users', r.user_id, 'De medewerker'],
    ],
  }),
  ledgerDescriptor({
    type: 'incident',
    kind: 'haccp.incident',
    schema: IncidentRecord,
    what: 'incident',
    toRow: (r: ReturnType<typeof incidentRecordDto>, tenantId) => ({ ...r, tenant_id: tenantId }),
    toPayload: (row: Parameters<typeof incidentRecordDto>[0]) => ({ incident: toIncidentDto(row, []) }),
    refs: (r: ReturnType<typeof incidentRecordDto>) => [
      ['haccp_units', r.unit_id, 'Het meetpunt'],
      ['haccp_checklists', r.checklist_id, 'De controlelijst'],
      ['haccp_temperature_logs', r.log_id, 'De temperatuurregistratie'],
    ],
  }),
  ledgerDescriptor({
    type: 'corrective_action',
    kind: 'haccp.corrective_action',
    schema: Action,
    what: 'correctieve maatregel',
    toRow: (r: ReturnType<typeof actionDto>, tenantId) => ({ ...r, tenant_id: tenantId }),
    toPayload: (row: Parameters<typeof actionDto>[0]) => ({ action: actionDto(row) }),
    refs: (r: ReturnType<typeof actionDto>) => [
      ['haccp_incidents', r.incident_id, 'Het incident'],
      ['users', r.user_id, 'De medewerker'],
    ],
  }),
];
