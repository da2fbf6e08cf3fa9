import type { JobSpec } from '../../plugins/scheduler.js';
import type { WebhooksService } from './webhooks.service.js';

/** Name of the delivery job: every 5 s once the server listens; tests run it by hand. */
export const DELIVERY_JOB = 'webhooks-deliver';
/** Name of the nightly retention job (03:17): finished deliveries older than 30 days are deleted. */
export const PRUNE_JOB = 'webhooks-prune';

/** Outgoing webhooks' cron jobs (docs/partners.md), on the sending node only (`isSender`). */
export const webhooksJobs = (deps: { webhooks: WebhooksService }): JobSpec[] =>
  deps.webhooks.isSender
    ? [
        { name: DELIVERY_JOB, cron: '*/5 * * * * *', run: () => deps.webhooks.sender.runDue().then(() => {}) },
        // Finished deliveries are kept 30 days (DELIVERY_RETENTION_DAYS), then pruned at night.
        { name: PRUNE_JOB, cron: '17 3 * * *', run: () => deps.webhooks.pruneDeliveries().then(() => {}) },
      ]
    : [];
