import type { Writer } from '../../db/change-log.js';
import { AppError, conflict, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { businessDay } from '../../shared/zoned-time.js';
import { logDto, type LogRow } from './haccp.chain.js';
import { append, toUnitDto, unitChange, type HaccpActor, type HaccpDeps } from './haccp.context.js';
import { openIncident } from './haccp.incidents.js';
import { haccpRepository as repo, type UnitRow } from './haccp.repository.js';
import { derivedId, nameKey, nl, temperatureStatus } from './haccp.rules.js';
import type { CreateUnitInput, LogTemperatureInput, TemperatureLog, Unit, UpdateUnitInput } from './haccp.schemas.js';

/**
 * Temperatures (CONTRACT §9, docs/haccp.md): the measuring points (units) and the readings logged
 * against them; a `kritiek` reading opens an incident. Part of the food-safety service (haccp.service.ts).
 */

const unitNotFound = () => notFound('Meetpunt');
const nameTaken = (name: string) => conflict(`Er is al een meetpunt met de naam '${name}'.`);

/** An id for a new unit of this name: derived from the name, so the same new name on two sides makes one unit. */
async function unitIdFor(trx: Writer['trx'], tenantId: string, key: string): Promise<string> {
  const derived = derivedId(tenantId, 'haccp-unit', key);
  // Taken by a unit since renamed or archived: that one keeps it, this one gets its own.
  return (await repo.unitById(trx, derived)) ? newId() : derived;
}

export function createHaccpTemperatures(ctx: HaccpDeps) {
  const { db, changes, tenants } = ctx;
  return {
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
        const row = await append<LogRow>(ctx, w, tenantId, 'temperature_log', (link) => ({
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
            ctx,
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
  };
}
