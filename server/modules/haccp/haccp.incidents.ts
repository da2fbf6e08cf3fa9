import type { Writer } from '../../db/change-log.js';
import type { Executor } from '../../db/connection.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { addDays, businessDay, dateRange, type Weekday } from '../../shared/zoned-time.js';
import { actionDto, type ActionRow, type IncidentRow } from './haccp.chain.js';
import { append, toIncidentDto, type HaccpActor, type HaccpDeps } from './haccp.context.js';
import { haccpRepository as repo } from './haccp.repository.js';
import { checklistDeadline, derivedId, openOn, unitDue, weekStart } from './haccp.rules.js';
import type { Action, Incident, TemperatureLog } from './haccp.schemas.js';

/**
 * Incidents (docs/haccp.md): opened by a `kritiek` temperature or by the overdue job, closed by a
 * corrective action (a new record, never an edit). Part of the food-safety service (haccp.service.ts).
 */

/** How many days back the overdue job looks (a node that was off for a day still records yesterday's gaps). */
export const OVERDUE_LOOKBACK_DAYS = 2;

type IncidentFields = Pick<IncidentRow, 'kind' | 'unit_id' | 'checklist_id' | 'log_id' | 'business_day' | 'description'>;

/** A new incident in this node's chain and the `haccp.incident` event (webhook, socket alert). */
export async function openIncident(ctx: Pick<HaccpDeps, 'changes'>, w: Writer, tenantId: string, id: string, fields: IncidentFields, log?: TemperatureLog): Promise<IncidentRow> {
  const row = await append<IncidentRow>(ctx, w, tenantId, 'incident', (link) => ({ id, tenant_id: tenantId, ...link, ...fields, created_at: w.now }));
  await w.record({ entity: 'haccp_incident', entityId: id, kind: 'haccp.incident', payload: { incident: toIncidentDto(row, []), ...(log ? { log } : {}) } });
  return row;
}

/** Incidents with their corrective actions, read through `db`. */
export async function incidentDtos(db: Executor, rows: IncidentRow[]): Promise<Incident[]> {
  const actions = await repo.actionsOf(db, rows.map((r) => r.id));
  return rows.map((r) => toIncidentDto(r, actions.filter((a) => a.incident_id === r.id)));
}

export function createHaccpIncidents(ctx: HaccpDeps) {
  const { db, changes, clock, tenants } = ctx;

  async function getIncident(tenantId: string, id: string): Promise<Incident> {
    const row = await repo.findIncident(db, tenantId, id);
    if (!row) throw notFound('Incident');
    return (await incidentDtos(db, [row]))[0]!;
  }

  /** The overdue incidents of one tenant at `now` that do not exist yet (docs/haccp.md "Overdue"). */
  async function overdueCandidates(tenantId: string, now: Date, timeZone: string, open: (day: string) => boolean) {
    const today = businessDay(now, timeZone);
    const origin = changes.origin;
    const out: Array<{ id: string; fields: IncidentFields }> = [];
    for (const c of await repo.listChecklists(db, tenantId, false)) {
      for (const day of dateRange(addDays(today, -OVERDUE_LOOKBACK_DAYS), today)) {
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
      for (const day of dateRange(addDays(today, -OVERDUE_LOOKBACK_DAYS), addDays(today, -1))) {
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
    async listIncidents(tenantId: string, q: { status?: 'open' | 'closed'; limit: number; offset: number }) {
      const [rows, total] = await Promise.all([repo.listIncidents(db, tenantId, q.status, q.limit, q.offset), repo.countIncidents(db, tenantId, q.status)]);
      return { data: await incidentDtos(db, rows), total, limit: q.limit, offset: q.offset };
    },

    getIncident,

    /** A corrective action: a new record (never an edit); the incident is closed from then on. */
    async addAction(actor: HaccpActor, incidentId: string, note: string): Promise<{ action: Action; incident: Incident }> {
      const { tenantId } = actor;
      const action = await changes.write(tenantId, async (w) => {
        const incident = await repo.findIncident(w.trx, tenantId, incidentId);
        if (!incident) throw notFound('Incident');
        const row = await append<ActionRow>(ctx, w, tenantId, 'corrective_action', (link) => ({
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
        if (changes.origin === 'cloud' && ctx.hasAppliance && (await ctx.hasAppliance(tenantId))) continue;
        const { timezone, opening_hours } = await tenants.getSettings(tenantId);
        const now = clock.now();
        const candidates = await overdueCandidates(tenantId, now, timezone, (day) => openOn(opening_hours, day));
        if (candidates.length === 0) continue;
        recorded += await changes.write(tenantId, async (w) => {
          let n = 0;
          const existing = await repo.incidentIdsExisting(w.trx, candidates.map((c) => c.id));
          for (const c of candidates) {
            if (existing.has(c.id)) continue;
            await openIncident(ctx, w, tenantId, c.id, c.fields);
            n += 1;
          }
          return n;
        });
      }
      return recorded;
    },
  };
}
