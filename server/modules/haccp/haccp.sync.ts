import type { z } from 'zod';
import type { Db, Tx } from '../../db/connection.js';
import { sql } from 'kysely';
import { assertTenantRef, parsePayload } from '../../../sync/apply-helpers.js';
import { RejectOp, snapshotNext, type ApplyBatch, type ApplyContext, type BatchState, type EntityDescriptor, type SyncChange } from '../../../sync/types.js';
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
      const b = await haccpBatch(trx, ctx, change);
      const current = b ? await b.config(trx, cfg.table, rec.id) : ((await trx.selectFrom(cfg.table as 'haccp_units').selectAll().where('id', '=', rec.id).executeTakeFirst()) as Record<string, unknown> | undefined);
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
      b?.wroteConfig(cfg.table, { ...(current ?? {}), ...next } as ConfigRow);
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
class HaccpBatch implements BatchState {
  ready: Promise<void> = Promise.resolve();
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

  constructor(readonly tenantId: string) {}

  /** Once, at first use: one statement (more for a very large batch) for everything the batch's records are checked against. */
  async prefetch(trx: Tx, changes: ReadonlyArray<SyncChange>): Promise<void> {
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
    const parts: Array<{ table: RefTable; ids: string[]; origins: string[]; seqs: number[] }> = [];
    for (const [table, set] of ids) {
      const all = [...set];
      for (const id of all) this.asked.add(key(table, id));
      let origins: string[] = [];
      let seqs: number[] = [];
      if ((LEDGER_TABLES as string[]).includes(table)) {
        const t = table as LedgerTable;
        origins = [...(this.coveredOrigins.get(t) ?? [])];
        seqs = [...(this.coveredSeqs.get(t) ?? [])];
        if (origins.length > PART_IDS || seqs.length > PART_IDS) {
          // A very large batch: its positions are looked up per record instead.
          this.coveredOrigins.delete(t);
          this.coveredSeqs.delete(t);
          origins = seqs = [];
        }
      }
      for (let i = 0; i < all.length; i += PART_IDS) parts.push({ table, ids: all.slice(i, i + PART_IDS), origins: i === 0 ? origins : [], seqs: i === 0 ? seqs : [] });
    }
    for (let i = 0; i < parts.length; ) {
      // Statements of at most ~2,000 parameters (SQLite and PostgreSQL both take far more).
      const group: typeof parts = [];
      let params = 0;
      while (i < parts.length && (group.length === 0 || params + parts[i]!.ids.length + parts[i]!.origins.length + parts[i]!.seqs.length <= 2000)) {
        params += parts[i]!.ids.length + parts[i]!.origins.length + parts[i]!.seqs.length + 1;
        group.push(parts[i++]!);
      }
      const selects = group.map(({ table, ids: list, origins, seqs }) => {
        const ledger = (LEDGER_TABLES as string[]).includes(table);
        const byId = sql`id in (${sql.join(list)})`;
        const where = origins.length && seqs.length ? sql`${byId} or (tenant_id = ${this.tenantId} and origin in (${sql.join(origins)}) and chain_seq in (${sql.join(seqs)}))` : byId;
        const chain = ledger ? sql`origin, chain_seq` : sql`cast(null as text) as origin, cast(null as bigint) as chain_seq`;
        return sql`select ${sql.lit(table)} as t, id, tenant_id, ${chain} from ${sql.table(table)} where ${where}`;
      });
      const found = await sql<{ t: RefTable; id: string; tenant_id: string; origin: string | null; chain_seq: number | string | null }>`${sql.join(selects, sql` union all `)}`.execute(trx);
      for (const r of found.rows) {
        this.rows.set(key(r.t, r.id), r.tenant_id);
        if (r.origin !== null && r.chain_seq !== null && r.tenant_id === this.tenantId) this.positions.set(key(r.t, r.origin, Number(r.chain_seq)), r.id);
      }
    }
    // Units and checklists the batch changes: their whole rows, read once.
    for (const [table, set] of configIds) {
      const list = [...set];
      for (let i = 0; i < list.length; i += PART_IDS) {
        const slice = list.slice(i, i + PART_IDS);
        const found = (await trx.selectFrom(table as 'haccp_units').selectAll().where('id', 'in', slice).execute()) as unknown as ConfigRow[];
        for (const id of slice) this.configs.set(key(table, id), null);
        for (const r of found) this.configs.set(key(table, r.id), r);
      }
    }
  }

  /** A unit or checklist row as it is now. */
  async config(trx: Tx, table: ConfigTable, id: string): Promise<ConfigRow | undefined> {
    const k = key(table, id);
    if (!this.configs.has(k)) this.configs.set(k, ((await trx.selectFrom(table as 'haccp_units').selectAll().where('id', '=', id).executeTakeFirst()) as ConfigRow | undefined) ?? null);
    return this.configs.get(k) ?? undefined;
  }

  wroteConfig(table: ConfigTable, row: ConfigRow): void {
    this.configs.set(key(table, row.id), row);
    this.rows.set(key(table, row.id), row.tenant_id);
  }

  /** The tenant of the record with this id, if there is one (in the database or pending). */
  async record(trx: Tx, table: LedgerTable, id: string): Promise<string | undefined> {
    const k = key(table, id);
    if (this.rows.has(k)) return this.rows.get(k);
    if (this.asked.has(k)) return undefined;
    const row = await trx.selectFrom(table as 'haccp_actions').select(['id', 'tenant_id']).where('id', '=', id).executeTakeFirst();
    this.asked.add(k);
    if (row) this.rows.set(k, row.tenant_id);
    return row?.tenant_id;
  }

  /** `haccpRepository.positionTaken` over the database and this batch's pending records. */
  async positionTaken(trx: Tx, table: LedgerTable, origin: string, chainSeq: number, id: string): Promise<boolean> {
    const at = this.positions.get(key(table, origin, chainSeq));
    if (at !== undefined) return at !== id;
    if (this.coveredOrigins.get(table)?.has(origin) && this.coveredSeqs.get(table)?.has(chainSeq)) return false;
    return haccpRepository.positionTaken(trx, table, this.tenantId, origin, chainSeq, id);
  }

  /** `assertTenantRef`, answered from what the batch read or wrote where it can. */
  async assertRef(trx: Tx, table: RefTable, id: string | null, what: string, batch: ApplyBatch): Promise<void> {
    if (id === null) return;
    if (this.rows.get(key(table, id)) === this.tenantId) return;
    // Not known to be ours: made after the batch's start by another entity (a user), or not the tenant's.
    await assertTenantRef(trx, table, id, this.tenantId, what, batch);
    this.rows.set(key(table, id), this.tenantId);
  }

  insert(table: LedgerTable, row: RecordRow): void {
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
      for (let i = 0; i < rows.length; i += 50) await trx.insertInto(table as 'haccp_actions').values(rows.slice(i, i + 50) as never).execute();
    }
    this.pending.clear();
  }
}

/** Ids per table in one part of the prefetch. */
const PART_IDS = 500;

/** The batch's HACCP state (prefetched at first use), or undefined outside a batch or for another tenant's change. */
async function haccpBatch(trx: Tx, ctx: ApplyContext, change: SyncChange): Promise<HaccpBatch | undefined> {
  const batch = ctx.batch;
  if (!batch || change.tenant_id !== ctx.tenantId) return undefined;
  let fresh = false;
  const b = batch.state('haccp', () => ((fresh = true), new HaccpBatch(ctx.tenantId)));
  if (fresh) b.ready = b.prefetch(trx, batch.changes);
  await b.ready;
  return b;
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
      const rec = parsePayload(spec.schema, p[payloadKey], spec.what);
      if (rec.id !== change.entity_id) throw new RejectOp(`Ongeldige wijziging voor ${spec.what}.`);
      // A node adds only to its own chain: a pushed record claiming another origin's chain is refused.
      // (Adopting the cloud's state, a snapshot row carries no origin of its own: the record says it.)
      if (ctx.mode === 'merge' && rec.origin !== change.origin) throw new RejectOp(`Deze ${spec.what} hoort bij de keten van een ander apparaat.`);
      const b = await haccpBatch(trx, ctx, change);
      const existing = b
        ? await b.record(trx, table, rec.id)
        : (await trx.selectFrom(table as 'haccp_actions').select(['id', 'tenant_id']).where('id', '=', rec.id).executeTakeFirst())?.tenant_id;
      if (existing !== undefined) {
        if (existing !== change.tenant_id) throw new RejectOp(`Deze ${spec.what} hoort bij een ander restaurant.`);
        return; // already here: a union keyed by id
      }
      const taken = b ? await b.positionTaken(trx, table, rec.origin, rec.chain_seq, rec.id) : await haccpRepository.positionTaken(trx, table, change.tenant_id, rec.origin, rec.chain_seq, rec.id);
      if (taken) throw new RejectOp(`Op deze plaats in de keten (nr. ${rec.chain_seq}) staat al een andere ${spec.what}.`);
      for (const [refTable, id, what] of spec.refs(rec as never)) {
        if (b) await b.assertRef(trx, refTable, id, what, ctx.batch!);
        else await assertTenantRef(trx, refTable, id, change.tenant_id, what);
      }
      const row = spec.toRow(rec as never, change.tenant_id);
      if (b) b.insert(table, row);
      else await trx.insertInto(table as 'haccp_actions').values(row as never).execute();
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
