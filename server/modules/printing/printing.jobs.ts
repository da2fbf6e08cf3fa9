import type { JobSpec } from '../../plugins/scheduler.js';
import type { PrintingService } from './printing.service.js';

/** Sends due print jobs: the retry clock of printers that were off (new tickets are sent at once after their commit). */
export const PRINT_DELIVERY_JOB = 'printing.deliver';

/** Printing's cron jobs (docs/kitchen.md): every 2 s, due jobs are sent (a no-op query when none are). */
export const printingJobs = (deps: { printing: PrintingService }): JobSpec[] => [
  { name: PRINT_DELIVERY_JOB, cron: '*/2 * * * * *', run: () => deps.printing.deliverDue() },
];
