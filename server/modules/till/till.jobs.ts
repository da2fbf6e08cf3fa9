import type { JobSpec } from '../../plugins/scheduler.js';
import type { TillService } from './till.service.js';

/** The till's safety net after sync (docs/till.md "Across sync"). */
export const TILL_SETTLE_JOB = 'till.settle';

/** Every minute: orders without a table that the union of both sides' till payments paid in full are marked paid. */
export const tillJobs = (deps: { till: TillService }): JobSpec[] => [{ name: TILL_SETTLE_JOB, cron: '* * * * *', run: () => deps.till.settleSynced().then(() => undefined) }];
