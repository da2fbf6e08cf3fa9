import type { JobSpec } from '../../plugins/scheduler.js';
import type { HaccpService } from './haccp.service.js';

/** The overdue job's name in the scheduler; every 5 minutes (its logic uses the injected clock). */
export const OVERDUE_JOB = 'haccp-overdue';

/** Food safety's cron jobs (docs/haccp.md): overdue checklists and readings become incidents. */
export const haccpJobs = (deps: { haccp: HaccpService }): JobSpec[] => [
  {
    name: OVERDUE_JOB,
    cron: '*/5 * * * *',
    run: async ({ log }) => {
      const n = await deps.haccp.checkOverdue();
      if (n > 0) log.info({ incidents: n }, 'haccp: overdue incidents recorded');
    },
  },
];
