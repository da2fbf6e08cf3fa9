import { notFound } from '../../shared/errors.js';
import { addDays, businessDay, dateRange, type Weekday } from '../../shared/zoned-time.js';
import { logDto, RECORD_ENTITY, RECORD_TYPES, runDto, verifyChains, type ChainedRecord, type LoggedRecord, type RecordRow } from './haccp.chain.js';
import { toChecklistDto, toUnitDto, type HaccpDeps } from './haccp.context.js';
import { incidentDtos } from './haccp.incidents.js';
import { ENTITY_TO_TYPE, haccpRepository as repo } from './haccp.repository.js';
import { checklistDeadline, openOn, runCovers, unitDue, weekStart } from './haccp.rules.js';
import type { Export, Integrity } from './haccp.schemas.js';

/**
 * What the inspector (NVWA) reads (CONTRACT §9, docs/haccp.md): the export of a period with the gaps
 * first, and the verification of every node's hash chain. Part of the food-safety service (haccp.service.ts).
 */
export function createHaccpExport(ctx: HaccpDeps) {
  const { db, changes, clock, tenants, users } = ctx;

  /** Whether every node's chain verifies, and against the change log where this node has it. */
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

  return {
    verify,

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
      for (const day of dateRange(from, addDays(today, -1))) {
        for (const u of units) {
          if (!openOn(settings.opening_hours, day) || !unitDue(u, day, tz)) continue;
          const recorded = readings.get(`${u.id}/${day}`) ?? 0;
          if (recorded < u.readings_per_day) missing_readings.push({ unit_id: u.id, unit_name: u.name, date: day, required: u.readings_per_day, recorded });
        }
      }
      const missed_checklists: Export['missed_checklists'] = [];
      for (const day of dateRange(from, today)) {
        for (const c of checklists) {
          if (c.frequency === 'daily' && !openOn(settings.opening_hours, day)) continue;
          const deadline = checklistDeadline({ ...c, weekday: c.weekday as Weekday | null }, day, tz);
          if (!deadline || deadline > now) continue;
          if (runs.some((r) => r.checklist_id === c.id && runCovers(c, r.business_day, day))) continue;
          missed_checklists.push({ checklist_id: c.id, name: c.name, frequency: c.frequency, date: day, deadline: c.deadline });
        }
      }

      const periodIncidents = await incidentDtos(db, incidents);
      return {
        tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name },
        period: { from, to: today, days, timezone: tz },
        generated_at: now.toISOString(),
        integrity,
        missing_readings,
        missed_checklists,
        open_incidents: await incidentDtos(db, openRows),
        temperature_logs: logs.map((l) => ({ ...logDto(l), user_name: userName(l.user_id) })),
        checklist_runs: runs.filter((r) => r.business_day >= from).map((r) => ({ ...runDto(r), user_name: userName(r.user_id) })),
        incidents: periodIncidents.map((i) => ({ ...i, actions: i.actions.map((a) => ({ ...a, user_name: userName(a.user_id) })) })),
        units: units.map(toUnitDto),
        checklists: checklists.map(toChecklistDto),
      };
    },
  };
}
