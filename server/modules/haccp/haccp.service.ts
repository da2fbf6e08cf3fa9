import { createHaccpChecklists } from './haccp.checklists.js';
import type { HaccpDeps } from './haccp.context.js';
import { createHaccpExport } from './haccp.export.js';
import { createHaccpIncidents } from './haccp.incidents.js';
import { createHaccpTemperatures } from './haccp.temperatures.js';
import { createHaccpToday } from './haccp.today.js';

export { toChecklistDto, toIncidentDto, toUnitDto, type HaccpActor } from './haccp.context.js';
export { OVERDUE_LOOKBACK_DAYS } from './haccp.incidents.js';

/**
 * The food-safety service (docs/haccp.md): one object composed of its parts, which share the deps
 * and the DTOs, change entries and chain `append` of haccp.context.ts:
 * - haccp.temperatures.ts  measuring points (units) and temperature logs; `kritiek` opens an incident
 * - haccp.checklists.ts    checklists and their runs
 * - haccp.incidents.ts     incidents, corrective actions and the overdue job
 * - haccp.export.ts        the inspector's export and the verification of the hash chains
 * - haccp.today.ts         today's round for a tablet (readings owed, checklists done, the margin)
 */
export function createHaccpService(deps: HaccpDeps) {
  return {
    ...createHaccpExport(deps),
    ...createHaccpTemperatures(deps),
    ...createHaccpChecklists(deps),
    ...createHaccpIncidents(deps),
    ...createHaccpToday(deps),
  };
}

export type HaccpService = ReturnType<typeof createHaccpService>;
