import type { ChangeLog, Writer } from '../../db/change-log.js';
import type { Db } from '../../db/connection.js';
import { AppError, conflict, invalidField, notFound } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { TenantsService } from '../tenants/tenants.service.js';
import type { UsersService } from '../users/users.service.js';
import {
  actionDto,
  GENESIS,
  hashRecord,
  incidentRecordDto,
  logDto,
  RECORD_ENTITY,
  RECORD_TYPES,
  recordDto,
  runDto,
  verifyChains,
  type ActionRow,
  type ChainedRecord,
  type IncidentRow,
  type LoggedRecord,
  type LogRow,
  type RecordRow,
  type RecordType,
  type RunRow,
} from './haccp.chain.js';
import { ENTITY_TO_TYPE, haccpRepository as repo, type ChecklistRow, type UnitRow } from './haccp.repository.js';
import {
  addDays,
  businessDay,
  checklistDeadline,
  daysBetween,
  derivedId,
  nameKey,
  nl,
  openOn,
  runCovers,
  temperatureStatus,
  unitDue,
  weekStart,
  type Weekday,
} from './haccp.rules.js';
import type {
  Action,
  Checklist,
  ChecklistRun,
  CreateChecklistInput,
  CreateUnitInput,
  Export,
  Incident,
  Integrity,
  LogTemperatureInput,
  RunChecklistInput,
  TemperatureLog,
  Unit,
  UpdateChecklistInput,
  UpdateUnitInput,
} from './haccp.schemas.js';

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

/** How many days back the overdue job looks (a node that was off for a day still records yesterday's gaps). */
export const OVERDUE_LOOKBACK_DAYS = 2;

const unitNotFound = () => notFound('Meetpunt');
const checklistNotFound = () => notFound('Controlelijst');
const nameTaken = (name: string) => conflict(`Er is al een meetpunt met de naam '${name}'.`);

// Change-log payloads: units and checklists carry the whole row (and `fields` on an update: what the
// writer changed, merged last-writer-wins per field); records carry the record with its hashes.
const unitChange = (row: UnitRow, kind: string, fields?: Record<string, unknown>) => ({
  entity: 'haccp_unit',
  entityId: row.id,
  kind,
  payload: { unit: toUnitDto(row), ...(fields ? { fields } : {}) },
});
const checklistChange = (row: ChecklistRow, kind: string, fields?: Record<string, unknown>) => ({
  entity: 'haccp_checklist',
  entityId: row.id,
  kind,
  payload: { checklist: toChecklistDto(row), ...(fields ? { fields } : {}) },
});

export function createHaccpService(deps: {
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
}) {
  const { db, changes, clock, tenants, users } = deps;

  /** Appends a record to this node's chain: position and prev_hash from the chain's head, then its hash. */
  async function append<R extends RecordRow>(w: Writer, tenantId: string, type: RecordType, build: (link: { origin: string; chain_seq: number; prev_hash: string; hash: string }) => R): Promise<R> {
    const head = await repo.chainHead(w.trx, tenantId, changes.origin);
    const row = build({ origin: changes.origin, chain_seq: (head?.chain_seq ?? 0) + 1, prev_hash: head?.hash ?? GENESIS, hash: '' });
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

  /** A new incident in this node's chain and the `haccp.incident` event (webhook, socket alert). */
  async function openIncident(w: Writer, tenantId: string, id: string, fields: Pick<IncidentRow, 'kind' | 'unit_id' | 'checklist_id' | 'log_id' | 'business_day' | 'description'>, log?: TemperatureLog): Promise<IncidentRow> {
    const row = await append<IncidentRow>(w, tenantId, 'incident', (link) => ({ id, tenant_id: tenantId, ...link, ...fields, created_at: w.now }));
    await w.record({ entity: 'haccp_incident', entityId: id, kind: 'haccp.incident', payload: { incident: toIncidentDto(row, []), ...(log ? { log } : {}) } });
    return row;
  }

  /** An id for a new unit of this name: derived from the name, so the same new name on two sides makes one unit. */
  async function unitIdFor(trx: Writer['trx'], tenantId: string, key: string): Promise<string> {
    const derived = derivedId(tenantId, 'haccp-unit', key);
    // Taken by a unit since renamed or archived: that one keeps it, this one gets its own.
    return (await repo.unitById(trx, derived)) ? newId() : derived;
  }

  async function incidentDtos(rows: IncidentRow[]): Promise<Incident[]> {
    const actions = await repo.actionsOf(db, rows.map((r) => r.id));
    return rows.map((r) => toIncidentDto(r, actions.filter((a) => a.incident_id === r.id)));
  }

  async function getIncident(tenantId: string, id: string): Promise<Incident> {
    const row = await repo.findIncident(db, tenantId, id);
    if (!row) throw notFound('Incident');
    return (await incidentDtos([row]))[0]!;
  }

  async function verify(tenantId: string): Promise<Integrity> {
    const all = await repo.allRecords(db, tenantId);
    const records: ChainedRecord[] = RECORD_TYPES.flatMap((type) => (all[type] as RecordRow[]).map((row) => ({ type, tenantId, row })));
    const logged: LoggedRecord[] = [];
    for (const c of await repo.loggedRecords(db, tenantId)) {
      const type = ENTITY_TO_TYPE[c.entity];
      if (!type) continue;
      const r = (JSON.parse(c.payload) as Record<string, { id?: string; origin?: string; chain_seq?: number; hash?: string } | undefined>)[RECORD_ENTITY[type].key];
      if (r && r.id === c.entity_id && typeof r.origin === 'string' && typeof r.chain_seq === 'number' && typeof r.hash === 'string') {
        logged.push({ type, id: r.id, origin: r.origin, chain_seq: r.chain_seq, hash: r.hash });
      }
    }
    // On the cloud every record arrived through its change log; an appliance's log has its own
    // records, and those of other origins only since it joined (older ones came as a snapshot).
    const own = changes.origin;
    return verifyChains(records, logged, (origin) => own === 'cloud' || origin === own);
  }

  /** The overdue incidents of one tenant at `now` that do not exist yet (docs/haccp.md "Overdue"). */
  async function overdueCandidates(tenantId: string, now: Date, timeZone: string, open: (day: string) => boolean) {
    const today = businessDay(now, timeZone);
    const origin = changes.origin;
    const out: Array<{ id: string; fields: Pick<IncidentRow, 'kind' | 'unit_id' | 'checklist_id' | 'log_id' | 'business_day' | 'description'> }> = [];
    for (const c of await repo.listChecklists(db, tenantId, false)) {
      for (const day of daysBetween(addDays(today, -OVERDUE_LOOKBACK_DAYS), today)) {
        if (c.frequency === 'daily' && !open(day)) continue;
        const deadline = checklistDeadline({ ...c, weekday: c.weekday as Weekday | null }, day, timeZone);
        if (!deadline || deadline > now) continue;
        const from = c.frequency === 'daily' ? day : weekStart(day);
        if (await repo.hasRunBy(db, tenantId, c.id, from, day, deadline.toISOString())) continue;
        out.push({
          id: derivedId(tenantId, origin, 'checklist_overdue', c.id, day),
          fields: {
            kind: 'checklist_overdue',
            unit_id: null,
            checklist_id: c.id,
            log_id: null,
            business_day: day,
            description: `Controlelijst '${c.name}' is op ${day} niet uitgevoerd vóór ${c.deadline} uur.`,
          },
        });
      }
    }
    for (const u of await repo.listUnits(db, tenantId, false)) {
      for (const day of daysBetween(addDays(today, -OVERDUE_LOOKBACK_DAYS), addDays(today, -1))) {
        if (!open(day) || !unitDue(u, day, timeZone)) continue;
        const n = await repo.countLogs(db, tenantId, u.id, day);
        if (n >= u.readings_per_day) continue;
        out.push({
          id: derivedId(tenantId, origin, 'readings_missing', u.id, day),
          fields: {
            kind: 'readings_missing',
            unit_id: u.id,
            checklist_id: null,
            log_id: null,
            business_day: day,
            description: `${u.name}: ${n} van de ${u.readings_per_day} verplichte temperatuurmetingen op ${day}.`,
          },
        });
      }
    }
    const existing = await repo.incidentIdsExisting(db, out.map((c) => c.id));
    return out.filter((c) => !existing.has(c.id));
  }

  return {
    verify,

    // ---- units ---------------------------------------------------------------------------------
    async listUnits(tenantId: string, includeArchived = false): Promise<Unit[]> {
      return (await repo.listUnits(db, tenantId, includeArchived)).map(toUnitDto);
    },

    async createUnit(tenantId: string, input: CreateUnitInput): Promise<Unit> {
      return changes.write(tenantId, async (w) => {
        const key = nameKey(input.name);
        if (await repo.findActiveUnitByKey(w.trx, tenantId, key)) throw nameTaken(input.name);
        const row: UnitRow = {
          id: await unitIdFor(w.trx, tenantId, key),
          tenant_id: tenantId,
          name: input.name,
          name_key: key,
          unit_type: input.unit_type,
          target_max: input.target_max,
          target_min: input.target_min ?? null,
          readings_per_day: input.readings_per_day ?? 2,
          created_at: w.now,
          updated_at: w.now,
          archived_at: null,
        };
        await repo.insertUnit(w.trx, row);
        await w.record(unitChange(row, 'haccp.unit_created'));
        return toUnitDto(row);
      });
    },

    async updateUnit(tenantId: string, id: string, input: UpdateUnitInput): Promise<Unit> {
      return changes.write(tenantId, async (w) => {
        const cur = await repo.findUnit(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw unitNotFound();
        const fields: Partial<UnitRow> = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
        if (input.name !== undefined) {
          fields.name_key = nameKey(input.name);
          const holder = await repo.findActiveUnitByKey(w.trx, tenantId, fields.name_key);
          if (holder && holder.id !== id) throw nameTaken(input.name);
        }
        const row: UnitRow = { ...cur, ...fields, updated_at: w.now };
        if (row.target_min !== null && row.target_min >= row.target_max) throw invalidField('target_min', "moet lager zijn dan 'target_max'.");
        await repo.updateUnit(w.trx, row);
        await w.record(unitChange(row, 'haccp.unit_updated', fields));
        return toUnitDto(row);
      });
    },

    /** Archive: logs refer to units, and deletes must sync (ARCHITECTURE §3). */
    async archiveUnit(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await repo.findUnit(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw unitNotFound();
        const row: UnitRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await repo.updateUnit(w.trx, row);
        await w.record(unitChange(row, 'haccp.unit_archived', { archived_at: w.now }));
      });
    },

    // ---- temperature ---------------------------------------------------------------------------
    /**
     * POST /haccp/temperature: the status follows from the unit's target and the tenant's margin
     * (CONTRACT §9); an unknown unit name registers the unit; `kritiek` opens an incident in the same
     * transaction (event `haccp.incident`: webhooks and the tablets' live alert).
     */
    async logTemperature(actor: HaccpActor, input: LogTemperatureInput): Promise<TemperatureLog & { incident_id: string | null }> {
      const { tenantId } = actor;
      const { haccp_margin: margin, timezone } = await tenants.cachedSettings(tenantId);
      return changes.write(tenantId, async (w) => {
        const key = nameKey(input.unit_name);
        let unit = await repo.findActiveUnitByKey(w.trx, tenantId, key);
        if (!unit) {
          const details = [
            ...(input.unit_type === undefined ? [{ field: 'unit_type', error: `'unit_type' is verplicht voor een nieuw meetpunt ('${input.unit_name}' is nog niet geregistreerd).` }] : []),
            ...(input.target_max === undefined ? [{ field: 'target_max', error: `'target_max' is verplicht voor een nieuw meetpunt ('${input.unit_name}' is nog niet geregistreerd).` }] : []),
          ];
          if (details.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${details[0]!.error.replace(/\.$/, '')}.`, { details });
          unit = {
            id: await unitIdFor(w.trx, tenantId, key),
            tenant_id: tenantId,
            name: input.unit_name,
            name_key: key,
            unit_type: input.unit_type!,
            target_max: input.target_max!,
            target_min: input.target_min ?? null,
            readings_per_day: 2,
            created_at: w.now,
            updated_at: w.now,
            archived_at: null,
          };
          await repo.insertUnit(w.trx, unit);
          await w.record(unitChange(unit, 'haccp.unit_created'));
        } else {
          // A known unit is judged by its registered target, never by a number a tablet sends along.
          const differs = (field: 'unit_type' | 'target_max' | 'target_min', given: unknown, registered: unknown) =>
            given !== undefined && given !== registered
              ? [{ field, error: `'${field}' (${given === null ? 'leeg' : nl(given as number)}) wijkt af van wat voor '${unit!.name}' is ingesteld (${registered === null ? 'leeg' : nl(registered as number)}); laat het veld weg of pas het meetpunt aan.` }]
              : [];
          const details = [
            ...differs('unit_type', input.unit_type, unit.unit_type),
            ...differs('target_max', input.target_max, Number(unit.target_max)),
            ...differs('target_min', input.target_min, unit.target_min === null ? null : Number(unit.target_min)),
          ];
          if (details.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${details[0]!.error.replace(/\.$/, '')}.`, { details });
        }
        const target = { target_max: Number(unit.target_max), target_min: unit.target_min === null ? null : Number(unit.target_min) };
        const status = temperatureStatus(input.temperature, target, margin);
        const u = unit;
        const row = await append<LogRow>(w, tenantId, 'temperature_log', (link) => ({
          id: newId(),
          tenant_id: tenantId,
          ...link,
          unit_id: u.id,
          unit_name: u.name,
          unit_type: u.unit_type,
          temperature: input.temperature,
          ...target,
          margin,
          status,
          business_day: businessDay(w.nowDate, timezone),
          user_id: actor.userId,
          note: input.note ?? null,
          created_at: w.now,
        }));
        const log = logDto(row);
        await w.record({ entity: 'haccp_temperature_log', entityId: row.id, kind: 'haccp.temperature_logged', payload: { log } });
        let incidentId: string | null = null;
        if (status === 'kritiek') {
          const limit = target.target_min !== null && input.temperature < target.target_min ? `minimaal ${nl(target.target_min)} °C` : `maximaal ${nl(target.target_max)} °C`;
          const incident = await openIncident(
            w,
            tenantId,
            newId(),
            {
              kind: 'temperature',
              unit_id: u.id,
              checklist_id: null,
              log_id: row.id,
              business_day: row.business_day,
              description: `${u.name}: ${nl(input.temperature)} °C gemeten (${limit}, marge ${nl(margin)} °C): kritiek.`,
            },
            log,
          );
          incidentId = incident.id;
        }
        return { ...log, incident_id: incidentId };
      });
    },

    // ---- checklists ----------------------------------------------------------------------------
    async listChecklists(tenantId: string, includeArchived = false): Promise<Checklist[]> {
      return (await repo.listChecklists(db, tenantId, includeArchived)).map(toChecklistDto);
    },

    async getChecklist(tenantId: string, id: string): Promise<Checklist> {
      const row = await repo.findChecklist(db, tenantId, id);
      if (!row || row.archived_at) throw checklistNotFound();
      return toChecklistDto(row);
    },

    async createChecklist(tenantId: string, input: CreateChecklistInput): Promise<Checklist> {
      return changes.write(tenantId, async (w) => {
        const row: ChecklistRow = {
          id: newId(),
          tenant_id: tenantId,
          name: input.name,
          frequency: input.frequency,
          deadline: input.deadline ?? '23:59',
          weekday: input.frequency === 'weekly' ? (input.weekday ?? 'mon') : null,
          items: JSON.stringify(input.items.map((i) => ({ id: newId(), label: i.label }))),
          created_at: w.now,
          updated_at: w.now,
          archived_at: null,
        };
        await repo.insertChecklist(w.trx, row);
        await w.record(checklistChange(row, 'haccp.checklist_created'));
        return toChecklistDto(row);
      });
    },

    async updateChecklist(tenantId: string, id: string, input: UpdateChecklistInput): Promise<Checklist> {
      return changes.write(tenantId, async (w) => {
        const cur = await repo.findChecklist(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw checklistNotFound();
        const fields: Partial<ChecklistRow> = {};
        if (input.name !== undefined) fields.name = input.name;
        if (input.deadline !== undefined) fields.deadline = input.deadline;
        if (input.frequency !== undefined) fields.frequency = input.frequency;
        const frequency = input.frequency ?? cur.frequency;
        if (frequency === 'daily' && input.weekday) throw invalidField('weekday', 'hoort alleen bij een wekelijkse controlelijst.');
        if (input.weekday !== undefined || input.frequency !== undefined) fields.weekday = frequency === 'weekly' ? (input.weekday ?? cur.weekday ?? 'mon') : null;
        if (input.items) {
          const known = new Set((JSON.parse(cur.items) as Array<{ id: string }>).map((i) => i.id));
          const details = input.items.flatMap((item, idx) =>
            item.id !== undefined && !known.has(item.id) ? [{ field: `items.${idx}.id`, error: `'items.${idx}.id' is geen onderdeel van deze controlelijst.` }] : [],
          );
          const ids = input.items.map((i) => i.id).filter(Boolean);
          if (new Set(ids).size !== ids.length) details.push({ field: 'items', error: "'items' bevat een onderdeel twee keer." });
          if (details.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${details[0]!.error.replace(/\.$/, '')}.`, { details });
          fields.items = JSON.stringify(input.items.map((i) => ({ id: i.id ?? newId(), label: i.label })));
        }
        const row: ChecklistRow = { ...cur, ...fields, updated_at: w.now };
        await repo.updateChecklist(w.trx, row);
        await w.record(checklistChange(row, 'haccp.checklist_updated', fields));
        return toChecklistDto(row);
      });
    },

    /** Archive: runs refer to checklists, and deletes must sync. */
    async archiveChecklist(tenantId: string, id: string): Promise<void> {
      await changes.write(tenantId, async (w) => {
        const cur = await repo.findChecklist(w.trx, tenantId, id);
        if (!cur || cur.archived_at) throw checklistNotFound();
        const row: ChecklistRow = { ...cur, archived_at: w.now, updated_at: w.now };
        await repo.updateChecklist(w.trx, row);
        await w.record(checklistChange(row, 'haccp.checklist_archived', { archived_at: w.now }));
      });
    },

    /**
     * POST /haccp/checklists/:id/run (CONTRACT §9): `completed_items` are ids of the checklist's items
     * (an unknown id is VALIDATION; a repeated id counts once); the run records who, what was done and
     * what is missing, and whether it was complete.
     */
    async runChecklist(actor: HaccpActor, id: string, input: RunChecklistInput): Promise<ChecklistRun> {
      const { tenantId } = actor;
      const { timezone } = await tenants.cachedSettings(tenantId);
      return changes.write(tenantId, async (w) => {
        const c = await repo.findChecklist(w.trx, tenantId, id);
        if (!c || c.archived_at) throw checklistNotFound();
        const items = JSON.parse(c.items) as Array<{ id: string; label: string }>;
        const onList = new Set(items.map((i) => i.id));
        const details = input.completed_items.flatMap((itemId, idx) =>
          onList.has(itemId) ? [] : [{ field: `completed_items.${idx}`, error: `'completed_items.${idx}' is geen onderdeel van controlelijst '${c.name}'.` }],
        );
        if (details.length) throw new AppError('VALIDATION', `Ongeldige invoer: ${details[0]!.error.replace(/\.$/, '')}.`, { details });
        const done = new Set(input.completed_items);
        const completed = items.filter((i) => done.has(i.id)).map((i) => i.id);
        const missing = items.filter((i) => !done.has(i.id)).map((i) => i.id);
        const row = await append<RunRow>(w, tenantId, 'checklist_run', (link) => ({
          id: newId(),
          tenant_id: tenantId,
          ...link,
          checklist_id: c.id,
          checklist_name: c.name,
          business_day: businessDay(w.nowDate, timezone),
          user_id: actor.userId,
          items: JSON.stringify(items.map((i) => ({ id: i.id, label: i.label, done: done.has(i.id) }))),
          completed_items: JSON.stringify(completed),
          missing_items: JSON.stringify(missing),
          complete: missing.length === 0 ? 1 : 0,
          notes: input.notes ?? null,
          created_at: w.now,
        }));
        const run = runDto(row);
        await w.record({ entity: 'haccp_checklist_run', entityId: row.id, kind: 'haccp.checklist_run', payload: { run } });
        return run;
      });
    },

    // ---- incidents -----------------------------------------------------------------------------
    async listIncidents(tenantId: string, q: { status?: 'open' | 'closed'; limit: number; offset: number }) {
      const [rows, total] = await Promise.all([repo.listIncidents(db, tenantId, q.status, q.limit, q.offset), repo.countIncidents(db, tenantId, q.status)]);
      return { data: await incidentDtos(rows), total, limit: q.limit, offset: q.offset };
    },

    getIncident,

    /** A corrective action: a new record (never an edit); the incident is closed from then on. */
    async addAction(actor: HaccpActor, incidentId: string, note: string): Promise<{ action: Action; incident: Incident }> {
      const { tenantId } = actor;
      const action = await changes.write(tenantId, async (w) => {
        const incident = await repo.findIncident(w.trx, tenantId, incidentId);
        if (!incident) throw notFound('Incident');
        const row = await append<ActionRow>(w, tenantId, 'corrective_action', (link) => ({
          id: newId(),
          tenant_id: tenantId,
          ...link,
          incident_id: incident.id,
          note,
          user_id: actor.userId,
          created_at: w.now,
        }));
        const dto = actionDto(row);
        await w.record({ entity: 'haccp_action', entityId: row.id, kind: 'haccp.corrective_action', payload: { action: dto } });
        return dto;
      });
      return { action, incident: await getIncident(tenantId, incidentId) };
    },

    // ---- overdue job ---------------------------------------------------------------------------
    /**
     * The overdue job (registered as 'haccp-overdue', every 5 minutes): for each restaurant with
     * units or checklists, one incident per daily checklist not run by its deadline (weekly: on its
     * weekday) and per unit read fewer times than it must on a finished day, looking back
     * OVERDUE_LOOKBACK_DAYS. Each incident's id is derived from (tenant, origin, what, which, day),
     * so a repeated run records nothing twice. Answers how many incidents it recorded.
     */
    async checkOverdue(): Promise<number> {
      let recorded = 0;
      for (const tenantId of await repo.scheduledTenants(db)) {
        if (changes.origin === 'cloud' && deps.hasAppliance && (await deps.hasAppliance(tenantId))) continue;
        const { timezone, opening_hours } = await tenants.getSettings(tenantId);
        const now = clock.now();
        const candidates = await overdueCandidates(tenantId, now, timezone, (day) => openOn(opening_hours, day));
        if (candidates.length === 0) continue;
        recorded += await changes.write(tenantId, async (w) => {
          let n = 0;
          const existing = await repo.incidentIdsExisting(w.trx, candidates.map((c) => c.id));
          for (const c of candidates) {
            if (existing.has(c.id)) continue;
            await openIncident(w, tenantId, c.id, c.fields);
            n += 1;
          }
          return n;
        });
      }
      return recorded;
    },

    // ---- export --------------------------------------------------------------------------------
    /**
     * GET /haccp/export?days=N (CONTRACT §9): the last N calendar days up to today in the tenant's
     * time zone: logs, runs, incidents with their actions, open incidents, whether every chain
     * verifies, and the gaps an inspector looks for first.
     */
    async export(tenantId: string, days: number): Promise<Export> {
      const tenant = await tenants.byId(tenantId);
      if (!tenant) throw notFound('Restaurant');
      const settings = await tenants.getSettings(tenantId);
      const tz = settings.timezone;
      const now = clock.now();
      const today = businessDay(now, tz);
      const from = addDays(today, -(days - 1));
      const [units, checklists, logs, runs, incidents, openRows, people, integrity] = await Promise.all([
        repo.listUnits(db, tenantId, true),
        repo.listChecklists(db, tenantId, true),
        repo.logsBetween(db, tenantId, from, today),
        // A weekly list's run early in the first week covers a due day inside the period.
        repo.runsBetween(db, tenantId, weekStart(from), today),
        repo.incidentsBetween(db, tenantId, from, today),
        repo.listIncidents(db, tenantId, 'open', 10_000, 0),
        users.list(tenantId),
        verify(tenantId),
      ]);
      const names = new Map(people.map((p) => [p.id, p.name]));
      const userName = (id: string | null) => (id ? (names.get(id) ?? null) : null);

      const readings = new Map<string, number>();
      for (const l of logs) readings.set(`${l.unit_id}/${l.business_day}`, (readings.get(`${l.unit_id}/${l.business_day}`) ?? 0) + 1);
      const missing_readings: Export['missing_readings'] = [];
      for (const day of daysBetween(from, addDays(today, -1))) {
        for (const u of units) {
          if (!openOn(settings.opening_hours, day) || !unitDue(u, day, tz)) continue;
          const recorded = readings.get(`${u.id}/${day}`) ?? 0;
          if (recorded < u.readings_per_day) missing_readings.push({ unit_id: u.id, unit_name: u.name, date: day, required: u.readings_per_day, recorded });
        }
      }
      const missed_checklists: Export['missed_checklists'] = [];
      for (const day of daysBetween(from, today)) {
        for (const c of checklists) {
          if (c.frequency === 'daily' && !openOn(settings.opening_hours, day)) continue;
          const deadline = checklistDeadline({ ...c, weekday: c.weekday as Weekday | null }, day, tz);
          if (!deadline || deadline > now) continue;
          if (runs.some((r) => r.checklist_id === c.id && runCovers(c, r.business_day, day))) continue;
          missed_checklists.push({ checklist_id: c.id, name: c.name, frequency: c.frequency, date: day, deadline: c.deadline });
        }
      }

      const periodIncidents = await incidentDtos(incidents);
      return {
        tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name },
        period: { from, to: today, days, timezone: tz },
        generated_at: now.toISOString(),
        integrity,
        missing_readings,
        missed_checklists,
        open_incidents: await incidentDtos(openRows),
        temperature_logs: logs.map((l) => ({ ...logDto(l), user_name: userName(l.user_id) })),
        checklist_runs: runs.filter((r) => r.business_day >= from).map((r) => ({ ...runDto(r), user_name: userName(r.user_id) })),
        incidents: periodIncidents.map((i) => ({ ...i, actions: i.actions.map((a) => ({ ...a, user_name: userName(a.user_id) })) })),
        units: units.map(toUnitDto),
        checklists: checklists.map(toChecklistDto),
      };
    },
  };
}

export type HaccpService = ReturnType<typeof createHaccpService>;
