import type { JobSpec } from '../../plugins/scheduler.js';
import type { FloorService } from './floor.service.js';

/** How often the floor re-derives table statuses (bookings coming within the hour, bills settled through sync). */
export const FLOOR_STATUS_JOB = 'floor.status';

/** The floor's cron jobs (docs/floor.md): every minute, table statuses are derived again. */
export const floorJobs = (deps: { floor: FloorService }): JobSpec[] => [
  { name: FLOOR_STATUS_JOB, cron: '* * * * *', run: () => deps.floor.refreshStatuses() },
];
