import type { JobSpec } from '../../plugins/scheduler.js';
import type { Role } from '../../shared/role.js';
import type { LoyaltyService } from './loyalty.service.js';

/**
 * Loyalty's cron jobs (docs/loyalty.md), every 5 minutes: the cloud renews the appliances' leases;
 * an appliance returns what it holds beyond its lease.
 */
export const loyaltyJobs = (deps: { loyalty: LoyaltyService; role: Role }): JobSpec[] =>
  deps.role === 'cloud'
    ? [{ name: 'loyalty-lease-renewal', cron: '*/5 * * * *', run: () => deps.loyalty.renewLeases().then(() => {}) }]
    : [{ name: 'loyalty-lease-returns', cron: '*/5 * * * *', run: () => deps.loyalty.returnExcess().then(() => {}) }];
