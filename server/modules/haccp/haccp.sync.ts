import type { z } from 'zod';
import { insertRows } from '../../db/bulk.js';
import { ROWS_PER_INSERT, type Db, type Tx } from '../../db/connection.js';
import { sql } from 'kysely';
import { assertTenantRef, parsePayload } from '../../../sync/apply-helpers.js';
import { chunks, defineBatchStore, selectUnion, type BatchScope, type UnionPart } from '../../../sync/batch-store.js';
import { RejectOp, snapshotNext, type ApplyContext, type BatchState, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
import { actionDto, incidentRecordDto, logDto, RECORD_ENTITY, RECORD_TABLE, RECORD_TYPES, runDto, type RecordRow, type RecordType } from './haccp.chain.js';
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
      const store = await haccpStore.of(trx, ctx, change.tenant_id);
      const current = await store.config(cfg.table, rec.id);
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
      // Written at once (a record later in the batch may refer to it); we know whether the row is there.
      const { id, ...rest } = next as { id: string } & Record<string, unknown>;
      if (!current) await trx.insertInto(cfg.table as 'haccp_units').values(next as never).execute();
      else if (Object.keys(rest).length > 0) await trx.updateTable(cfg.table as 'haccp_units').set(rest as never).where('id', '=', id).execute();
      store.wroteConfig(cfg.table, { ...(current ?? {}), ...next } as ConfigRow);
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

type LedgerTable = (typeof RECORD_TABLE)[RecordType];
type ConfigTable = Config['table'];
type ConfigRow = Record<string, unknown> & { id: string; tenant_id: string };
/** The tables a record may refer to. */
type RefTable = LedgerTable | ConfigTable | 'users';

const LEDGER_TABLES = RECORD_TYPES.map((t) => RECORD_TABLE[t]);
const CONFIG_ENTITY: Record<string, ConfigTable> = { haccp_unit: 'haccp_units', haccp_checklist: 'haccp_checklists' };
const LEDGER_ENTITY: Record<string, RecordType> = Object.fromEntries(RECORD_TYPES.map((t) => [RECORD_ENTITY[t].entity, t]));
/** What each record type refers to: payload field → table. */
const REF_FIELDS: Record<RecordType, Array<[string, RefTable]>> = {
  temperature_log: [['unit_id', 'haccp_units'], ['user_id', 'users']],
  checklist_run: [['checklist_id', 'haccp_checklists'], ['user_id', 'users']],
  incident: [['unit_id', 'haccp_units'], ['checklist_id', 'haccp_checklists'], ['log_id', 'haccp_temperature_logs']],
  corrective_action: [['incident_id', 'haccp_incidents'], ['user_id', 'users']],
};

const key = (...parts: Array<string | number>) => parts.join('\u0000');
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Where `apply` reads and writes food-safety rows: at once (no batch), or through the batch's `HaccpBatch`. */
interface HaccpStore {
  /** A unit or checklist row as it is now. */
  config(table: ConfigTable, id: string): Promise<ConfigRow | undefined>;
  /** A unit or checklist row `apply` has just written (at once). */
  wroteConfig(table: ConfigTable, row: ConfigRow): void;
  /** The tenant of the record with this id, if there is one. */
  record(table: LedgerTable, id: string): Promise<string | undefined>;
  /** `haccpRepository.positionTaken` (with the batch's pending records). */
  positionTaken(table: LedgerTable, origin: string, chainSeq: number, id: string): Promise<boolean>;
  /** `assertTenantRef` of the store's tenant. */
  assertRef(table: RefTable, id: string | null, what: string): Promise<void>;
  /** A new record (its id and chain position checked free). */
  insert(table: LedgerTable, row: RecordRow): Promise<void>;
}

const directStore = (trx: Tx, tenantId: string): HaccpStore => ({
  config: async (table, id) => (await trx.selectFrom(table as 'haccp_units').selectAll().where('id', '=', id).executeTakeFirst()) as ConfigRow | undefined,
  wroteConfig: () => {},
  record: async (table, id) => (await trx.selectFrom(table as 'haccp_actions').select(['id', 'tenant_id']).where('id', '=', id).executeTakeFirst())?.tenant_id,
  positionTaken: (table, origin, chainSeq, id) => haccpRepository.positionTaken(trx, table, tenantId, origin, chainSeq, id),
  assertRef: (table, id, what) => assertTenantRef(trx, table, id, tenantId, what),
  insert: async (table, row) => void (await trx.insertInto(table as 'haccp_actions').values(row as never).execute()),
});

/**
 * A batch's food-safety records (ApplyContext.batch: the cloud's push chunk, an appliance's pull
 * page). At first use it reads, in one statement for all four record tables, what the batch's
 * records will be checked against: the rows with their ids, the rows at their chain positions, and
 * the units, checklists, staff, logs and incidents they refer to. The records it accepts are kept
 * here (a later record of the batch sees them: an incident's log, an action's incident, a taken
 * position) and inserted together, a few statements per table, before the batch commits. Units and
 * checklists are written at once (rare; a record later in the batch may name a new unit), their rows
 * read once per batch.
 */
class HaccpBatch implements HaccpStore, BatchState {
  /** table\0id → tenant of rows found in the database or written by this batch. */
  private readonly rows = new Map<string, string>();
  /** table\0id asked for at the start: absent from `rows` means not in the database then. */
  private readonly asked = new Set<string>();
  /** table\0origin\0seq → id of the record at that chain position (this tenant's), found or pending. */
  private readonly positions = new Map<string, string>();
  /** Per record table, the origins and positions whose records the start read (their cross product). */
  private readonly coveredOrigins = new Map<LedgerTable, Set<string>>();
  private readonly coveredSeqs = new Map<LedgerTable, Set<number>>();
  /** Records to insert at the flush, per table in apply order. */
  private readonly pending = new Map<LedgerTable, RecordRow[]>();
  /** Unit and checklist rows as they are now (read once, then as written); null: not there. */
  private readonly configs = new Map<string, ConfigRow | null>();

  private readonly trx: Tx;
  private readonly tenantId: string;
  constructor(private readonly scope: BatchScope) {
    this.trx = scope.trx;
    this.tenantId = scope.tenantId;
  }

  /** Once, at first use: one statement (more for a very large batch) for everything the batch's records are checked against. */
  async prefetch(): Promise<void> {
    const { trx } = this;
    const { changes } = this.scope;
    const ids = new Map<RefTable, Set<string>>();
    const want = (table: RefTable, id: string | undefined) => {
      if (!id) return;
      let set = ids.get(table);
      if (!set) ids.set(table, (set = new Set()));
      set.add(id);
    };
    const configIds = new Map<ConfigTable, Set<string>>();
    for (const c of changes) {
      if (c.tenant_id !== this.tenantId || !c.payload || typeof c.payload !== 'object') continue;
      const cfgTable = CONFIG_ENTITY[c.entity];
      if (cfgTable) {
        let set = configIds.get(cfgTable);
        if (!set) configIds.set(cfgTable, (set = new Set()));
        set.add(c.entity_id);
        continue;
      }
      const type = LEDGER_ENTITY[c.entity];
      if (!type) continue;
      const rec = (c.payload as Record<string, unknown>)[RECORD_ENTITY[type].key] as Record<string, unknown> | undefined;
      if (!rec || typeof rec !== 'object') continue;
      const table = RECORD_TABLE[type];
      want(table, str(rec.id));
      if (typeof rec.origin === 'string' && typeof rec.chain_seq === 'number' && Number.isSafeInteger(rec.chain_seq)) {
        let o = this.coveredOrigins.get(table);
        if (!o) this.coveredOrigins.set(table, (o = new Set()));
        o.add(rec.origin);
        let s = this.coveredSeqs.get(table);
        if (!s) this.coveredSeqs.set(table, (s = new Set()));
        s.add(rec.chain_seq);
      }
      for (const [field, refTable] of REF_FIELDS[type]) want(refTable, str(rec[field]));
    }
    // A query per table, all in one UNION ALL: (table, id, tenant, origin, position).
    const parts: UnionPart[] = [];
    for (const [table, set] of ids) {
      for (const id of set) this.asked.add(key(table, id));
      const ledger = (LEDGER_TABLES as string[]).includes(table);
      let or: UnionPart['or'];
      if (ledger) {
        const t = table as LedgerTable;
        const origins = [...(this.coveredOrigins.get(t) ?? [])];
        const seqs = [...(this.coveredSeqs.get(t) ?? [])];
        if (origins.length > ROWS_PER_INSERT || seqs.length > ROWS_PER_INSERT) {
          // A very large batch: its positions are looked up per record instead.
          this.coveredOrigins.delete(t);
          this.coveredSeqs.delete(t);
        } else if (origins.length && seqs.length) {
          or = { where: sql`tenant_id = ${this.tenantId} and origin in (${sql.join(origins)}) and chain_seq in (${sql.join(seqs)})`, params: origins.length + seqs.length + 1 };
        }
      }
      const columns = ledger ? sql`tenant_id, origin, chain_seq` : sql`tenant_id, cast(null as text) as origin, cast(null as bigint) as chain_seq`;
      parts.push({ table, ids: set, columns, ...(or ? { or } : {}) });
    }
    for (const r of await selectUnion<{ tenant_id: string; origin: string | null; chain_seq: number | string | null }>(trx, parts)) {
      this.rows.set(key(r.t, r.id), r.tenant_id);
      if (r.origin !== null && r.chain_seq !== null && r.tenant_id === this.tenantId) this.positions.set(key(r.t, r.origin, Number(r.chain_seq)), r.id);
    }
    // Units and checklists the batch changes: their whole rows, read once.
    for (const [table, set] of configIds) {
      const list = [...set];
      for (const slice of chunks(list)) {
        const found = (await trx.selectFrom(table as 'haccp_units').selectAll().where('id', 'in', slice).execute()) as unknown as ConfigRow[];
        for (const id of slice) this.configs.set(key(table, id), null);
        for (const r of found) this.configs.set(key(table, r.id), r);
      }
    }
  }

  /** A unit or checklist row as it is now. */
  async config(table: ConfigTable, id: string): Promise<ConfigRow | undefined> {
    const k = key(table, id);
    if (!this.configs.has(k)) this.configs.set(k, (await directStore(this.trx, this.tenantId).config(table, id)) ?? null);
    return this.configs.get(k) ?? undefined;
  }

  wroteConfig(table: ConfigTable, row: ConfigRow): void {
    this.configs.set(key(table, row.id), row);
    this.rows.set(key(table, row.id), row.tenant_id);
  }

  /** The tenant of the record with this id, if there is one (in the database or pending). */
  async record(table: LedgerTable, id: string): Promise<string | undefined> {
    const k = key(table, id);
    if (this.rows.has(k)) return this.rows.get(k);
    if (this.asked.has(k)) return undefined;
    const tenant = await directStore(this.trx, this.tenantId).record(table, id);
    this.asked.add(k);
    if (tenant !== undefined) this.rows.set(k, tenant);
    return tenant;
  }

  /** `haccpRepository.positionTaken` over the database and this batch's pending records. */
  async positionTaken(table: LedgerTable, origin: string, chainSeq: number, id: string): Promise<boolean> {
    const at = this.positions.get(key(table, origin, chainSeq));
    if (at !== undefined) return at !== id;
    if (this.coveredOrigins.get(table)?.has(origin) && this.coveredSeqs.get(table)?.has(chainSeq)) return false;
    return haccpRepository.positionTaken(this.trx, table, this.tenantId, origin, chainSeq, id);
  }

  /** `assertTenantRef`, answered from what the batch read or wrote where it can. */
  async assertRef(table: RefTable, id: string | null, what: string): Promise<void> {
    if (id === null) return;
    if (this.rows.get(key(table, id)) === this.tenantId) return;
    // Not known to be ours: made after the batch's start by another entity (a user), or not the tenant's.
    await assertTenantRef(this.trx, table, id, this.tenantId, what, this.scope.batch);
    this.rows.set(key(table, id), this.tenantId);
  }

  async insert(table: LedgerTable, row: RecordRow): Promise<void> {
    let list = this.pending.get(table);
    if (!list) this.pending.set(table, (list = []));
    list.push(row);
    this.rows.set(key(table, row.id), this.tenantId);
    this.asked.add(key(table, row.id));
    this.positions.set(key(table, row.origin, Number(row.chain_seq)), row.id);
  }

  async flush(trx: Tx): Promise<void> {
    for (const table of LEDGER_TABLES) {
      const rows = this.pending.get(table) ?? [];
      await insertRows(trx, table as 'haccp_actions', rows as unknown as Array<Record<string, unknown>>);
    }
    this.pending.clear();
  }
}

const haccpStore = defineBatchStore<HaccpStore, HaccpBatch>({
  key: 'haccp',
  direct: (trx, _ctx, tenantId) => directStore(trx, tenantId),
  create: (scope) => new HaccpBatch(scope),
  prefetch: (b) => b.prefetch(),
});

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
  refs(rec: never): Array<[RefTable, string | null, string]>;
}

function ledgerDescriptor(spec: LedgerSpec): EntityDescriptor {
  const table = RECORD_TABLE[spec.type];
  const { entity, key: payloadKey } = RECORD_ENTITY[spec.type];
  return {
    entity,
    merge: 'ledger',
    // Append-only records: an echo the cloud kept as sent changes nothing here.
    echo: 'skip-equal',
    tables: [table],
    async apply(trx: Tx, change: SyncChange, ctx: ApplyContext) {
      const p = (change.payload ?? {}) as Record<string, unknown>;
      const rec = parsePayload(spec.schema, p[payloadKey], spec.what, ctx);
      if (rec.id !== change.entity_id) throw new RejectOp(`Ongeldige wijziging voor ${spec.what}.`);
      // A node adds only to its own chain: a pushed record claiming another origin's chain is refused.
      // (Adopting the cloud's state, a snapshot row carries no origin of its own: the record says it.)
      if (ctx.mode === 'merge' && rec.origin !== change.origin) throw new RejectOp(`Deze ${spec.what} hoort bij de keten van een ander apparaat.`);
      const store = await haccpStore.of(trx, ctx, change.tenant_id);
      const existing = await store.record(table, rec.id);
      if (existing !== undefined) {
        if (existing !== change.tenant_id) throw new RejectOp(`Deze ${spec.what} hoort bij een ander restaurant.`);
        return; // already here: a union keyed by id
      }
      const taken = await store.positionTaken(table, rec.origin, rec.chain_seq, rec.id);
      if (taken) throw new RejectOp(`Op deze plaats in de keten (nr. ${rec.chain_seq}) staat al een andere ${spec.what}.`);
      for (const [refTable, id, what] of spec.refs(rec as never)) await store.assertRef(refTable, id, what);
      await store.insert(table, spec.toRow(rec as never, change.tenant_id));
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
